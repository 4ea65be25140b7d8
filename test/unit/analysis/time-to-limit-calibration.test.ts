/**
 * Is the projected range ever too sure of itself? Leaks simulated as a trend plus a random walk (what each request
 * keeps) plus noise (the temporaries riding above), watched for a while, then continued until a reading first reaches
 * the limit: the kill. Over 400 seeded leaks per kind the 95% range must hold the kill at least 92 times in 100 (400
 * draws of a range that is right 95% of the time fall below that about 3 times in 1000).
 *
 * It is deliberately wider than these stationary leaks need (it holds 96–100% of them; the figures print as the test
 * runs): it counts the block-to-block spread of the slope, noise included, as if the rate itself might change. A
 * narrower range was tried (2026-11-29, on the same seeds drawn through a Box–Muller of its own) that told the walk
 * from the noise on the variogram: 94–98% here, narrower on the noisy leaks (10.7 s for 14.4, 23 s for 37), but on 13
 * real OOM kills (time-to-limit.test.ts's service under a 300 MiB v1 limit) it missed 2 of the 6 run beside two busy
 * loops — starved of CPU, the service's rate fell from ~6.5 to ~5.9 MB/s after the watch, and the kill came 0.3–2.3 s
 * after that range's end — where this one held all 13.
 */
import { describe, expect, it } from "vitest";
import { projectToLimit } from "../../../src/analysis/time-to-limit.js";
import { mulberry32 } from "../../../src/analysis/stats/random.js";
import { gaussian } from "../../helpers/synthetic.js";

const MB = 1e6;

interface Leak {
  name: string;
  /** Bytes/s kept on average. */
  drift: number;
  /** Variance the walk adds per second (bytes²/s). */
  walk: number;
  /** Noise per reading (standard deviation, bytes). */
  noise: number;
  /** A GC-like sawtooth on top: its height (bytes) and period (s). */
  sawtooth?: { height: number; period: number };
  /** Seconds watched, seconds between readings, and the headroom left at the end of the watch. */
  watched: number;
  interval: number;
  headroom: number;
}

/** One leak: its readings while watched, the projection from them, and the seconds from then to the kill. */
function trial(l: Leak, seed: number) {
  const g = gaussian(mulberry32(seed));
  const xs: number[] = [];
  const ys: number[] = [];
  let kept = 100 * MB;
  const reading = (t: number) =>
    kept + l.noise * g() + (l.sawtooth ? ((t % l.sawtooth.period) / l.sawtooth.period) * l.sawtooth.height : 0);
  const step = () => (kept += l.drift * l.interval + Math.sqrt(l.walk * l.interval) * g());
  const n = Math.round(l.watched / l.interval);
  for (let i = 0; i <= n; i++) {
    if (i > 0) step();
    xs.push(i * l.interval);
    ys.push(reading(i * l.interval));
  }
  const limit = 100 * MB + l.drift * l.watched + l.headroom;
  let i = n;
  while (ys[ys.length - 1]! < limit) {
    i++;
    step();
    ys.push(reading(i * l.interval));
  }
  const p = projectToLimit({
    xs,
    ys: ys.slice(0, n + 1),
    from: 0,
    metric: "anon",
    counted: "anon",
    limits: [{ kind: "container", source: "memory.max", bytes: limit }],
  })!;
  return { truth: (i - n) * l.interval, p };
}

const LEAKS: Leak[] = [
  {
    name: "a service watched 20 s: 6.7 MB/s kept at random, temporaries ±3.2 MB",
    drift: 6.7 * MB,
    walk: 1.05e12,
    noise: 3.2 * MB,
    watched: 20,
    interval: 0.5,
    headroom: 160 * MB,
  },
  {
    name: "mostly walk",
    drift: 6.7 * MB,
    walk: 8e12,
    noise: 0.3 * MB,
    watched: 20,
    interval: 0.5,
    headroom: 160 * MB,
  },
  {
    name: "mostly noise",
    drift: 6.7 * MB,
    walk: 1e10,
    noise: 8 * MB,
    watched: 20,
    interval: 0.5,
    headroom: 160 * MB,
  },
  {
    name: "a slow leak watched 5 min at 1 s: 1 MB/s, a walk, noise ±3 MB",
    drift: 1 * MB,
    walk: 2e11,
    noise: 3 * MB,
    watched: 300,
    interval: 1,
    headroom: 600 * MB,
  },
  {
    name: "a leak under a GC sawtooth (30 MB every 20 s), watched 5 min",
    drift: 1 * MB,
    walk: 2e11,
    noise: 1 * MB,
    sawtooth: { height: 30 * MB, period: 20 },
    watched: 300,
    interval: 1,
    headroom: 600 * MB,
  },
];

describe("the projected range holds the kill about as often as it says", () => {
  it.each(LEAKS)("$name", (l) => {
    const N = 400;
    let inside = 0;
    let soon = 0;
    let widths = 0;
    let errors = 0;
    for (let seed = 1; seed <= N; seed++) {
      const { truth, p } = trial(l, seed);
      if (truth < p.secondsMin) soon++;
      else if (truth <= p.secondsMax!) inside++;
      widths += p.secondsMax! - p.secondsMin;
      errors += Math.abs(truth - p.seconds);
    }
    console.log(
      `${l.name}: the kill inside ${inside}/${N} (${soon} sooner, ${N - inside - soon} later); mean width ${(widths / N).toFixed(1)} s, mean |error| of the estimate ${(errors / N).toFixed(2)} s`,
    );
    expect(inside / N).toBeGreaterThanOrEqual(0.92);
  });
});
