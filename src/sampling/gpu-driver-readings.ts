/**
 * The GPU driver's readings (system/gpu-driver.ts) in the samples: each tick's processes get those that arrived since
 * the last tick, and the next read is started when it is due. nvidia-smi takes 100-300 ms, so it runs beside the
 * ticks: a tick never waits on it, and a sample carries a process's GPU memory only on the ticks after a read.
 */
import type { GpuDriver } from "../system/gpu-driver.js";
import type { ProcessSample } from "../system/sample.js";

export class GpuDriverReadings {
  /** The read started last: the session's end waits for it, so that memleak leaves no nvidia-smi behind. */
  private lastRead: Promise<void> | undefined;

  constructor(private readonly driver: Pick<GpuDriver, "take" | "poll">) {}

  /** Sets `gpu` on each of this tick's processes the driver has a reading of; then starts the next read if due. */
  addTo(processes: readonly ProcessSample[]): void {
    const readings = this.driver.take();
    if (readings) {
      for (const p of processes) {
        const used = readings.get(p.pid);
        if (used) p.gpu = used;
      }
    }
    this.lastRead = this.driver.poll() ?? this.lastRead;
  }

  /** Resolves once the read in flight, if any, has ended (within nvidia-smi's timeout). */
  async finished(): Promise<void> {
    await this.lastRead;
  }
}
