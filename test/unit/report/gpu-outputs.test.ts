/**
 * GPU findings in everything memleak writes: the JSON document (schema/verdict.schema.json), the terminal report,
 * the step summary, the HTML report's charts, the gates (`--metric gpu`, `--fail-on`) and `--metrics`, each labelled
 * by device. Fed synthetic allocator series as the agent reports them (test/helpers/synthetic-gpu.ts) and the
 * driver's per-process readings as nvidia-smi gives them (ProcessSample.gpu).
 */
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { buildSeries } from "../../../src/series/series.js";
import type { VerdictDocument } from "../../../src/analysis/types.js";
import type { Sample } from "../../../src/system/sample.js";
import { SessionMetrics } from "../../../src/export/session-metrics.js";
import { evaluateGates } from "../../../src/gates/gates.js";
import { stepSummary } from "../../../src/report/github.js";
import { buildCharts } from "../../../src/report/html/chart-data.js";
import { classify } from "../../../src/report/verdict.js";
import { renderVerdict } from "../../../src/report/terminal/verdict-text.js";
import { renderLive } from "../../../src/report/live/view.js";
import { displayWidth } from "../../../src/report/text-width.js";
import { gpuReports } from "../../helpers/synthetic-gpu.js";
import { MB, synthesize } from "../../helpers/synthetic-samples.js";
import { REPO } from "../../helpers/fixtures.js";

const SECONDS = 120;

/** PID 100 leaks CUDA tensors on cuda:0 (the agent's); PID 101, a child without the agent, grows on GPU 1 (the driver's). */
function scenario(): Sample[] {
  const samples = synthesize({
    seconds: SECONDS,
    noCgroup: true,
    processes: [
      {
        pid: 100,
        ppid: 1,
        anon: { shape: { kind: "stable" }, baseline: 600 * MB, noise: 0.5 * MB },
        agent: gpuReports(
          { 0: { allocated: { shape: { kind: "linear", bytesPerSecond: 4 * MB }, baseline: 1024 * MB } } },
          SECONDS,
        ),
      },
      { pid: 101, ppid: 100, anon: { shape: { kind: "stable" }, baseline: 300 * MB, noise: 0.5 * MB } },
    ],
  });
  // The driver is read every 5 s (gpu-driver.ts in the sampler): PID 101's memory on GPU 1 grows 2 MiB a second.
  samples.forEach((s, i) => {
    if (i % 5 === 0) s.processes.find((p) => p.pid === 101)!.gpu = { "1": 500 * MB + i * 2 * MB };
  });
  return samples;
}

function judged(samples = scenario()) {
  const set = buildSeries(samples);
  const doc = classify({ set, options: {}, target: { pid: 100, command: ["python3", "train.py"] } });
  return { set, doc, samples };
}

