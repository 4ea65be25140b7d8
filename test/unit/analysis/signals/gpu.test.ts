/**
 * Decision tables of the GPU rules (signals/gpu.ts) on synthetic CUDA allocator series, as the agent reports them
 * (test/helpers/synthetic-gpu.ts), run through the whole verdict engine. Each threshold gets a case just inside and
 * just outside it; the host memory stays flat throughout, so whatever is found is the GPU's.
 */
import { describe, expect, it } from "vitest";
import type { Finding, VerdictDocument } from "../../../../src/analysis/types.js";
import { gpuReports, type SynthDevice } from "../../../helpers/synthetic-gpu.js";
import { alone, fill, flat, judge, linear, MB, processFinding } from "./judge.js";

const GB = 1024 * MB;
const SECONDS = 300;

/** Host memory flat at 600 MiB; the GPU devices as given. */
const onGpu = (devices: Record<number, SynthDevice>, seconds = SECONDS) =>
  alone({ anon: flat(600 * MB), agent: gpuReports(devices, seconds) }, seconds, { noCgroup: true });

const gpuFindings = (doc: VerdictDocument) => doc.findings.filter((f) => f.subject.type === "gpu");

function gpuFinding(doc: VerdictDocument, device = "cuda:0"): Finding {
  const f = gpuFindings(doc).find((x) => x.subject.type === "gpu" && x.subject.device === device);
  expect(f, `a finding for ${device}`).toBeDefined();
  return f!;
}

/** Allocated at `high` until 60 s, then at `low`; the reserve stays at `reserved` with `split` of it in split blocks. */
const cameDown = (high: number, low: number, reserved: number, split = 0): SynthDevice => ({
  allocated: { shape: { kind: "step", at: 60, height: low - high }, baseline: high, noise: 1 * MB },
  reserved: flat(reserved, 0),
  inactiveSplit: flat(split, 0),
});

/** A steady training loop: allocated swings between `base` and `base + swing` every 7 s, the reserve its peak. */
const trainingLoop = (base: number, swing: number, split: number): SynthDevice => ({
  allocated: { shape: { kind: "sawtooth", period: 7, amplitude: swing, jitter: 0.3 }, baseline: base, noise: 5 * MB },
  reserved: flat(base + swing + 200 * MB, 0),
  inactiveSplit: flat(split, 0),
});

