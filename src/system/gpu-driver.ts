/**
 * Each process's GPU memory as the NVIDIA driver counts it, read through nvidia-smi (probes/nvidia-smi.ts), for the
 * processes memleak's agent does not read the caching allocator of: `watch` without the agent, JAX, CuPy,
 * TensorFlow. Asynchronous, so a tick never waits on it: `poll()` starts a read when one is due, and `take()` hands
 * the readings that arrived since the last take to the next sample.
 *
 * Cheap by rate: nvidia-smi loads NVML and asks every GPU, 100-300 ms, so a read is due no sooner than
 * DRIVER_MIN_SECONDS after the last, and no sooner than its own time allows under DRIVER_CPU_SHARE.
 * No nvidia-smi, or no driver behind it: nothing is read, and `facts()` says why in one line (the JSON's sampling).
 */
import { execFile } from "node:child_process";
import { gpuMemoryByPid, parseComputeApps, parseGpuIndices } from "../probes/nvidia-smi.js";

/** At least this long between reads: GPU memory leaks over minutes, and a 5 s series still gives a trend in 2 minutes. */
export const DRIVER_MIN_SECONDS = 5;
/**
 * And no more often than keeps nvidia-smi's wall time under 2% of the time: its wall time is what memleak can measure,
 * and an upper bound on its CPU, most of which is spent waiting on the driver. At the 100-300 ms a read takes, that is
 * a read every 5-15 s: a GPU leak is seen within minutes, and memleak stays a small cost on the machine.
 */
export const DRIVER_CPU_SHARE = 0.02;
/** A read that takes longer is abandoned (a driver stuck in a GPU reset): the sampling must not hang on it. */
export const NVIDIA_SMI_TIMEOUT_MS = 5000;

const APPS_ARGS = ["--query-compute-apps=pid,used_memory,gpu_uuid", "--format=csv,noheader,nounits"];
const INDEX_ARGS = ["--query-gpu=index,uuid", "--format=csv,noheader"];

export interface GpuDriverFacts {
  /** Whether nvidia-smi answered: `read` once it has, `unavailable` when it never could. */
  driver: "read" | "unavailable";
  /** One line: how often it was read, or why it could not be. */
  note: string;
  reads: number;
}

interface Ran {
  stdout: string;
  /** Why it failed, when it did: not installed, timed out, or what it said. */
  failed?: string;
}

/** Runs nvidia-smi; never throws. */
function nvidiaSmi(args: string[], command: string): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { timeout: NVIDIA_SMI_TIMEOUT_MS, maxBuffer: 2 ** 20, encoding: "utf8" },
      (err, stdout, stderr) => {
        if (!err) return resolve({ stdout });
        const e = err as NodeJS.ErrnoException & { killed?: boolean };
        const said = `${stdout}\n${stderr}`
          .split("\n")
          .map((l) => l.trim())
          .find((l) => l !== "");
        const failed =
          e.code === "ENOENT"
            ? "nvidia-smi is not installed (no NVIDIA driver here)"
            : e.killed
              ? `nvidia-smi did not answer within ${NVIDIA_SMI_TIMEOUT_MS / 1000} s`
              : `nvidia-smi failed: ${(said ?? e.message).slice(0, 160)}`;
        resolve({ stdout: "", failed });
      },
    );
  });
}

export class GpuDriver {
  private indices: Map<string, string> | undefined;
  private arrived: Map<number, Record<string, number>> | undefined;
  private inFlight = false;
  private nextAt = 0;
  private reads = 0;
  private unavailable: string | undefined;
  private lastFailure: string | undefined;
  private lastCostMs = 0;

  /** @param command the nvidia-smi to run (a path, or a name looked up on PATH) */
  constructor(
    private readonly command = "nvidia-smi",
    private readonly now = () => Date.now(),
  ) {}

  /** Starts a read if one is due; returns the read (for tests and the end of a session), or undefined. */
  poll(): Promise<void> | undefined {
    if (this.unavailable !== undefined || this.inFlight || this.now() < this.nextAt) return undefined;
    this.inFlight = true;
    return this.read().finally(() => {
      this.inFlight = false;
    });
  }

  /** The readings that arrived since the last take (pid → GPU index → bytes), once. */
  take(): Map<number, Record<string, number>> | undefined {
    const got = this.arrived;
    this.arrived = undefined;
    return got;
  }

  facts(): GpuDriverFacts {
    if (this.unavailable !== undefined)
      return {
        driver: "unavailable",
        note: `GPU memory per process not read from the driver: ${this.unavailable}`,
        reads: 0,
      };
    if (this.reads === 0)
      return {
        driver: "unavailable",
        note: `GPU memory per process not read from the driver: ${this.lastFailure ?? "no read finished"}`,
        reads: 0,
      };
    const every = Math.max(DRIVER_MIN_SECONDS, this.lastCostMs / 1000 / DRIVER_CPU_SHARE);
    return {
      driver: "read",
      note: `nvidia-smi read ${this.reads} time${this.reads === 1 ? "" : "s"}, every ${every.toFixed(0)} s or more`,
      reads: this.reads,
    };
  }

  private async read(): Promise<void> {
    if (!this.indices) {
      const ran = await nvidiaSmi(INDEX_ARGS, this.command);
      const parsed = ran.failed === undefined ? parseGpuIndices(ran.stdout) : undefined;
      // The first answer decides whether there is a driver to read at all.
      if (!parsed || !parsed.ok)
        return this.giveUp(
          ran.failed ?? (parsed && !parsed.ok ? `nvidia-smi's answer: ${parsed.message}` : "no answer"),
        );
      this.indices = parsed.value;
    }
    // The cost of a read is the query of processes alone: the GPUs' indices are asked once.
    const started = this.now();
    const ran = await nvidiaSmi(APPS_ARGS, this.command);
    const cost = this.now() - started;
    this.lastCostMs = cost;
    this.nextAt = this.now() + Math.max(DRIVER_MIN_SECONDS * 1000, cost / DRIVER_CPU_SHARE);
    const parsed = ran.failed === undefined ? parseComputeApps(ran.stdout) : undefined;
    if (!parsed || !parsed.ok) {
      // Once it has answered, a failure is one read missed (a GPU busy resetting), not the end of reading.
      this.lastFailure = ran.failed ?? (parsed && !parsed.ok ? parsed.message : "no answer");
      return;
    }
    this.reads++;
    this.arrived = gpuMemoryByPid(parsed.value.apps, this.indices);
  }

  private giveUp(why: string): void {
    this.unavailable = why;
  }
}
