/**
 * Seeded synthetic memory series for tests and benchmarks: the same options always give the same samples, so a
 * failing case can be replayed and a benchmark compares like with like.
 *
 * y(t) = max(floor, baseline + warmup(t) + shape(t) + noise), sampled at t = i / hz for i = 0 … seconds·hz − 1,
 * where noise is Gaussian with standard deviation `noise` (Box–Muller over mulberry32).
 */
import { mulberry32 } from "../../src/analysis/stats/random.js";

/** Memory tools print MiB as "MB"; so do these series. */
export const MB = 1024 * 1024;

/** Sustained growth at a constant rate: a leak. */
export interface LinearShape {
  readonly kind: "linear";
  readonly bytesPerSecond: number;
}

/**
 * GC-like: grows by `amplitude` over each tooth, then drops back at once. Teeth last `period` seconds, or, with
 * `jitter` j, a length drawn uniformly from period·(1 ± j) (a real GC runs when allocation crosses a threshold,
 * not on a clock). `bytesPerSecond` adds a leak underneath (the troughs rise); 0 by default, which is not a leak.
 */
export interface SawtoothShape {
  readonly kind: "sawtooth";
  readonly period: number;
  readonly amplitude: number;
  readonly jitter?: number;
  readonly bytesPerSecond?: number;
}

/** Warm-up then plateau: exponential approach to baseline + level with time constant tau (63% after tau). */
export interface PlateauShape {
  readonly kind: "plateau";
  readonly level: number;
  readonly tau: number;
}

/** A bounded cache: linear growth at bytesPerSecond until `until` seconds, then flat. */
export interface FillShape {
  readonly kind: "fill";
  readonly bytesPerSecond: number;
  readonly until: number;
}

/** One jump of `height` at `at` seconds, flat before and after (a model loaded, an arena sized once). */
export interface StepShape {
  readonly kind: "step";
  readonly at: number;
  readonly height: number;
}

/** Flat, optionally with transient jumps that come back. */
export interface StableShape {
  readonly kind: "stable";
  readonly jumps?: Jumps;
}

/**
 * Transient jumps: on average one every `every` seconds, of ±`size` bytes (sign at random), lasting `duration`
 * seconds, then back to the level — a large temporary buffer, a batch, a page-cache burst.
 */
export interface Jumps {
  readonly every: number;
  readonly size: number;
  readonly duration: number;
}

export type Shape = LinearShape | SawtoothShape | PlateauShape | FillShape | StepShape | StableShape;
export type ShapeKind = Shape["kind"];

export interface GenerateOptions {
  /** Window length; the series covers [0, seconds). */
  readonly seconds: number;
  /** Samples per second. */
  readonly hz: number;
  /** Level at t = 0, bytes. */
  readonly baseline: number;
  readonly shape: Shape;
  /** Standard deviation of the Gaussian noise, bytes ("±5 MB noise" means 5 MB here). */
  readonly noise: number;
  readonly seed: number;
  /** Samples are clamped to at least this (memory is never negative); default 0, -Infinity to disable. */
  readonly floor?: number;
  /** A start-up transient added to any shape: +level·(1 − e^(−t/tau)), e.g. imports and a model load. */
  readonly warmup?: { readonly level: number; readonly tau: number };
}

export interface SyntheticSeries {
  readonly xs: number[];
  readonly ys: number[];
}

/** Beyond this many samples the options are taken to be a mistake, and the series is cut there. */
const MAX_SAMPLES = 10_000_000;

export function generate(options: GenerateOptions): SyntheticSeries {
  const count = sampleCount(options.seconds, options.hz);
  const gauss = gaussian(mulberry32(options.seed));
  // Jumps and jittered teeth draw from their own stream, so turning them on does not change the noise of a seed.
  const value = shapeFunction(options.shape, mulberry32(options.seed ^ 0x9e3779b9), options.hz);
  const warmup = options.warmup ? approach(options.warmup.level, options.warmup.tau) : () => 0;
  const floor = options.floor ?? 0;
  const sigma = Number.isFinite(options.noise) ? Math.abs(options.noise) : 0;
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = i / options.hz;
    xs.push(t);
    ys.push(Math.max(floor, options.baseline + warmup(t) + value(t) + sigma * gauss()));
  }
  return { xs, ys };
}

/** level·(1 − e^(−t/tau)): 63% of the way after tau, 95% after 3·tau. No time constant means there at once. */
function approach(level: number, tau: number): (t: number) => number {
  return tau > 0 ? (t) => level * (1 - Math.exp(-t / tau)) : () => level;
}

function sampleCount(seconds: number, hz: number): number {
  const count = Math.floor(seconds * hz);
  return Number.isFinite(count) && count > 0 && hz > 0 ? Math.min(count, MAX_SAMPLES) : 0;
}

