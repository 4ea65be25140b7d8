/**
 * Synthetic CUDA allocator readings, as the agent reports them (memleak_readings.py `_cuda_stats`: "gpu" →
 * "cuda0Allocated", …), for the GPU rules' decision tables: each field a seeded synthetic series (synthetic.ts), read
 * at the scenario's sample times through SynthProcess.agent.
 */
import { generate, type GenerateOptions, type Shape } from "./synthetic.js";

type SeriesOptions = Partial<GenerateOptions> & { shape: Shape };

export interface SynthDevice {
  allocated: SeriesOptions;
  /** Defaults to allocated + 64 MiB at every reading. */
  reserved?: SeriesOptions;
  inactiveSplit?: SeriesOptions;
  /** The allocator's cumulative retry and out-of-memory counters at time t; 0 by default. */
  retries?: (t: number) => number;
  ooms?: (t: number) => number;
}

/** The agent's report for the devices (by index) at time t; `seconds` and `hz` as the scenario's. */
export function gpuReports(
  devices: Record<number, SynthDevice>,
  seconds: number,
  hz = 1,
  seed = 1,
): (t: number) => { gpu: Record<string, number> } {
  const make = (o: SeriesOptions | undefined, k: number) =>
    o ? generate({ seconds, hz, baseline: 0, noise: 0, seed: seed + k, ...o }).ys : undefined;
  const per = Object.entries(devices).map(([d, dev], i) => ({
    d,
    dev,
    allocated: make(dev.allocated, 10 * i)!,
    reserved: make(dev.reserved, 10 * i + 1),
    split: make(dev.inactiveSplit, 10 * i + 2),
  }));
  return (t) => {
    const i = Math.min(Math.round(t * hz), Math.floor(seconds * hz) - 1);
    const gpu: Record<string, number> = {};
    for (const { d, dev, allocated, reserved, split } of per) {
      const a = Math.round(allocated[i]!);
      const r = Math.max(a, Math.round(reserved ? reserved[i]! : a + 64 * 2 ** 20));
      Object.assign(gpu, {
        [`cuda${d}Allocated`]: a,
        [`cuda${d}Reserved`]: r,
        [`cuda${d}Active`]: a,
        [`cuda${d}InactiveSplit`]: Math.min(r - a, Math.round(split ? split[i]! : 0)),
        [`cuda${d}AllocRetries`]: dev.retries?.(t) ?? 0,
        [`cuda${d}Ooms`]: dev.ooms?.(t) ?? 0,
      });
    }
    return { gpu };
  };
}
