/**
 * Asks a Prometheus server for a range query (/api/v1/query_range) with Node's own fetch, and reads the answer
 * (range-response.ts). Errors are one line each: the server cannot be reached, it refused the query, it took too long.
 */
import { EXIT, MemleakError } from "../base/errors.js";
import { safeText } from "../base/safe-text.js";
import { parseRangeResponse, type RangeResult } from "./range-response.js";

/**
 * The most points memleak asks for per series. The verdict engine wants hours of data, not every scrape of them:
 * 6 h at 15 s is 1,440 points, and a trend over 2,000 points says what one over 11,000 (Prometheus's own ceiling)
 * would. A longer range is read at a coarser step (chooseStep), and the user is told.
 */
export const MAX_POINTS_PER_SERIES = 2000;

/** How long a query may take before memleak gives up on the server. */
export const QUERY_TIMEOUT_MS = 120_000;

export interface StepChoice {
  /** Seconds between points asked for. */
  step: number;
  /** The step asked for was raised to keep within MAX_POINTS_PER_SERIES. */
  raised: boolean;
}

/** The step to ask for: the user's, or the finest that keeps a series of `range` seconds within the points bound. */
export function chooseStep(range: number, step: number, maxPoints = MAX_POINTS_PER_SERIES): StepChoice {
  if (range / step + 1 <= maxPoints) return { step, raised: false };
  return { step: Math.ceil(range / (maxPoints - 1)), raised: true };
}

export interface RangeQuery {
  url: URL;
  query: string;
  /** Unix seconds. */
  start: number;
  end: number;
  step: number;
}

/** The server's base URL as the user gave it, without credentials, for messages. */
export function serverText(url: URL): string {
  const u = new URL(url.href);
  u.username = "";
  u.password = "";
  return safeText(u.href.replace(/\/$/, ""));
}

export function queryRangeUrl(q: RangeQuery): URL {
  // A server behind a path prefix (http://host/prometheus) keeps it: the API lives under it.
  const base = q.url.href.endsWith("/") ? q.url.href : `${q.url.href}/`;
  const u = new URL("api/v1/query_range", base);
  u.search = new URLSearchParams({
    query: q.query,
    start: String(q.start),
    end: String(q.end),
    step: String(q.step),
  }).toString();
  return u;
}

export async function queryRange(q: RangeQuery, fetchImpl: typeof fetch = fetch): Promise<RangeResult> {
  const where = serverText(q.url);
  let res: Response;
  let body: string;
  try {
    // POST as a form, as Prometheus's own UI does: a long PromQL does not fit every proxy's URL limit.
    const u = queryRangeUrl(q);
    const form = u.search.slice(1);
    u.search = "";
    // fetch refuses a URL with credentials in it (http://user:pass@host): they go in the header instead.
    const headers: Record<string, string> = {
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
    };
    if (u.username || u.password)
      headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString("base64")}`;
    u.username = u.password = "";
    res = await fetchImpl(u, {
      method: "POST",
      headers,
      body: form,
      signal: AbortSignal.timeout(QUERY_TIMEOUT_MS),
    });
    body = await res.text();
  } catch (err) {
    throw new MemleakError(`cannot read from Prometheus at ${where}: ${networkReason(err, q.url)}`, EXIT.cannotObserve);
  }
  return parseRangeResponse(res.status, body, where);
}

/** fetch's "fetch failed" says nothing: the cause (ECONNREFUSED, ENOTFOUND, a timeout) is what the user needs. */
function networkReason(err: unknown, url: URL): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === "TimeoutError") return `no answer in ${QUERY_TIMEOUT_MS / 1000} s`;
  const cause = e?.cause;
  const text = cause?.message ?? e?.message ?? String(err);
  // undici's whole reason for the fetch standard's blocked ports (9, 25, 6000, …): nothing was asked of the port.
  if (text === "bad port") {
    return `Node's fetch does not connect to port ${url.port}, one the fetch standard blocks (as browsers do); serve Prometheus on another port (its own is 9090)`;
  }
  return safeText((cause?.code && !text.includes(cause.code) ? `${cause.code} ${text}` : text).split("\n")[0] ?? "");
}
