/**
 * Prometheus's HTTP API answer to /api/v1/query_range → series of (seconds, value) points, or a one-line error for
 * the user. Pure: it sees the status code and the body's text, never the network (query-range.ts fetches).
 * The format: https://prometheus.io/docs/prometheus/latest/querying/api/ — `{"status":"success","data":
 * {"resultType":"matrix","result":[{"metric":{labels},"values":[[1700000000.123,"42"],…]}]}}`, or
 * `{"status":"error","errorType":"bad_data","error":"…"}` with a 4xx/5xx status.
 */
import { MemleakError, EXIT } from "../base/errors.js";
import { safeText } from "../base/safe-text.js";
import { NOT_READ, Points, readMatrixJson } from "./matrix-json.js";
import { pointInto } from "./point.js";

export interface RangeSeries {
  /** The series' labels, `__name__` (the metric's name) included when the query kept it. */
  labels: Record<string, string>;
  /** Unix seconds, ascending. */
  ts: number[];
  values: number[];
}

export interface RangeResult {
  series: RangeSeries[];
  /** What Prometheus warned about (a partial answer, a query that touched too much). */
  warnings: string[];
}

/** The first line of a text from the server, control characters escaped, at most 300 characters. */
const oneLine = (text: string) => safeText((text.split("\n")[0] ?? "").slice(0, 300));

interface ApiBody {
  status?: unknown;
  errorType?: unknown;
  error?: unknown;
  warnings?: unknown;
  data?: { resultType?: unknown; result?: unknown };
}

/**
 * @param where the server and query, for messages ("http://prom:9090")
 * A bad query (Prometheus's own words) is the user's to fix: exit 2. A server that answers with something that is not
 * Prometheus's API, or fails: exit 3, memleak could not read what it was asked to.
 */
export function parseRangeResponse(status: number, body: string, where: string): RangeResult {
  let parsed: ApiBody;
  try {
    // The matrix's points read in place; any other text (or one the reader does not know) as JSON.parse reads it.
    const read = readMatrixJson(body);
    parsed = (read === NOT_READ ? JSON.parse(body) : read) as ApiBody;
  } catch {
    throw new MemleakError(
      `${where} answered HTTP ${status} with something that is not Prometheus's JSON API: ${oneLine(body) || "(empty)"}`,
      EXIT.cannotObserve,
    );
  }
  if (parsed?.status === "error") {
    const what = `${typeof parsed.errorType === "string" ? parsed.errorType : "error"}: ${oneLine(String(parsed.error ?? ""))}`;
    // bad_data is the query's fault (a syntax error, a range too fine for Prometheus's 11,000 points).
    const code = parsed.errorType === "bad_data" ? EXIT.usage : EXIT.cannotObserve;
    throw new MemleakError(`Prometheus at ${where} refused the query (${what})`, code);
  }
  if (parsed?.status !== "success" || typeof parsed.data !== "object" || parsed.data === null) {
    throw new MemleakError(
      `${where} answered HTTP ${status} without a Prometheus result (no "status": "success")`,
      EXIT.cannotObserve,
    );
  }
  const { resultType, result } = parsed.data;
  if (resultType !== "matrix" || !Array.isArray(result)) {
    throw new MemleakError(
      `Prometheus at ${where} gave a ${String(resultType)} result where a range query gives a matrix`,
      EXIT.cannotObserve,
    );
  }
  const warnings = Array.isArray(parsed.warnings) ? parsed.warnings.map((w) => oneLine(String(w))) : [];
  return { series: result.map(seriesOf), warnings };
}

function seriesOf(entry: unknown): RangeSeries {
  const e = (entry ?? {}) as { metric?: unknown; values?: unknown };
  const labels: Record<string, string> = {};
  if (e.metric && typeof e.metric === "object")
    for (const [k, v] of Object.entries(e.metric)) if (typeof v === "string") labels[k] = v;
  if (e.values instanceof Points) return { labels, ts: e.values.ts, values: e.values.values };
  const ts: number[] = [];
  const values: number[] = [];
  for (const point of Array.isArray(e.values) ? e.values : []) pointInto(point, ts, values);
  return { labels, ts, values };
}