/** The noise-free shape as a function of time, bytes above the baseline. Called once per sample, in time order. */
function shapeFunction(shape: Shape, random: () => number, hz: number): (t: number) => number {
  switch (shape.kind) {
    case "linear":
      return (t) => shape.bytesPerSecond * t;
    case "sawtooth":
      return sawtooth(shape, random, hz);
    case "plateau":
      return approach(shape.level, shape.tau);
    case "fill":
      return (t) => shape.bytesPerSecond * Math.min(t, shape.until);
    case "step":
      return (t) => (t >= shape.at ? shape.height : 0);
    case "stable":
      return shape.jumps ? jumpProcess(shape.jumps, random, hz) : () => 0;
  }
}

/**
 * Teeth laid end to end from t = 0; each new tooth draws its length (when jittered). Teeth shorter than a sample
 * interval are not jittered: they alias into noise anyway, and it bounds the loop by the number of samples.
 */
function sawtooth(shape: SawtoothShape, random: () => number, hz: number): (t: number) => number {
  const leak = shape.bytesPerSecond ?? 0;
  const jitter = shape.period * hz >= 1 ? Math.min(1, Math.max(0, shape.jitter ?? 0)) : 0;
  if (!(shape.period > 0)) return (t) => leak * t;
  if (jitter === 0) return (t) => shape.amplitude * fractionalPart(t / shape.period) + leak * t;
  const nextLength = () => shape.period * Math.max(1e-3, 1 + jitter * (2 * random() - 1));
  let start = 0;
  let length = nextLength();
  return (t) => {
    while (t >= start + length) {
      start += length;
      length = nextLength();
    }
    return shape.amplitude * ((t - start) / length) + leak * t;
  };
}

function fractionalPart(v: number): number {
  return Number.isFinite(v) ? v - Math.floor(v) : 0;
}

/** Each sample outside a jump starts one with probability 1 / (every · hz): on average one per `every` seconds. */
function jumpProcess(jumps: Jumps, random: () => number, hz: number): (t: number) => number {
  const startChance = 1 / (jumps.every * hz);
  let endsAt = -Infinity;
  let offset = 0;
  return (t) => {
    if (t >= endsAt) {
      offset = 0;
      if (random() < startChance) {
        endsAt = t + jumps.duration;
        offset = random() < 0.5 ? jumps.size : -jumps.size;
      }
    }
    return offset;
  };
}

/** Standard normal deviates by Box–Muller; both values of each pair are used. */
export function gaussian(random: () => number): () => number {
  let spare: number | undefined;
  return () => {
    if (spare !== undefined) {
      const v = spare;
      spare = undefined;
      return v;
    }
    const radius = Math.sqrt(-2 * Math.log(1 - random())); // 1 − u is in (0, 1]: no log(0)
    const angle = 2 * Math.PI * random();
    spare = radius * Math.sin(angle);
    return radius * Math.cos(angle);
  };
}

/**
 * The scenarios the verdict engine must tell apart, on a 100 MB baseline sampled at 1 Hz for 10 minutes with 5 MB
 * noise unless stated. Spread one and override `seed` (or anything else) to vary it.
 */
export const SCENARIOS = {
  /** 1 MB/s: a leak anyone would want to hear about. */
  linearLeak: base({ kind: "linear", bytesPerSecond: 1 * MB }),
  /** GC-like: +200 MB over each minute, then back down. Not a leak. */
  sawtooth: base({ kind: "sawtooth", period: 60, amplitude: 200 * MB }),
  /** Warm-up to +300 MB with a 60 s time constant, then level: a plateau. */
  plateauAfterWarmup: base({ kind: "plateau", level: 300 * MB, tau: 60 }),
  /** A bounded cache: 1 MB/s for 200 s, then full. A plateau. */
  boundedCache: base({ kind: "fill", bytesPerSecond: 1 * MB, until: 200 }),
  /** +200 MB at 200 s, flat around it. Not a ramp. */
  stepThenFlat: base({ kind: "step", at: 200, height: 200 * MB }),
  /** Flat, with ±100 MB jumps of 5 s about once a minute. Stable. */
  stableWithJumps: base({ kind: "stable", jumps: { every: 60, size: 100 * MB, duration: 5 } }),
  /** 0.1 MB/s under 20 MB noise: 60 MB over the window, each second's growth 200× smaller than the noise. */
  slowLeakHeavyNoise: { ...base({ kind: "linear", bytesPerSecond: 0.1 * MB }), noise: 20 * MB },
} satisfies Record<string, GenerateOptions>;

export type ScenarioName = keyof typeof SCENARIOS;

function base(shape: Shape): GenerateOptions {
  return { seconds: 600, hz: 1, baseline: 100 * MB, shape, noise: 5 * MB, seed: 1 };
}
