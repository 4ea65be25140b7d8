/**
 * Checks that a PID names a live process we can observe, with a message a person can act on when not.
 */
import { observeError, usageError } from "../commands/io.js";
import type { HostFs } from "./host-fs.js";
import { readBasic } from "./read-process.js";

export function parsePid(text: string | undefined): number {
  if (text === undefined || text.trim() === "") throw usageError("missing PID: memleak snapshot <pid>");
  if (!/^\d+$/.test(text.trim())) throw usageError(`"${text}" is not a PID: expected a positive whole number`);
  const pid = Number(text.trim());
  if (!Number.isSafeInteger(pid) || pid <= 0) throw usageError(`"${text}" is not a PID: expected a positive whole number`);
  return pid;
}

/** Throws a MemleakError (exit 3) if the process does not exist or cannot be read at all. */
export function assertObservable(fs: HostFs, pid: number): void {
  const r = readBasic(fs, pid);
  if (r.ok) return;
  if (r.reason === "missing") throw observeError(`no process with PID ${pid} (it may have exited)`);
  if (r.reason === "denied") throw observeError(`permission denied reading /proc/${pid}: run as the process's user or as root`);
  throw observeError(`cannot read /proc/${pid}`);
}

/** Who we are, to explain permission problems. */
export function currentUid(): number | undefined {
  return typeof process.getuid === "function" ? process.getuid() : undefined;
}
