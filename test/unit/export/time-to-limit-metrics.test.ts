/**
 * `--metrics` serves the time to the memory limit of each leaking subject: memleak_seconds_to_limit and the two ends
 * of its range, labelled by subject and by the limit's file; nothing for a subject that does not count down.
 */
import { describe, expect, it } from "vitest";
import { SessionMetrics } from "../../../src/export/session-metrics.js";
import { buildSeries } from "../../../src/series/series.js";
import { classify } from "../../../src/report/verdict.js";
import type { Sample } from "../../../src/system/sample.js";
import { MB, synthesize, type SynthScenario } from "../../helpers/synthetic-samples.js";

function metricsOf(sc: SynthScenario): Promise<Map<string, number>> {
  const samples: Sample[] = synthesize(sc).map((s) => ({ ...s, cgroup: { ...s.cgroup!, limit: 1024 * MB } }));
  const doc = classify({
    set: buildSeries(samples),
    options: {},
    cgroup: { path: "/ci/job", version: 1 },
    target: { pid: 100 },
  });
  const m = new SessionMetrics();
  m.cgroupPath = "/ci/job";
  m.update(samples.at(-1)!, undefined);
  m.setVerdict(doc);
  return m.prometheus.metrics().then((text) => {
    const out = new Map<string, number>();
    for (const line of text.split("\n"))
      if (line.startsWith("memleak_seconds_to_limit"))
        out.set(line.slice(0, line.lastIndexOf(" ")), Number(line.slice(line.lastIndexOf(" ") + 1)));
    return out;
  });
}

describe("memleak_seconds_to_limit", () => {
  it("a leak under a 1 GiB limit: the estimate and its range, for the process and the cgroup", async () => {
    const v = await metricsOf({
      seconds: 300,
      processes: [{ pid: 100, ppid: 1, anon: { shape: { kind: "linear", bytesPerSecond: 1 * MB }, noise: 3 * MB } }],
    });
    const at = '{subject="process",pid="100",limit="memory.limit_in_bytes"}';
    const est = v.get(`memleak_seconds_to_limit${at}`)!;
    // ~615 MiB of headroom at 1 MiB/s.
    expect(est).toBeGreaterThan(500);
    expect(est).toBeLessThan(700);
    expect(v.get(`memleak_seconds_to_limit_soonest${at}`)!).toBeLessThanOrEqual(est);
    expect(v.get(`memleak_seconds_to_limit_latest${at}`)!).toBeGreaterThanOrEqual(est);
    expect(v.get('memleak_seconds_to_limit{subject="cgroup",pid="",limit="memory.limit_in_bytes"}')).toBe(est);
  });

  it("nothing for a steady process", async () => {
    const v = await metricsOf({
      seconds: 300,
      processes: [{ pid: 100, ppid: 1, anon: { shape: { kind: "stable" }, noise: 3 * MB } }],
    });
    expect([...v.keys()]).toEqual([]);
  });
});
