/**
 * Prometheus's answers to /api/v1/query_range, captured from a real server (fixtures/prometheus/, see
 * fixtures/README.md): what is read from a success, and the one-line message and exit code of each failure.
 */
import { describe, expect, it } from "vitest";
import { MemleakError } from "../../../src/base/errors.js";
import { parseRangeResponse } from "../../../src/prometheus/range-response.js";
import { fixture } from "../../helpers/fixtures.js";

const parse = (file: string, status = 200) =>
  parseRangeResponse(status, fixture(`prometheus/${file}`), "http://prom:9090");

function failure(file: string, status: number): MemleakError {
  try {
    parse(file, status);
  } catch (err) {
    if (err instanceof MemleakError) return err;
    throw err;
  }
  throw new Error(`${file} parsed without an error`);
}

describe("a range query's matrix", () => {
  it("reads every series of cAdvisor's names, with its labels and its points as numbers, ascending", () => {
    const { series, warnings } = parse("cadvisor-containers.json");
    expect(warnings).toEqual([]);
    // 3 pods × usage, working set, rss, cache
    expect(series).toHaveLength(12);
    const names = new Set(series.map((s) => s.labels.__name__));
    expect(names).toEqual(
      new Set([
        "container_memory_usage_bytes",
        "container_memory_working_set_bytes",
        "container_memory_rss",
        "container_memory_cache",
      ]),
    );
    for (const s of series) {
      expect(s.labels).toMatchObject({ namespace: "ml", container: "app" });
      expect(s.ts.length).toBe(s.values.length);
      expect(s.ts.length).toBeGreaterThan(30);
      expect(s.ts.every((t, i) => i === 0 || t > s.ts[i - 1]!)).toBe(true);
      expect(s.values.every((v) => Number.isFinite(v) && v >= 0)).toBe(true);
    }
    const usage = series.find(
      (s) => s.labels.__name__ === "container_memory_usage_bytes" && s.labels.pod === "logger-0",
    )!;
    // The logger's cgroup fills with page cache: from a few MiB to hundreds.
    expect(usage.values.at(-1)! - usage.values[0]!).toBeGreaterThan(100 * 2 ** 20);
  });

  it("keeps an aggregated series, which has no __name__", () => {
    const { series } = parse("cadvisor-working-set-by-pod.json");
    expect(series.map((s) => s.labels)).toEqual(
      expect.arrayContaining([{ pod: "logger-0" }, { pod: "leaker-0" }, { pod: "steady-0" }]),
    );
  });

  it("an empty result is no series, not an error (the command says so)", () => {
    expect(parse("empty.json").series).toEqual([]);
  });

  it("a value that is not a finite number is a gap, not a 0", () => {
    const body = JSON.stringify({
      status: "success",
      data: {
        resultType: "matrix",
        result: [
          {
            metric: { pod: "a" },
            values: [
              [1, "5"],
              [2, "NaN"],
              [3, "+Inf"],
              [4, "7"],
            ],
          },
        ],
      },
    });
    expect(parseRangeResponse(200, body, "x").series[0]).toMatchObject({ ts: [1, 4], values: [5, 7] });
  });

  it("passes Prometheus's warnings on", () => {
    const body = JSON.stringify({
      status: "success",
      warnings: ["partial response\nsecond line"],
      data: { resultType: "matrix", result: [] },
    });
    expect(parseRangeResponse(200, body, "x").warnings).toEqual(["partial response"]);
  });
});

describe("a refused query", () => {
  it("a syntax error is the user's: exit 2, with Prometheus's own words", () => {
    const err = failure("error-bad-query.json", 400);
    expect(err.exitCode).toBe(2);
    expect(err.message).toBe(
      "Prometheus at http://prom:9090 refused the query (bad_data: 1:34: parse error: unclosed left parenthesis)",
    );
  });

  it("a range too fine for Prometheus's 11,000 points is the user's too", () => {
    const err = failure("error-too-many-points.json", 400);
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain("exceeded maximum resolution of 11,000 points per timeseries");
  });

  it("an answer that is not the API (a wrong path, a proxy's page) is exit 3, quoting its first line", () => {
    const err = failure("not-the-api.txt", 404);
    expect(err.exitCode).toBe(3);
    expect(err.message).toBe(
      "http://prom:9090 answered HTTP 404 with something that is not Prometheus's JSON API: 404 page not found",
    );
  });

  it("a server error that is not the query's fault is exit 3", () => {
    const err = (() => {
      try {
        parseRangeResponse(
          503,
          JSON.stringify({ status: "error", errorType: "unavailable", error: "too many queries" }),
          "x",
        );
      } catch (e) {
        return e as MemleakError;
      }
    })();
    expect(err?.exitCode).toBe(3);
    expect(err?.message).toContain("unavailable: too many queries");
  });

  it("JSON of another shape (an instant vector) is named", () => {
    const body = JSON.stringify({ status: "success", data: { resultType: "vector", result: [] } });
    expect(() => parseRangeResponse(200, body, "x")).toThrow("gave a vector result where a range query gives a matrix");
  });
});
