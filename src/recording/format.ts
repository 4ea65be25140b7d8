/**
 * Recordings: JSON lines. The first line describes the target and the machine, then one line per sample, appended
 * and flushed as they come (a synchronous write per line: a killed memleak leaves every sample it took), and finally
 * the verdict document. A reader tolerates a last line cut short by kill -9.
 */
import { closeSync, openSync, statSync, writeSync } from "node:fs";
import { createReadStream, type ReadStream } from "node:fs";
import { safeText } from "../base/safe-text.js";
import { MemleakError, EXIT } from "../base/errors.js";
// Up a floor, for a type only: a recording ends with the verdict document, whose contract (docs/formats.md) the analysis
// declares; the reader checks its shape, never runs the analysis.
import type { VerdictDocument } from "../analysis/types.js";
import type { Sample } from "../system/sample.js";
import type { MachineInfo } from "../system/machine.js";
import type { ReadEvent, RecordingEvent } from "./events.js";

export const RECORDING_SCHEMA = "memleak.recording/1";

export interface RecordingHeader {
  type: "header";
  schema: typeof RECORDING_SCHEMA;
  startedAt: number;
  /** Requested seconds between samples. */
  interval: number;
  target: { pid: number; command?: string[]; mode: "run" | "watch" };
  machine: MachineInfo;
  cgroup?: { version: 1 | 2; path: string; isolated: boolean } | { error: string };
  memleakVersion: string;
}

