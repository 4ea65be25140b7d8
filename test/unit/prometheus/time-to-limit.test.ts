/**
 * `analyze --prometheus`: a container's time to its limit from cAdvisor's series — container_memory_rss (anon)
 * towards container_spec_memory_limit_bytes. The captured series (fixtures/prometheus/cadvisor-containers.json) had
 * no limit series; each test adds one as cAdvisor exports it: a constant per container, with the container's labels.
 */
import { describe, expect, it } from "vitest";
import { analyzePrometheus } from "../../../src/prometheus/verdicts.js";
import { parseRangeResponse, type RangeSeries } from "../../../src/prometheus/range-response.js";
import { fixture } from "../../helpers/fixtures.js";

const captured = () => parseRangeResponse(200, fixture("prometheus/cadvisor-containers.json"), "x").series;

/** cAdvisor's limit series for the pod's container, at `bytes`, over the same times as its other series. */
function withLimit(series: RangeSeries[], pod: string, bytes: number): RangeSeries[] {
  const usage = series.find((s) => s.labels.pod === pod && s.labels.__name__ === "container_memory_usage_bytes")!;
  return [
    ...series,
    {
      labels: { ...usage.labels, __name__: "container_spec_memory_limit_bytes" },
      ts: [...usage.ts],
      values: usage.ts.map(() => bytes),
    },
  ];
}

const findingOf = (series: RangeSeries[], path: string) =>
  analyzePrometheus(series).doc.findings.find((f) => f.subject.type === "cgroup" && f.subject.path === path)!;

describe("time to the limit from cAdvisor's series", () => {
  it("the leaking container counts down to its limit, on its rss (anon: cAdvisor has no shmem series), the series named", () => {
    const series = captured();
    const rss = series.find((s) => s.labels.pod === "leaker-0" && s.labels.__name__ === "container_memory_rss")!;
    const limit = rss.values.at(-1)! * 2;
    const f = findingOf(withLimit(series, "leaker-0", limit), "ml/leaker-0/app");
    expect(f.kind).toBe("leak");
    const t = f.timeToLimit!;
    expect(t.limit).toEqual({ kind: "container", source: "container_spec_memory_limit_bytes", bytes: limit });
    expect(t.counted).toBe("anon");
    expect(t.summary).toMatch(/^container limit [\d.]+ MiB, anon [\d.]+ MiB.*, growing .*: ~[\d.]+ (s|min) \(/);
    expect(t.secondsMin).toBeLessThanOrEqual(t.seconds);
  });

  it("the logger's page cache under a limit: no countdown (the cache is reclaimed first)", () => {
    const series = captured();
    const f = findingOf(withLimit(series, "logger-0", 10 * 2 ** 30), "ml/logger-0/app");
    expect(f.kind).toBe("cgroup-artefact");
    expect(f.timeToLimit).toBeUndefined();
  });

  it("no limit series: no countdown (Prometheus's series hold no machine memory for a container)", () => {
    expect(findingOf(captured(), "ml/leaker-0/app").timeToLimit).toBeUndefined();
  });
});
