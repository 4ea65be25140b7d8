/**
 * The only door to /proc and /sys. Everything is read through a root prefix so tests can point the same code at a
 * captured tree under fixtures/trees/. Reads are synchronous on purpose: a /proc read is a few µs of kernel work, and
 * the libuv thread-pool round trip of an async read would cost more than the read itself.
 */
import { readFileSync, readdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";

export type ReadFailure =
  /** The file (or the whole process) is gone: normal for a process that exited between two reads. */
  | "missing"
  /** Exists, but this user may not read it (smaps of another user's process without CAP_SYS_PTRACE). */
  | "denied"
  | "error";

export type ReadResult = { ok: true; text: string } | { ok: false; reason: ReadFailure; message: string };

function classify(err: unknown): ReadFailure {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ENOENT" || code === "ESRCH" || code === "ENOTDIR") return "missing";
  if (code === "EACCES" || code === "EPERM") return "denied";
  return "error";
}

export class HostFs {
  constructor(readonly root: string = "/") {}

  path(absolute: string): string {
    return this.root === "/" ? absolute : join(this.root, absolute);
  }

  read(absolute: string): ReadResult {
    try {
      return { ok: true, text: readFileSync(this.path(absolute), "utf8") };
    } catch (err) {
      return { ok: false, reason: classify(err), message: (err as Error).message };
    }
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