export type RecordingLine =
  RecordingHeader | ({ type: "sample" } & Sample) | ({ type: "verdict" } & VerdictDocument) | RecordingEvent;

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
    o: { exclusive?: boolean } = {},
    private readonly onFailure: (message: string) => void = () => {},
  ) {
    // Exclusive: a regular file that appeared since the options were checked (another memleak writing the same
    // path) is refused, never truncated. Devices (/dev/stdout, /dev/null) are opened as they are.
    const device = (() => {
      try {
        return !statSync(path).isFile();
      } catch {
        return false;
      }
    })();
    try {
      this.fd = openSync(path, o.exclusive && !device ? "wx" : "w");
    } catch (err) {
      const exists = (err as NodeJS.ErrnoException).code === "EEXIST";
      throw new MemleakError(
        `cannot write the recording ${path}: ${exists ? "the file exists (another memleak writing it?); pass --overwrite to replace it" : (err as Error).message}`,
        EXIT.usage,
      );
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
  events: ReadEvent[];
  /** True when the last line was cut short (memleak was killed mid-write); the rest is still usable. */
  truncated: boolean;
  /** Lines in the middle that were not valid (analyzed around), and the first one's number and reason. */
  skipped: { count: number; first?: { line: number; why: string } };
}

/**
 * The longest line read. A sample of 5,600 processes is ~2 MB and a verdict document well under; without a bound, a
 * file with no newline (`truncate -s 1G`, /dev/zero) grew one string until V8 gave up, after 633 MB.
 */
export const MAX_LINE_CHARS = 32 * 2 ** 20;
/**
 * More bad lines than this share of the file: refused, not analyzed around. A share, not a count: a 72-hour recording
 * (259,000 lines) with a few bad ones is still that recording; a short one with a bad line in three is not.
 */
export const MAX_BAD_SHARE = 0.1;

function corrupt(path: string, line: number, why: string): MemleakError {
  return new MemleakError(`${path} is not a valid memleak recording: line ${line}: ${why}`, EXIT.usage);
}

const SIZE_FIELDS = [
  "rss",
  "anon",
  "file",
  "shmem",
  "swap",
  "pss",
  "pssAnon",
  "uss",
  "sharedClean",
  "sharedDirty",
] as const;
const CGROUP_FIELDS = ["usage", "workingSet", "kernel"] as const;

/**
 * Why a sample cannot be real, or undefined: sizes that are negative, not finite, or beyond what the machine could
 * hold (a negated recording turned a leak into "stable" and passed the gates; 1e308 was printed as a peak).
 */
export function impossibleSample(obj: Record<string, unknown>, memTotal: number): string | undefined {
  if (typeof obj.t !== "number" || !Number.isFinite(obj.t) || !Array.isArray(obj.processes))
    return "sample without t/processes";
  // Generous: swap and shared pages can take a process past physical memory, never past this.
  const most = memTotal > 0 ? 4 * memTotal : 2 ** 53;
  const bad = (v: unknown) =>
    v !== undefined && v !== null && (typeof v !== "number" || !Number.isFinite(v) || v < 0 || v > most);
  for (const p of obj.processes as Record<string, unknown>[]) {
    if (typeof p !== "object" || p === null || typeof p.pid !== "number" || !Number.isInteger(p.pid) || p.pid <= 0)
      return "a process without a valid pid";
    for (const f of SIZE_FIELDS)
      if (bad(p[f])) return `PID ${p.pid}: ${f} = ${JSON.stringify(p[f])} is not a possible size`;
    // GPU memory is not bounded by the host's: only sizes that are numbers, finite and not negative.
    const gpu = p.gpu;
    if (
      gpu !== undefined &&
      (typeof gpu !== "object" ||
        gpu === null ||
        Array.isArray(gpu) ||
        Object.values(gpu).some((v) => typeof v !== "number" || !Number.isFinite(v) || v < 0))
    ) {
      return `PID ${p.pid}: gpu = ${JSON.stringify(gpu).slice(0, 80)} is not GPU memory by device`;
    }
  }
  const cg = obj.cgroup as Record<string, unknown> | undefined;
  if (cg && typeof cg === "object") {
    for (const f of CGROUP_FIELDS)
      if (bad(cg[f])) return `cgroup ${f} = ${JSON.stringify(cg[f])} is not a possible size`;
  }
  // The machine's memory is the limit of what no cgroup limits: a made-up MemAvailable would move that limit.
  const machine = obj.machine as Record<string, unknown> | undefined;
  if (machine && typeof machine === "object") {
    for (const f of ["memTotal", "memAvailable"])
      if (bad(machine[f])) return `machine ${f} = ${JSON.stringify(machine[f])} is not a possible size`;
  }
  return undefined;
}

/** Why a recording could not be opened, as one line for the user. */
function cannotRead(path: string, err: unknown): MemleakError {
  const code = (err as NodeJS.ErrnoException).code;
  const why = code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : (err as Error).message;
  return new MemleakError(`cannot read the recording ${path}: ${why}`, EXIT.usage);
}

/** The file must be a regular file: a directory is a mistake, a FIFO with no writer would block for ever. */
function openable(path: string): void {
  let st;
  try {
    st = statSync(path);
  } catch (err) {
    throw cannotRead(path, err);
  }
  if (st.isDirectory()) throw new MemleakError(`cannot read the recording ${path}: it is a directory`, EXIT.usage);
  if (!st.isFile())
    throw new MemleakError(
      `cannot read the recording ${path}: not a regular file (a FIFO, a socket or a device)`,
      EXIT.usage,
    );
}

/**
 * Streams a recording, calling onSample for each sample so a 72-hour file never has to sit in memory as objects.
 * Returns everything but the samples. A bad line in the middle is skipped and counted (the caller says so); a bad
 * last line is a write cut short by a kill; more than a tenth of the file bad, and it is refused.
 */
export async function readRecording(
  path: string,
  onSample: (s: Sample) => void,
): Promise<Omit<RecordingContents, "samples">> {
  openable(path);
  const stream = await openStream(path);
  const reader = new RecordingReader(path, onSample);
  await forEachLine(stream, path, (text) => reader.line(text));
  return reader.end();
}

async function openStream(path: string): Promise<ReadStream> {
  let stream;
  try {
    stream = createReadStream(path, { encoding: "utf8" });
    await new Promise<void>((resolve, reject) => stream!.once("open", () => resolve()).once("error", reject));
  } catch (err) {
    throw cannotRead(path, err);
  }
  return stream;
}

/**
 * Hands each line of the stream to `line`, the last one too when no newline ends it, and destroys the stream. A line
 * longer than MAX_LINE_CHARS is refused as it comes.
 */
async function forEachLine(stream: ReadStream, path: string, line: (text: string) => void): Promise<void> {
  /** Lines handed on so far: the one too long is the next. */
  let handed = 0;
  const hand = (text: string) => {
    handed++;
    line(text);
  };
  // The start of a line not finished yet, in pieces: joined once, when its newline comes (linear in the file).
  let parts: string[] = [];
  let partsLength = 0;
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      let from = 0;
      let nl: number;
      while ((nl = chunk.indexOf("\n", from)) >= 0) {
        const piece = chunk.slice(from, nl);
        hand(parts.length > 0 ? parts.join("") + piece : piece);
        parts = [];
        partsLength = 0;
        from = nl + 1;
      }
      if (from < chunk.length) {
        parts.push(chunk.slice(from));
        partsLength += chunk.length - from;
      }
      if (partsLength > MAX_LINE_CHARS)
        throw corrupt(path, handed + 1, `a line longer than ${MAX_LINE_CHARS / 2 ** 20} MiB`);
    }
  } finally {
    stream.destroy();
  }
  if (parts.length > 0) hand(parts.join(""));
}

