/**
 * What a session writes to its --record file, in the order `analyze` reads it back: the header once the first sample
 * is in, each process's command line when it first appears (again after an exec), each sample, the agent's injections
 * and end-of-run results, the cgroup's outsiders, and last the verdict. Without --record every call does nothing, so
 * the session never asks whether it records.
 */
import type { AttachRecord } from "../agent/attach/attach-record.js";
import type { AgentResultMessage } from "../agent/agent-results.js";
import type { VerdictDocument } from "../analysis/types.js";
import { processKey } from "../sampling/process-key.js";
import { RecordingWriter, type RecordingHeader, type RecordingLine } from "./format.js";
import { agentResultEvent, EVENT } from "./events.js";
import type { Sample } from "../system/sample.js";
import type { TestMark } from "../agent/pytest-results.js";
import type { SamplerTotals } from "../sampling/sampler.js";

/** Where the lines go: a RecordingWriter, or in a test an array. */
export interface LineSink {
  write(line: RecordingLine): void;
  close(): void;
}

/**
 * A recorder for `path`, or one that records nothing when there is none. The header is asked for at once: describing
 * the machine takes ~100 ms, and it runs while the first sample is taken, so the start is not missed.
 * @param warn told once if a write fails (a full disk): the recording stops there, sampling goes on
 */
export function openRecorder(
  path: string | undefined,
  overwrite: boolean | undefined,
  header: () => Promise<RecordingHeader>,
  warn: (why: string) => void,
): SessionRecorder {
  if (!path) return new SessionRecorder(undefined, undefined);
  return new SessionRecorder(new RecordingWriter(path, { exclusive: !overwrite }, warn), header());
}

export class SessionRecorder {
  private pendingHeader: Promise<RecordingHeader> | undefined;
  /** key → comm and command line last recorded, so an exec (new comm or command line) is recorded again. */
  private readonly announced = new Map<string, string>();

  constructor(
    private readonly sink: LineSink | undefined,
    header: Promise<RecordingHeader> | undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.pendingHeader = sink ? header : undefined;
  }

  /** Writes the header, the first time only; called once a sample is in, so the machine was described meanwhile. */
  async header(): Promise<void> {
    if (!this.sink || !this.pendingHeader) return;
    this.sink.write(await this.pendingHeader);
    this.pendingHeader = undefined;
  }

  /** Each injection's outcome as it is known, so `analyze` can say what the agent missed. */
  attach(result: AttachRecord): void {
    this.sink?.write({ type: "event", t: this.now(), event: EVENT.attach, detail: { ...result } });
  }

  /**
   * A sample, after the processes in it that are new or have exec'd: a command line is recorded when it first
   * appears, not in every sample. Only this sample's processes can be new or have exec'd, so only they are looked at.
   */
  sample(sample: Sample, seen: SamplerTotals["seen"]): void {
    if (!this.sink) return;
    for (const sp of sample.processes) {
      const key = processKey(sp);
      const p = seen.get(key);
      if (!p) continue;
      const id = `${p.comm}\0${String(p.cmdline)}`;
      if (this.announced.get(key) === id) continue;
      this.announced.set(key, id);
      this.sink.write({
        type: "event",
        t: p.firstSeen,
        event: EVENT.processStart,
        detail: { pid: p.pid, ppid: p.ppid, comm: p.comm, ...(p.cmdline && { cmdline: p.cmdline }) },
      });
    }
    this.sink.write({ type: "sample", ...sample });
  }

  /** The cgroup's other processes that were there at both ends, and how much they grew. */
  outsiders(pids: number[], anonGrowth: number | undefined): void {
    this.sink?.write({
      type: "event",
      t: this.now(),
      event: EVENT.cgroupOutsiders,
      detail: { pids, ...(anonGrowth !== undefined && { anonGrowth }) },
    });
  }

  /** The agent's trace and trim results, which arrive as the interpreters exit: recorded for `analyze`. */
  agentResults(results: Iterable<AgentResultMessage>): void {
    for (const m of results)
      this.sink?.write({ type: "event", t: m.t * 1000, event: agentResultEvent(m.type), detail: { ...m } });
  }

  /** What the agent reported after the last sample (processes that exited between two ticks). */
  lastWords(t: number, lastWords: Record<string, unknown>): void {
    this.sink?.write({ type: "event", t, event: EVENT.agentLastWords, detail: lastWords });
  }

  /** The pytest plugin's test boundaries (and each test's result), as they come: `analyze` and the HTML show them. */
  testMarks(marks: readonly TestMark[]): void {
    for (const m of marks) this.sink?.write({ type: "event", t: m.t * 1000, event: m.type, detail: { ...m } });
  }

  verdict(doc: VerdictDocument): void {
    this.sink?.write({ type: "verdict", ...doc });
  }

  close(): void {
    this.sink?.close();
  }
}
