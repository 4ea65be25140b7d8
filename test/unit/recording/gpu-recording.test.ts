/**
 * GPU readings in a recording: what `run --record` writes (the agent's per-device numbers in each sample's agent
 * data, the driver's in ProcessSample.gpu) is what `analyze` judges again, and GPU figures that cannot be real are bad
 * lines like any other impossible size.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildSeries } from "../../../src/series/series.js";
import { analyzeRecording } from "../../../src/recording/replay.js";
import { impossibleSample, RECORDING_SCHEMA, type RecordingHeader } from "../../../src/recording/format.js";
import { classify } from "../../../src/report/verdict.js";
import { gpuReports } from "../../helpers/synthetic-gpu.js";
import { MB, synthesize } from "../../helpers/synthetic-samples.js";
import { tempDir } from "../../helpers/temp.js";

const SECONDS = 120;

function samples() {
  const s = synthesize({
    seconds: SECONDS,
    noCgroup: true,
    processes: [
      {
        pid: 100,
        ppid: 1,
        anon: { shape: { kind: "stable" }, baseline: 600 * MB, noise: 0.5 * MB },
        agent: gpuReports(
          { 1: { allocated: { shape: { kind: "linear", bytesPerSecond: 3 * MB }, baseline: 900 * MB } } },
          SECONDS,
        ),
      },
    ],
  });
  s.forEach((x, i) => {
    if (i % 5 === 0) x.processes[0]!.gpu = { "3": 400 * MB + i * MB };
  });
  return s;
}

describe("GPU readings in recordings", () => {
  it("analyze finds in a recording the GPU findings the session found", async () => {
    const header: RecordingHeader = {
      type: "header",
      schema: RECORDING_SCHEMA,
      startedAt: 1,
      interval: 1,
      target: { pid: 100, mode: "run" },
      machine: { hostname: "h", kernel: "k", cpus: 2, memTotal: 64 * 1024 * MB },
      memleakVersion: "0",
    };
    const path = join(tempDir("gpu-rec"), "r.jsonl");
    const all = samples();
    writeFileSync(
      path,
      [header, ...all.map((s) => ({ type: "sample", ...s }))].map((l) => JSON.stringify(l)).join("\n") + "\n",
    );
    const live = classify({ set: buildSeries(all), options: {}, target: { pid: 100 } });
    const { doc } = await analyzeRecording(path);
    const gpu = (d: typeof doc) =>
      d.findings.filter((f) => f.subject.type === "gpu").map((f) => [f.subject, f.kind, f.metric]);
    expect(gpu(doc)).toEqual(gpu(live));
    // The agent's devices are read where it has any: the driver's GPU 3 of the same process is not judged twice.
    expect(gpu(doc)).toEqual([
      [expect.objectContaining({ device: "cuda:1", source: "torch" }), "leak", "gpu-allocated"],
    ]);
  });

  it.each([
    ["a negative size", { "0": -1 }],
    ["a size that is not a number", { "0": "12" }],
    ["a list", [1, 2]],
    ["not an object", 5],
  ])("GPU memory of %s is an impossible sample, said in one line", (_what, gpu) => {
    const s = { t: 1, processes: [{ pid: 7, rss: 1, gpu }] };
    expect(impossibleSample(s, 2 ** 30)).toMatch(/^PID 7: gpu = .{1,80} is not GPU memory by device$/);
  });

  it("GPU memory beyond the host's is possible (an 80 GiB GPU on a 32 GiB machine)", () => {
    expect(
      impossibleSample({ t: 1, processes: [{ pid: 7, rss: 1, gpu: { "0": 80 * 2 ** 30 } }] }, 32 * 2 ** 30),
    ).toBeUndefined();
  });
});
