/**
 * signals/gpu-finding.ts and gpu-driver.ts by the finding each builds from an assessment of a hand-made column: the
 * subject and its facts, the frame every GPU finding shares (metric, rate, evidence), and what the driver's number
 * is called for each shape (a leak with its caveat, or the shape's own finding).
 */
import { describe, expect, it } from "vitest";
import { assess } from "../../../src/analysis/assess.js";
import { growthConfidence } from "../../../src/analysis/evidence.js";
import { decideDriver } from "../../../src/analysis/signals/gpu-driver.js";
import { gpuFacts, gpuFinding, gpuSubject, shapeFinding } from "../../../src/analysis/signals/gpu-finding.js";
import { phrase } from "../../../src/analysis/phrases.js";
import { Column } from "../../../src/series/column.js";
import type { ProcessSeries } from "../../../src/series/series.js";

const MiB = 2 ** 20;
const ps = { pid: 42, starttime: 4200 } as ProcessSeries;
const subject = gpuSubject(ps, "python3 train.py", "1", "driver");
const who = { pid: 42, command: "python3 train.py", device: "1", source: "driver" };

function column(n: number, y: (t: number) => number): Column {
  const xs = Array.from({ length: n }, (_, i) => i);
  return Column.of(
    xs,
    xs.map((t) => y(t) + ((t * 7919) % 11) * 0.01 * MiB),
    undefined,
  );
}

const growing = assess(
  column(300, (t) => 500 * MiB + t * 2 * MiB),
  0,
);
const flat = assess(
  column(300, () => 500 * MiB),
  0,
);
const few = assess(
  column(5, () => 500 * MiB),
  0,
);
const plateau = assess(
  column(300, (t) => 500 * MiB + Math.min(t, 100) * 4 * MiB),
  0,
);

const step = assess(
  column(300, (t) => 500 * MiB + (t >= 270 ? 300 * MiB : 0)),
  0,
);

describe("the GPU subject", () => {
  it("the process, its command and its device, with where the number came from", () => {
    expect(subject).toEqual({
      type: "gpu",
      pid: 42,
      starttime: 4200,
      command: "python3 train.py",
      device: "1",
      source: "driver",
    });
    expect(gpuFacts(subject)).toEqual(who);
  });
});

describe("gpuFinding", () => {
  it("the frame: kind, confidence, subject, metric, rate, the device in the evidence, no caveat", () => {
    const summary = phrase("gpu.driver-counts-all", {});
    const f = gpuFinding(subject, "leak", "gpu-used", growing, summary, 0.7, []);
    expect(f).toMatchObject({
      kind: "leak",
      confidence: 0.7,
      subject,
      pid: 42,
      metric: "gpu-used",
      rate: growing.rate,
      summary,
      advice: [],
      caveats: [],
    });
    expect(f.evidence).toMatchObject({ device: "1", gpuSource: "driver" });
  });
});

describe("decideDriver: the driver's count of a process's GPU memory", () => {
  it("growing: a leak on gpu-used, with the driver's caveat and its own advice", () => {
    expect(growing.shape).toBe("growing");
    const f = decideDriver(subject, growing);
    expect(f.kind).toBe("leak");
    expect(f.metric).toBe("gpu-used");
    expect(f.confidence).toBe(growthConfidence(growing));
    expect(f.summary).toEqual(
      phrase("gpu.leak", {
        ...who,
        source: "driver",
        start: growing.start,
        end: growing.end,
        rate: growing.rate,
        reserved: undefined,
      }),
    );
    expect(f.advice).toEqual([phrase("advice.gpu", { variant: "driver-leak", ...who, source: "driver" })]);
    expect(f.caveats).toEqual([phrase("gpu.driver-counts-all", {})]);
  });

  it("flat: stable on gpu-used, no caveat, the stable sentence without a reserve", () => {
    expect(flat.shape).toBe("flat");
    const f = decideDriver(subject, flat);
    expect(f.kind).toBe("stable");
    expect(f.metric).toBe("gpu-used");
    expect(f.caveats).toEqual([]);
    expect(f.summary).toEqual(
      phrase("gpu.stable", { ...who, source: "driver", start: flat.start, end: flat.end, reserved: undefined }),
    );
  });

  it("too few readings: insufficient-data, confidence 0, the reason in the sentence and the advice", () => {
    expect(few.shape).toBe("insufficient");
    const f = decideDriver(subject, few);
    expect(f.kind).toBe("insufficient-data");
    expect(f.confidence).toBe(0);
    expect(f.summary).toEqual(phrase("gpu.insufficient", { ...who, source: "driver", reason: few.reason }));
    expect(f.advice).toEqual([phrase("advice.insufficient-data", { reason: few.reason })]);
  });
});

describe("shapeFinding", () => {
  it("a plateau: its growth and end level in the sentence, and when it levelled off", () => {
    expect(plateau.shape).toBe("plateau");
    const f = shapeFinding(subject, "gpu-allocated", plateau, 900 * MiB);
    expect(f.kind).toBe("plateau");
    expect(f.metric).toBe("gpu-allocated");
    expect(f.summary.say).toBe("gpu.plateau");
    expect(f.summary.facts).toMatchObject({ ...who, end: plateau.end });
    expect(typeof f.evidence.levelFromSeconds).toBe("number");
  });

  it("a step (here at 90% of the window) is told as a plateau too: one jump, then level", () => {
    expect(step.shape).toBe("step");
    const f = shapeFinding(subject, "gpu-allocated", step, undefined);
    expect(f.kind).toBe("plateau");
    expect(f.summary.say).toBe("gpu.plateau");
    expect(f.evidence.levelFromSeconds).toBe(269.5);
  });

  it("stable: the allocator's reserve in the sentence when given", () => {
    const f = shapeFinding(subject, "gpu-allocated", flat, 900 * MiB);
    expect(f.summary).toEqual(
      phrase("gpu.stable", { ...who, source: "driver", start: flat.start, end: flat.end, reserved: 900 * MiB }),
    );
    expect(f.evidence.levelFromSeconds).toBeUndefined();
  });
});
