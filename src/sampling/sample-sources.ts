/**
 * What a tick's sample carries from beyond /proc: the in-process agents' latest reports and the GPU driver's readings.
 * The sampler adds them before it hands the sample on, so the session records, judges and shows each sample as the
 * sampler made it, and never patches one afterwards.
 */
import type { Sample } from "../system/sample.js";
import type { GpuDriverReadings } from "./gpu-driver-readings.js";

export interface SampleSources {
  /**
   * The agents' latest reports of these pids, keyed by pid, or undefined when none has reported (agent/channel.ts
   * `snapshot`). A function: sampling/ lies below agent/ in the folder order, so the session hands it over.
   */
  agentReports?: ((pids: number[]) => Record<string, unknown> | undefined) | undefined;
  /** Each process's GPU memory as the driver counts it. */
  gpu?: GpuDriverReadings | undefined;
}

/** Adds the sources' part to a sample this tick has just made: the agents' reports first, then the GPU readings. */
export function addFromSources(sample: Sample, sources: SampleSources): void {
  const reports = sources.agentReports?.(sample.processes.map((p) => p.pid));
  if (reports) sample.agent = reports;
  sources.gpu?.addTo(sample.processes);
}
