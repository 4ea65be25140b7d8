/**
 * The only door to /proc and /sys. Everything is read through a root prefix so tests can point the same code at a
 * captured tree under fixtures/trees/. Reads are synchronous on purpose: a /proc read is a few µs of kernel work, and
 * the libuv thread-pool round trip of an async read would cost more than the read itself.
 */
import { closeSync, openSync, readdirSync, readlinkSync, readSync } from "node:fs";
import { join } from "node:path";

export type ReadFailure =
  /** The file (or the whole process) is gone: normal for a process that exited between two reads. */
  | "missing"
  /** Exists, but this user may not read it (smaps of another user's process without CAP_SYS_PTRACE). */
  | "denied"
  | "error";

export type ReadFailed = { ok: false; reason: ReadFailure; message: string };
export type ReadResult = { ok: true; text: string } | ReadFailed;

function classify(err: unknown): ReadFailure {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ENOENT" || code === "ESRCH" || code === "ENOTDIR") return "missing";
  if (code === "EACCES" || code === "EPERM") return "denied";
  return "error";
}

/**
 * One buffer for every read: a tick reads stat and status of every process (128 files on a 64-process tree, ten
 * times a second at 10 Hz), and readFileSync's option handling, fstat and fresh buffer per file cost ~1.8 µs a file
 * more than the open/read/close the kernel needs (bench/lib/bare-reads.mjs, the baseline memleak is measured
 * against). Reads are synchronous, and a parser is done with the bytes (it keeps numbers and copied strings) before
 * readWith returns; a parser that reads another file meanwhile gets a buffer of its own (see readWith).
 */
const SCRATCH_BYTES = 64 * 1024;
const scratch = Buffer.alloc(SCRATCH_BYTES);
/** Whether a parser is looking at `scratch` now. */
let scratchInUse = false;

/**
 * The whole file's bytes: into the shared buffer, and, for a file that does not fit (a full smaps of a big process
 * runs to megabytes), into one buffer that doubles as it fills. /proc hands out at most a page per read, so a fresh
 * chunk per read (as this first did) held ~256 KiB for every 4 KiB read: ~300 MB of garbage for one 5 MB smaps.
 * The bytes are a view of the shared buffer (of a fresh one when `own`): valid until the next read.
 */
function readWhole(path: string, own: boolean): Buffer {
  const fd = openSync(path, "r");
  try {
    let buffer = own ? Buffer.allocUnsafe(4096) : scratch;
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        const bigger = Buffer.allocUnsafe(buffer.length * 2);
        buffer.copy(bigger, 0, 0, length);
        buffer = bigger;
      }
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) return buffer.subarray(0, length);
      length += n;
    }
  } finally {
    closeSync(fd);
  }
}

const decode = (bytes: Buffer) => bytes.toString("utf8");

export class HostFs {
  constructor(readonly root: string = "/") {}

  path(absolute: string): string {
    return this.root === "/" ? absolute : join(this.root, absolute);
  }

  /**
   * The file's bytes, handed to `parse` undecoded: the files read for every process at every tick (stat, status,
   * smaps_rollup) are parsed from the read buffer itself. The bytes are only valid during the call. Every read of a
   * file goes through here (a benchmark logs the read set by wrapping it).
   */
  readWith<T>(absolute: string, parse: (bytes: Buffer) => T): { ok: true; value: T } | ReadFailed {
    // A read made while a parse holds the shared buffer (no parser does today) must not overwrite its bytes.
    const nested = scratchInUse;
    let bytes: Buffer;
    try {
      bytes = readWhole(this.path(absolute), nested);
    } catch (err) {
      return { ok: false, reason: classify(err), message: (err as Error).message };
    }
    scratchInUse = true;
    try {
      // `parse` must not keep `bytes`: they are the next read's.
      return { ok: true, value: parse(bytes) };
    } finally {
      scratchInUse = nested;
    }
  }

  read(absolute: string): ReadResult {
    const r = this.readWith(absolute, decode);
    return r.ok ? { ok: true, text: r.value } : r;
  }

  /** The text, or undefined for any failure. For optional files where the reason does not matter. */
  readOptional(absolute: string): string | undefined {
    const r = this.read(absolute);
    return r.ok ? r.text : undefined;
  }

  /** Where a symbolic link (/proc/PID/exe) points, or undefined. */
  readLink(absolute: string): string | undefined {
    try {
      return readlinkSync(this.path(absolute));
    } catch {
      return undefined;
    }
  }

  list(absolute: string): string[] {
    try {
      return readdirSync(this.path(absolute));
    } catch {
      return [];
    }
  }
}
