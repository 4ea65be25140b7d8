import { describe, expect, it } from "vitest";
import { commonMetric, levelMeasures, trialMeasures } from "../../../src/trial/measures.js";
import { Column } from "../../../src/series/column.js";
import type { SeriesSet } from "../../../src/series/series.js";
import type { VerdictDocument } from "../../../src/analysis/types.js";

const MiB = 1024 * 1024;
function column(f: (t: number) => number, seconds: number): Column {
  const c = new Column();
  for (let t = 0; t <= seconds; t++) c.push(t, f(t));
  return c;
}

describe("levelMeasures: peak, end level, growth and spread after a second", () => {
  it("a step down (trim giving memory back) is no noise: the noise is the flat readings' wobble", () => {
    const step = column((t) => (t < 50 ? 300 : 30) * MiB + (t % 2) * 0.5 * MiB, 100);
    const m = levelMeasures(step, 0)!;
    expect(m.growth! / MiB).toBeCloseTo(-270, 0);
    expect(m.spread! / MiB).toBeLessThan(1);
  });

  it("a sawtooth's end is its tenth's median, not wherever the last reading fell on a tooth", () => {
    const saw = column((t) => (100 + (t % 5) * 10) * MiB, 100);
    const m = levelMeasures(saw, 0)!;
    expect(m.peak).toBe(140 * MiB);
    expect(m.end).toBe(120 * MiB);
    expect(Math.abs(m.growth!)).toBeLessThan(10 * MiB);
    expect(m.spread!).toBeGreaterThan(10 * MiB);
  });

  it("a steady rise: the growth between the first and last tenths after `from`; its noise the last tenth's spread", () => {
    const rise = column((t) => (t < 10 ? 0 : 50 + t) * MiB, 110);
    const m = levelMeasures(rise, 10)!;
    expect(m.growth! / MiB).toBeCloseTo(90, 0);
    expect(m.end / MiB).toBeCloseTo(155, 0);
    // Successive differences are all 1 MiB (no wobble); the last tenth is 11 readings a MiB apart (MAD 3 MiB).
    expect(m.spread! / MiB).toBeCloseTo(1.4826 * 3, 1);
    // the start-up (0 before 10 s) is left out of the growth, not of the peak
    expect(m.peak).toBe(160 * MiB);
  });

  // A user's program under `run --try trim` (4 readings a second): a plateau near 225 MiB that trim gave back to
  // 75-102 MiB every 5 s, refilled over 2 s. The first tenth after the warm-up fell on a refill: growth +18.6 MiB
  // against the baseline's +6.6 MiB, "worse" beside the same end, with the noise at its ±4.61 MiB floor.
  it("a start on a tooth's refill: the first tenth's spread is the growth's noise too", () => {
    const refill = [102, 195, 202, 208, 218, 219];
    const teeth = column((t) => (t < refill.length ? refill[t]! : 226 + (t % 2)) * MiB, 59);
    const m = levelMeasures(teeth, 0)!;
    expect(m.growth! / MiB).toBeGreaterThan(15);
    expect(m.spread! / MiB).toBeGreaterThan(m.growth! / MiB / 2);
  });

  it("too few readings for two tenths: an end and a peak, no growth; none at all: undefined", () => {
    const m = levelMeasures(
      column((t) => t * MiB, 4),
      0,
    )!;
    expect(m.growth).toBeUndefined();
    expect(m.end).toBe(3 * MiB);
    expect(levelMeasures(undefined, 0)).toBeUndefined();
    expect(levelMeasures(new Column(), 0)).toBeUndefined();
  });
});

describe("one metric for every trial", () => {
  const flat = (level: number, n: number) => column(() => level * MiB, n - 1);
  const set = (tree: Partial<Record<"pss-anon" | "uss" | "pss" | "rss", Column>>) =>
    ({ tree, cgroup: {}, duration: 12 }) as unknown as SeriesSet;
  const doc = { verdict: { kind: "stable", confidence: 0.5, summary: "" } } as unknown as VerdictDocument;
  // an idle Python: Σ USS 13 MiB, Σ PSS 17 MiB (its libraries' shares), Σ RSS 25 MiB
  const full = set({ uss: flat(13, 6), pss: flat(17, 6), rss: flat(25, 48) });
  const noUss = set({ uss: flat(13, 1), pss: flat(17, 6), rss: flat(25, 48) });

  it("anonymous PSS where every trial read it: not the libraries' pages, which a neighbour of the same interpreter turns shared", () => {
    // An idle Python 3.11 measured here: USS 11.9 MiB alone, 7.0 MiB while a second one of the same interpreter ran
    // (4.9 MiB of its text turned shared); Pss_Anon 6.70 MiB through both.
    const alone = set({ "pss-anon": flat(6.7, 6), uss: flat(11.9, 6), pss: flat(12.2, 6), rss: flat(17, 48) });
    const beside = set({ "pss-anon": flat(6.7, 6), uss: flat(7.0, 6), pss: flat(9.6, 6), rss: flat(17, 48) });
    const metric = commonMetric([beside, alone]);
    expect(metric).toBe("pss-anon");
    expect(trialMeasures(doc, alone, 0, metric).tree!.end - trialMeasures(doc, beside, 0, metric).tree!.end).toBe(0);
    // in USS the same program read 4.9 MiB apart: past the 4 MiB floor, "worse"
    expect(trialMeasures(doc, alone, 0, "uss").tree!.end - trialMeasures(doc, beside, 0, "uss").tree!.end).toBeCloseTo(
      4.9 * MiB,
    );
    expect(commonMetric([beside, full])).toBe("uss");
  });

  it("USS where every trial read it twice or more; else PSS; else RSS", () => {
    expect(commonMetric([full, full])).toBe("uss");
    expect(commonMetric([full, noUss])).toBe("pss");
    expect(commonMetric([full, set({ rss: flat(25, 48) })])).toBe("rss");
  });

  it("a trial whose USS was read once is measured, like the baseline, in PSS: not 4 MiB apart", () => {
    const metric = commonMetric([full, noUss]);
    const base = trialMeasures(doc, full, 0, metric);
    const trial = trialMeasures(doc, noUss, 0, metric);
    expect([base.metric, trial.metric]).toEqual(["pss", "pss"]);
    expect(trial.tree!.end - base.tree!.end).toBe(0);
    // each alone would have taken its own: USS for one, PSS for the other
    expect(trialMeasures(doc, full, 0).tree!.end).toBe(13 * MiB);
    expect(trialMeasures(doc, noUss, 0).tree!.end).toBe(17 * MiB);
  });
});
