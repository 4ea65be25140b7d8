/**
 * memleak's GPU series as Prometheus returns them (what `--metrics` serves, labelled by device) judged again by
 * `analyze --prometheus`: each joins its process's subject, and the process's GPU gets its finding as in a session.
 */
import { describe, expect, it } from "vitest";
import { analyzePrometheus } from "../../../src/prometheus/verdicts.js";
import { isOwnBookkeeping, subjectsOf } from "../../../src/prometheus/series-samples.js";
import type { RangeSeries } from "../../../src/prometheus/range-response.js";

const MiB = 2 ** 20;
const ts = Array.from({ length: 120 }, (_, i) => 1_700_000_000 + i * 5);
const series = (name: string, labels: Record<string, string>, value: (i: number) => number): RangeSeries => ({
  labels: { __name__: name, job: "memleak", ...labels },
  ts,
  values: ts.map((_, i) => value(i)),
});

const trainer = { pid: "100", comm: "python3" };
const other = { pid: "101", comm: "python3" };
const SERIES: RangeSeries[] = [
  series("memleak_process_rss_bytes", trainer, () => 600 * MiB),
  series("memleak_process_anon_bytes", trainer, () => 500 * MiB),
  series("memleak_process_gpu_allocated_bytes", { ...trainer, device: "cuda:0" }, (i) => 1024 * MiB + i * 20 * MiB),
  series("memleak_process_gpu_reserved_bytes", { ...trainer, device: "cuda:0" }, (i) => 1100 * MiB + i * 20 * MiB),
  series("memleak_process_gpu_allocated_bytes", { ...trainer, device: "cuda:1" }, () => 300 * MiB),
  series("memleak_process_rss_bytes", other, () => 200 * MiB),
  series("memleak_process_gpu_used_bytes", { ...other, device: "2" }, () => 900 * MiB),
];

describe("analyze --prometheus on memleak's GPU series", () => {
  it("each GPU series joins its process's subject: two processes, not five subjects", () => {
    expect(subjectsOf(SERIES).map((s) => [s.labels.pid, s.kind])).toEqual([
      ["100", "process"],
      ["101", "process"],
    ]);
    expect(SERIES.some(isOwnBookkeeping)).toBe(false);
  });

  it("the CUDA leak on cuda:0 is the verdict; cuda:1 and the driver's GPU 2 are stable", () => {
    const { doc } = analyzePrometheus(SERIES);
    expect(doc.verdict).toMatchObject({
      kind: "leak",
      pid: 100,
      subject: { type: "gpu", device: "cuda:0", source: "torch" },
      evidence: { source: "prometheus" },
    });
    const gpus = doc.findings
      .filter((f) => f.subject.type === "gpu")
      .map((f) => [f.pid, f.subject.type === "gpu" && f.subject.device, f.kind]);
    expect(gpus).toEqual([
      [100, "cuda:0", "leak"],
      [100, "cuda:1", "stable"],
      [101, "2", "stable"],
    ]);
  });
});