describe("GPU findings: what each shape of the allocator's numbers is called", () => {
  it("allocated CUDA memory growing steadily is a leak (of CUDA tensors), and the verdict, while host memory is flat", () => {
    const doc = judge(onGpu({ 0: { allocated: linear(1 * GB, 2 * MB, 1 * MB) } }));
    const f = gpuFinding(doc);
    expect([f.kind, f.metric, f.evidence.layer, f.evidence.device, f.evidence.gpuSource]).toEqual([
      "leak",
      "gpu-allocated",
      "CUDA tensors",
      "cuda:0",
      "torch",
    ]);
    expect(doc.verdict).toBe(doc.findings[0]);
    expect(doc.verdict.subject).toMatchObject({ type: "gpu", pid: 100, device: "cuda:0", source: "torch" });
    expect(f.pid).toBe(100);
    expect(processFinding(doc, 100).kind).toBe("stable");
    expect(f.summary).toMatch(
      /^PID 100 \(python3\) on cuda:0: allocated CUDA memory grows steadily: 1(\.\d+)? GiB → 1\.\d+ GiB/,
    );
    expect(f.advice).toContain("losses.append(loss.item())");
  });

  it("a steady training loop whose reserve is its own peak is stable, however far above a sampled allocated it sits", () => {
    const doc = judge(onGpu({ 0: trainingLoop(1 * GB, 4 * GB, 1.5 * GB) }));
    expect(gpuFinding(doc).kind).toBe("stable");
    expect(doc.verdict.kind).toBe("stable");
  });

  it("a steady training loop read only 28 times (14 s at 2 Hz) is stable too: its tenths' medians differ within its swings", () => {
    const seconds = 14;
    // steps of ~1.3 s between 1 and 3 GiB read at 2 Hz: each reading catches a step at a phase of its own
    const loop: SynthDevice = {
      allocated: {
        shape: { kind: "sawtooth", period: 1.3, amplitude: 2 * GB, jitter: 0.5 },
        baseline: 1 * GB,
        noise: 5 * MB,
      },
      reserved: flat(3.2 * GB, 0),
      inactiveSplit: flat(200 * MB, 0),
    };
    for (let seed = 1; seed <= 20; seed++) {
      const sc = alone({ anon: flat(600 * MB), agent: gpuReports({ 0: loop }, seconds, 2, seed) }, seconds, {
        noCgroup: true,
        hz: 2,
      });
      expect(gpuFinding(judge(sc), "cuda:0").kind, `seed ${seed}`).toBe("stable");
    }
  });

  it("allocated that came down while the reserve stayed is retention: reusable by this process, empty_cache for others", () => {
    const f = gpuFinding(judge(onGpu({ 0: cameDown(4 * GB, 1 * GB, 4.2 * GB, 100 * MB) })));
    expect([f.kind, f.metric, f.evidence.gpuHeldAs]).toEqual(["fragmentation", "gpu-reserved", "cached"]);
    expect(f.summary).toMatch(/keeps 3\.20 GiB of freed blocks \(allocated came down from 4\.00 GiB to 1\.00 GiB/);
    expect(f.advice).toMatch(/reuses it/);
    expect(f.advice).toContain("torch.cuda.empty_cache()");
    expect(f.advice).toContain("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True");
  });

  it("a reserve held mostly in inactive split blocks is fragmentation, which empty_cache cannot give back", () => {
    const f = gpuFinding(judge(onGpu({ 0: cameDown(4 * GB, 1 * GB, 4.2 * GB, 2.5 * GB) })));
    expect([f.kind, f.evidence.gpuHeldAs, f.evidence.inactiveSplitBytes]).toEqual([
      "fragmentation",
      "inactive-split",
      2.5 * GB,
    ]);
    expect(f.summary).toMatch(/2\.50 GiB of it in inactive split blocks/);
    expect(f.advice).toMatch(/empty_cache\(\)` cannot\s+give it back/);
  });

  it("a reserve that grows while allocated does not is fragmentation when split blocks hold it", () => {
    const dev: SynthDevice = {
      allocated: flat(1 * GB, 2 * MB),
      reserved: linear(1.5 * GB, 4 * MB, 0),
      inactiveSplit: linear(300 * MB, 3 * MB, 0),
    };
    const f = gpuFinding(judge(onGpu({ 0: dev })));
    expect([f.kind, f.evidence.gpuHeldAs]).toEqual(["fragmentation", "inactive-split"]);
    expect(f.summary).toMatch(/the reserve grew while allocated did not/);
  });

  it("an allocator that had to free its cache and retry a cudaMalloc, with a large reserve, is fragmentation", () => {
    const dev: SynthDevice = {
      allocated: flat(2 * GB, 2 * MB),
      reserved: flat(3 * GB, 0),
      inactiveSplit: flat(800 * MB, 0),
      retries: (t) => Math.floor(t / 60),
      ooms: (t) => (t > 200 ? 1 : 0),
    };
    const f = gpuFinding(judge(onGpu({ 0: dev })));
    expect([f.kind, f.evidence.allocRetries, f.evidence.outOfMemoryErrors]).toEqual(["fragmentation", 4, 1]);
    expect(f.summary).toMatch(/retry a cudaMalloc 4 times/);
    expect(f.summary).toMatch(/1 out-of-memory error$/);
    // the same numbers without the retries: a reserve that is only there is the loop's own
    expect(gpuFinding(judge(onGpu({ 0: { ...dev, retries: undefined, ooms: undefined } }))).kind).toBe("stable");
  });

  it("allocated that grew, then levelled off, is a plateau (a model and its optimizer state loaded)", () => {
    const f = gpuFinding(judge(onGpu({ 0: { allocated: fill(200 * MB, 2 * GB, 100) } })));
    expect([f.kind, f.metric]).toEqual(["plateau", "gpu-allocated"]);
  });

  it("a leak in allocated wins over a large reserve (tensors kept alive, however much is cached besides)", () => {
    const dev: SynthDevice = {
      allocated: linear(1 * GB, 3 * MB, 1 * MB),
      reserved: flat(6 * GB, 0),
      inactiveSplit: flat(3 * GB, 0),
      retries: (t) => Math.floor(t / 30),
    };
    expect(gpuFinding(judge(onGpu({ 0: dev }))).kind).toBe("leak");
  });

  it("each device gets its own finding, labelled by device; the verdict is the worst of them", () => {
    const doc = judge(
      onGpu({ 0: trainingLoop(1 * GB, 2 * GB, 0), 3: { allocated: linear(500 * MB, 1 * MB, 0.5 * MB) } }),
    );
    expect(gpuFindings(doc).map((f) => [f.evidence.device, f.kind])).toEqual([
      ["cuda:3", "leak"],
      ["cuda:0", "stable"],
    ]);
    expect(doc.verdict.evidence.device).toBe("cuda:3");
  });

  it("too few readings is insufficient-data on the device, never a verdict on it", () => {
    const doc = judge(onGpu({ 0: { allocated: linear(1 * GB, 2 * MB) } }, 8));
    expect(gpuFinding(doc).kind).toBe("insufficient-data");
  });

  it("no GPU readings, no GPU finding", () => {
    expect(gpuFindings(judge(alone({ anon: flat(600 * MB), agent: () => ({ torch: { version: "1.13" } }) })))).toEqual(
      [],
    );
  });
});

describe("GPU boundaries", () => {
  type GpuRow = [name: string, kind: Finding["kind"], device: SynthDevice];
  const ROWS: GpuRow[] = [
    // held at least 256 MiB (allocated came down 400 → 100 MiB, so fell is well over half of held)
    [
      "held 240 MiB (reserved 340, allocated down from 400 to 100 MiB)",
      "stable",
      cameDown(400 * MB, 100 * MB, 340 * MB),
    ],
    [
      "held 270 MiB (reserved 370, allocated down from 400 to 100 MiB)",
      "fragmentation",
      cameDown(400 * MB, 100 * MB, 370 * MB),
    ],
    // held at least a quarter of reserved (a 4.55 GiB reserve; allocated came down from all of it)
    [
      "held 22% of reserved (1 GiB of 4.55, allocated down 4.55 → 3.55 GiB)",
      "stable",
      cameDown(4.55 * GB, 3.55 * GB, 4.55 * GB),
    ],
    [
      "held 28% of reserved (1.27 GiB of 4.55, allocated down 4.55 → 3.28 GiB)",
      "fragmentation",
      cameDown(4.55 * GB, 3.28 * GB, 4.55 * GB),
    ],
    // allocated came down by at least half of what is held
    ["allocated came down by 40% of the 1 GiB held", "stable", cameDown(1.4 * GB, 1 * GB, 2 * GB)],
    ["allocated came down by 60% of the 1 GiB held", "fragmentation", cameDown(1.6 * GB, 1 * GB, 2 * GB)],
  ];
  it.each(ROWS)("%s → %s", (_name, kind, device) => {
    expect(gpuFinding(judge(onGpu({ 0: device }))).kind).toBe(kind);
  });

  /** 3 GiB held (reserved 4, allocated down from 4 to 1 GiB), `share` of it in split blocks. */
  /** Allocated down by `drop` at 60 s, to 1 GiB, with 200 MiB of noise; the reserve 100 MiB above where it was. */
  const noisyDrop = (drop: number): SynthDevice => ({
    allocated: { shape: { kind: "step", at: 60, height: -drop }, baseline: 1 * GB + drop, noise: 200 * MB },
    reserved: flat(1 * GB + drop + 100 * MB, 0),
  });
  it("allocated down by 2.6 noise widths is no fall (a loop's swing); by 3.4, it is (200 MiB of Gaussian noise, estimated at 186)", () => {
    expect(gpuFinding(judge(onGpu({ 0: noisyDrop(440 * MB) }))).kind).toBe("stable");
    expect(gpuFinding(judge(onGpu({ 0: noisyDrop(600 * MB) }))).kind).toBe("fragmentation");
  });

  const split = (share: number) => cameDown(4 * GB, 1 * GB, 4 * GB, share * 3 * GB);
  it("inactive split blocks holding 45% of what is held is retention; 55%, fragmentation", () => {
    expect(gpuFinding(judge(onGpu({ 0: split(0.45) }))).evidence.gpuHeldAs).toBe("cached");
    expect(gpuFinding(judge(onGpu({ 0: split(0.55) }))).evidence.gpuHeldAs).toBe("inactive-split");
  });
});
