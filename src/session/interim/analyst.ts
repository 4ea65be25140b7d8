/**
 * Works out a session's interim verdicts, one at a time: in line while they are cheap, on a worker thread from the
 * first that held the sampling thread up for longer than `holdUpMs`. A verdict on 64 processes once took ~0.3 s; on
 * the event loop it held up every tick behind it (at 10 Hz, three ticks late). But a worker is a second V8 isolate
 * that loads the analysis again and compiles it apart: on 64 idle processes at 1 Hz, where a verdict takes
 * milliseconds, starting it was ~0.1–0.3 s of memleak's first minute for nothing (BENCHMARKS §g²²), and a `run` of one
 * process never needs it. When no worker can be started (a bundler that dropped the worker file, a platform without
 * worker threads), the verdicts are worked out in line, as before: slower ticks, never a missing verdict.
 */
import { existsSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { runInterim, type InterimJob, type InterimResult } from "./job.js";

// dist/session/interim/worker.js beside this module in tsc's dist/; dist/bundle/worker.js beside a chunk of the bundle.
const WORKER_FILE = new URL("./worker.js", import.meta.url);

export class InterimAnalyst {
  private worker: Worker | undefined;
  /** No worker can be had (none compiled, or it failed): every verdict in line from now on. */
  private inline = false;
  /** Verdicts in line until one holds the sampling thread up for longer than holdUpMs (none at all when it is 0). */
  private cheapSoFar: boolean;
  private pending: { at: number } | undefined;

  /**
   * @param onResult called with each verdict and the session time (seconds) its data ran to
   * @param onError told once when interim verdicts fail (a bug): the session goes on, the final verdict is its own
   * @param holdUpMs the longest a verdict may hold the sampling thread up (milliseconds of wall time): verdicts are
   *   worked out in line until one takes longer, and on the worker from the next on; 0: on the worker from the first
   */
  constructor(
    private readonly onResult: (r: InterimResult, at: number) => void,
    private readonly onError: (message: string) => void = () => {},
    private readonly holdUpMs = 0,
  ) {
    this.cheapSoFar = holdUpMs > 0;
  }

  private errorSaid = false;

  /** Whether a verdict is being worked out (a new one is not started until it is in). */
  get busy(): boolean {
    return this.pending !== undefined;
  }

  /** Starts a verdict on `job` (data up to `at` seconds); false if one is in flight. */
  request(job: InterimJob, transfer: ArrayBuffer[], at: number): boolean {
    if (this.pending) return false;
    const worker = this.inline || this.cheapSoFar ? undefined : this.start();
    if (!worker) {
      let r: InterimResult;
      const started = performance.now();
      try {
        r = runInterim(job);
      } catch (err) {
        this.fail(err instanceof Error ? (err.stack ?? err.message) : String(err));
        return true;
      }
      if (performance.now() - started > this.holdUpMs) this.cheapSoFar = false;
      this.onResult(r, at);
      return true;
    }
    try {
      worker.postMessage(job, transfer);
    } catch (err) {
      // Could not be cloned (a bug): worked out in line from now on, and said once.
      this.fail((err as Error).message);
      this.fallBack();
      return true;
    }
    this.pending = { at };
    return true;
  }

  /** Stops the worker; a verdict in flight is dropped (the session works out the final one itself). */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    this.pending = undefined;
    if (w) await w.terminate();
  }

  private start(): Worker | undefined {
    if (this.worker) return this.worker;
    // Run from TypeScript sources (tests), there is no compiled worker file: work in line.
    if (!existsSync(fileURLToPath(WORKER_FILE))) {
      this.inline = true;
      return undefined;
    }
    try {
      const w = new Worker(WORKER_FILE);
      // The worker never keeps memleak alive: the session ends it, and an early exit must not wait for it.
      w.unref();
      w.on("message", (r: InterimResult | { error: string }) => {
        const p = this.pending;
        this.pending = undefined;
        if ("error" in r) this.fail(r.error);
        else if (p) this.onResult(r, p.at);
      });
      // A worker that dies or cannot read its answer: verdicts are worked out in line from then on.
      w.on("error", (err) => {
        this.fail(err.message);
        this.fallBack();
      });
      w.on("messageerror", () => this.fallBack());
      w.on("exit", () => {
        if (this.worker === w) this.fallBack();
      });
      this.worker = w;
      return w;
    } catch {
      this.inline = true;
      return undefined;
    }
  }

  private fail(message: string): void {
    if (this.errorSaid) return;
    this.errorSaid = true;
    this.onError(message);
  }

  /**
   * The worker failed: every later verdict is worked out here. The one it had is dropped (its buffers went with it);
   * the next request comes within seconds.
   */
  private fallBack(): void {
    this.inline = true;
    this.worker = undefined;
    this.pending = undefined;
  }
}