describe("GPU findings in memleak's outputs", () => {
  const { set, doc, samples } = judged();
  const gpu = doc.findings.filter((f) => f.subject.type === "gpu");

  it("one finding per process and device: the agent's cuda:0 of PID 100, the driver's GPU 1 of PID 101", () => {
    expect(
      gpu.map((f) => [
        f.pid,
        f.subject.type === "gpu" && f.subject.device,
        f.subject.type === "gpu" && f.subject.source,
        f.kind,
        f.metric,
      ]),
    ).toEqual([
      [100, "cuda:0", "torch", "leak", "gpu-allocated"],
      [101, "1", "driver", "leak", "gpu-used"],
    ]);
    expect(gpu[1]!.caveats.join(" ")).toMatch(/the driver's number holds the CUDA context and the framework's cache/);
    expect(gpu[1]!.advice).toMatch(/run it under\s+`memleak run`/);
  });

  it("the JSON document validates against schema/verdict.schema.json, GPU subjects and metrics included", () => {
    const schema = JSON.parse(readFileSync(`${REPO}schema/verdict.schema.json`, "utf8")) as Record<string, unknown>;
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
    const validate = ajv.compile(schema);
    expect(validate(JSON.parse(JSON.stringify(doc))), ajv.errorsText(validate.errors)).toBe(true);
  });

  it("the terminal report has a row per process's GPU, labelled by device, and says the verdict", () => {
    const text = renderVerdict(doc, false, set, 160);
    // each under its process's row, the metric clipped to the column as pss-anon is
    expect(text).toMatch(
      /^PID 100 +anon .*\n  cuda:0 +gpu-allocated +1\.03 GiB +1\.45 GiB .*\n└ 101 +anon .*\n  GPU 1 +gpu-used +520 MiB +720 MiB/m,
    );
    expect(text).toContain("PID 100 (python3) on cuda:0: allocated CUDA memory grows steadily");
  });

  it("the live view has a line per live process's GPU, within the terminal's width", () => {
    for (const columns of [80, 120]) {
      const lines = renderLive(
        {
          mode: "run",
          rootPid: 100,
          command: "python3 train.py",
          elapsed: SECONDS,
          set,
          latest: samples.at(-1),
          soFar: undefined,
          commands: new Map(),
          pssAge: undefined,
        },
        false,
        columns,
      ).split("\n");
      // at 80 columns the reserve gives way ("reserved …"), the change and the sparkline stay
      expect(lines.filter((l) => l.startsWith("gpu "))).toEqual([
        expect.stringMatching(
          columns > 80
            ? /^gpu +PID 100 cuda:0 allocated 1\.4\d GiB  reserved 1\.5\d GiB +\+\d+ MiB/
            : /^gpu +PID 100 cuda:0 allocated 1\.4\d GiB  reserved … +\+\d+ MiB/,
        ),
        expect.stringMatching(/^gpu +PID 101 GPU 1 used 7\d\d MiB +\+\d+ MiB/),
      ]);
      for (const l of lines) expect(displayWidth(l), l).toBeLessThan(columns);
    }
  });

  it("the step summary lists the GPU findings by process and device", () => {
    const md = stepSummary(doc);
    expect(md).toContain("| leak | PID 100 cuda:0 | gpu-allocated |");
    expect(md).toContain("| leak | PID 101 GPU 1 | gpu-used |");
  });

  it("the HTML report charts each process's GPU: allocated, reserved and inactive split from the agent, used from the driver", () => {
    const charts = buildCharts(doc, set).charts.filter((c) => c.group === "gpu");
    expect(charts.map((c) => [c.title, c.series.map((s) => s.label), c.finding?.kind])).toEqual([
      ["PID 100 cuda:0", ["reserved (caching allocator)", "allocated (live tensors)"], "leak"],
      ["PID 101 GPU 1", ["used (driver)"], "leak"],
    ]);
    // the verdict's subject's group comes first
    expect(buildCharts(doc, set).charts[0]!.group).toBe("gpu");
  });

  it("--metric gpu gates each process's GPU; --fail-on leak fails on a GPU leak", () => {
    const gates = evaluateGates(doc, set, {
      metric: "gpu",
      perProcess: false,
      maxGrowth: { kind: "bytes", bytes: 100 * MB },
      failOn: ["leak"],
    });
    expect(gates.map((g) => [g.name, g.subject, g.result])).toEqual([
      ["max-growth", "PID 100 cuda:0 allocated", "fail"],
      ["max-growth", "PID 101 GPU 1 used", "fail"],
      ["fail-on", undefined, "fail"],
    ]);
    expect(gates[2]!.message).toMatch(/^leak found: PID 100 \(python3\) on cuda:0/);
  });

  it("--metric gpu with no GPU readings is inconclusive, and says why", () => {
    const plain = synthesize({
      seconds: 60,
      noCgroup: true,
      processes: [{ pid: 100, ppid: 1, anon: { shape: { kind: "stable" }, baseline: 100 * MB } }],
    });
    const j = judged(plain);
    const [g] = evaluateGates(j.doc, j.set, {
      metric: "gpu",
      perProcess: false,
      maxGrowth: { kind: "bytes", bytes: 100 * MB },
    });
    expect(g).toMatchObject({
      result: "inconclusive",
      message: expect.stringMatching(/^no gpu readings to check \(no process used CUDA/),
    });
  });

  it("--metrics serves each process's GPU figures labelled by device, and the GPU findings by device", async () => {
    const m = new SessionMetrics();
    m.update(samples.at(-5)!, doc as VerdictDocument);
    const text = await m.prometheus.metrics();
    expect(text).toMatch(/^memleak_process_gpu_allocated_bytes\{pid="100",comm="python3",device="cuda:0"\} \d+$/m);
    expect(text).toMatch(/^memleak_process_gpu_reserved_bytes\{pid="100",comm="python3",device="cuda:0"\} \d+$/m);
    expect(text).toMatch(/^memleak_process_gpu_used_bytes\{pid="101",comm="python3",device="1"\} \d+$/m);
    expect(text).toMatch(/^memleak_finding\{kind="leak",subject="gpu",pid="100",device="cuda:0"\} 1$/m);
    expect(text).toMatch(/^memleak_finding\{kind="leak",subject="gpu",pid="101",device="1"\} 1$/m);
  });
});
