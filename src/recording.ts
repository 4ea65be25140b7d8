/**
 * Recordings: JSON lines. The first line describes the target and the machine, then one line per sample, appended
 * and flushed as they come (a synchronous write per line: a killed memleak leaves every sample it took), and finally
 * the verdict document. A reader tolerates a last line cut short by kill -9.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { MemleakError, EXIT } from "./commands/io.js";
import type { VerdictDocument } from "./analysis/types.js";
import type { Sample } from "./sample.js";

export const RECORDING_SCHEMA = "memleak.recording/1";

export interface RecordingHeader {
  type: "header";
  schema: typeof RECORDING_SCHEMA;
  startedAt: number;
  /** Requested seconds between samples. */
  interval: number;
  target: { pid: number; command?: string[]; mode: "run" | "watch" };
  machine: { hostname: string; kernel: string; cpus: number; memTotal: number; pageSize?: number; cpuModel?: string; os?: string };
  cgroup?: { version: 1 | 2; path: string; isolated: boolean } | { error: string };
  memleakVersion: string;
}

export type RecordingLine =
  | RecordingHeader
  | ({ type: "sample" } & Sample)
  | ({ type: "verdict" } & VerdictDocument)
  | { type: "event"; t: number; event: string; detail?: Record<string, unknown> };

export class RecordingWriter {
  private fd: number | undefined;
  /** Why writing stopped (a full disk, a quota, an I/O error), once it has. */
  failure: string | undefined;

  /**
   * @param onFailure told once, when a write fails: the recording stops there (what was written stays readable: a
   *        cut last line is tolerated), and sampling, the verdict and the gates go on without it.
   */
  constructor(
    readonly path: string,
    private readonly onFailure: (message: string) => void = () => {},
  ) {
    try {
      this.fd = openSync(path, "w");
    } catch (err) {
      throw new MemleakError(`cannot write the recording ${path}: ${(err as Error).message}`, EXIT.usage);
    }
  }

  write(line: RecordingLine): void {
    if (this.fd === undefined) return;
    try {
      writeSync(this.fd, JSON.stringify(line) + "\n");
    } catch (err) {
      this.failure = `the recording ${this.path} stopped: ${(err as Error).message}`;
      this.close();
      this.onFailure(this.failure);
    }
  }

  close(): void {
    const fd = this.fd;
    this.fd = undefined;
    if (fd === undefined) return;
    try {
      closeSync(fd);
    } catch (err) {
      this.failure ??= `the recording ${this.path} may be incomplete: ${(err as Error).message}`;
    }
  }
}

export interface RecordingContents {
  header: RecordingHeader;
  samples: Sample[];
  verdict?: VerdictDocument;
  events: { t: number; event: string; detail?: Record<string, unknown> }[];
  /** True when the last line was cut short (memleak was killed mid-write); the rest is still usable. */
  truncated: boolean;
}

function corrupt(path: string, line: number, why: string): MemleakError {
  return new MemleakError(`${path} is not a valid memleak recording: line ${line}: ${why}`, EXIT.usage);
}

/**
 * Streams a recording, calling onSample for each sample so a 72-hour file never has to sit in memory as objects.
 * Returns everything but the samples.
 */
export async function readRecording(
  path: string,
  onSample: (s: Sample) => void,
): Promise<Omit<RecordingContents, "samples">> {
  let stream;
  try {
    stream = createReadStream(path, { encoding: "utf8" });
    await new Promise<void>((resolve, reject) => stream!.once("open", () => resolve()).once("error", reject));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : (err as Error).message;
    throw new MemleakError(`cannot read the recording ${path}: ${why}`, EXIT.usage);
  }
  let header: RecordingHeader | undefined;
  let verdict: VerdictDocument | undefined;
  const events: RecordingContents["events"] = [];
  let lineNo = 0;
  let pendingError: MemleakError | undefined;
  for await (const text of createInterface({ input: stream, crlfDelay: Infinity })) {
    lineNo++;
    if (text.trim() === "") continue;
    // A bad line is only fatal if another line follows it: a bad LAST line is a write cut short by a kill.
    if (pendingError) throw pendingError;
    let obj: RecordingLine;
    try {
      obj = JSON.parse(text) as RecordingLine;
    } catch {
      pendingError = corrupt(path, lineNo, "not JSON");
      continue;
    }
    if (lineNo === 1) {
      if ((obj as RecordingHeader).type !== "header" || (obj as RecordingHeader).schema !== RECORDING_SCHEMA) {
        throw corrupt(path, 1, `the first line must be a ${RECORDING_SCHEMA} header`);
      }
      header = obj as RecordingHeader;
      continue;
    }
    switch (obj.type) {
      case "sample":
        if (typeof obj.t !== "number" || !Array.isArray(obj.processes)) throw corrupt(path, lineNo, "sample without t/processes");
        onSample(obj);
        break;
      case "verdict":
        verdict = obj;
        break;
      case "event":
        events.push(obj);
        break;
      default:
        throw corrupt(path, lineNo, `unknown line type ${JSON.stringify((obj as { type?: unknown }).type)}`);
    }
  }
  if (!header) throw corrupt(path, 1, "empty file");
  const result: Omit<RecordingContents, "samples"> = { header, events, truncated: pendingError !== undefined };
  if (verdict) result.verdict = verdict;
  return result;
}