/** The first line: this version's header, or why the file is not a recording it reads. */
function headerLine(path: string, obj: RecordingLine): RecordingHeader {
  const h = obj as { type?: unknown; schema?: unknown };
  const schema = typeof h?.schema === "string" ? h.schema : "";
  if (h?.type === "header" && schema.startsWith("memleak.recording/") && schema !== RECORDING_SCHEMA) {
    throw new MemleakError(
      `${path} was written by another version of memleak (schema ${safeText(schema.slice(0, 40))}); this one reads ${RECORDING_SCHEMA}`,
      EXIT.usage,
    );
  }
  if (h?.type !== "header" || h.schema !== RECORDING_SCHEMA)
    throw corrupt(path, 1, `the first line must be a ${RECORDING_SCHEMA} header`);
  return obj as RecordingHeader;
}

/** A recording's lines, read one at a time: what they hold, and the bad ones among them. */
class RecordingReader {
  private header: RecordingHeader | undefined;
  private verdict: VerdictDocument | undefined;
  private readonly events: RecordingContents["events"] = [];
  private readonly skipped: RecordingContents["skipped"] = { count: 0 };
  private lineNo = 0;
  private lines = 0;
  /** The last bad line, held back: if nothing follows it, it was a write cut short, not a bad line. */
  private pending: { line: number; why: string; cut?: boolean } | undefined;

  constructor(
    private readonly path: string,
    private readonly onSample: (s: Sample) => void,
  ) {}

  line(text: string): void {
    this.lineNo++;
    if (text.trim() === "") return;
    this.lines++;
    this.skip();
    let obj: RecordingLine;
    try {
      obj = JSON.parse(text) as RecordingLine;
    } catch {
      if (this.lineNo === 1)
        throw corrupt(this.path, 1, `not JSON: the first line must be a ${RECORDING_SCHEMA} header`);
      this.pending = { line: this.lineNo, why: "not JSON", cut: true };
      return;
    }
    if (this.lineNo === 1) this.header = headerLine(this.path, obj);
    else this.body(obj);
  }

  /** A line after the header. */
  private body(obj: RecordingLine): void {
    switch (obj?.type) {
      case "sample": {
        const memTotal = Number(this.header?.machine?.memTotal) || 0;
        const why = impossibleSample(obj as unknown as Record<string, unknown>, memTotal);
        if (why) this.pending = { line: this.lineNo, why };
        else this.onSample(obj);
        break;
      }
      case "verdict":
        this.verdict = obj;
        break;
      case "event":
        this.events.push(obj as ReadEvent);
        break;
      default:
        this.pending = {
          line: this.lineNo,
          why: `unknown line type ${safeText(JSON.stringify((obj as unknown as { type?: unknown })?.type) ?? "undefined").slice(0, 40)}`,
        };
    }
  }

  /** A line followed the bad one held back: it was a bad line, not a cut one. */
  private skip(): void {
    if (!this.pending) return;
    this.skipped.count++;
    this.skipped.first ??= { line: this.pending.line, why: this.pending.why };
    this.pending = undefined;
  }

  /** What the recording holds, once its last line was read; refused when empty or mostly bad. */
  end(): Omit<RecordingContents, "samples"> {
    if (!this.header) throw corrupt(this.path, 1, "empty file");
    // A last line that is not JSON is a write cut short by a kill: tolerated, and said. One that parses but is not
    // valid is a bad line like any other.
    const truncated = this.pending?.cut === true;
    if (!truncated) this.skip();
    const skipped = this.skipped;
    if (skipped.count > MAX_BAD_SHARE * this.lines) {
      const first = skipped.first!;
      throw corrupt(
        this.path,
        first.line,
        `${first.why}${skipped.count > 1 ? ` (and ${skipped.count - 1} more bad lines)` : ""}`,
      );
    }
    const result: Omit<RecordingContents, "samples"> = { header: this.header, events: this.events, truncated, skipped };
    if (this.verdict) result.verdict = this.verdict;
    return result;
  }
}
