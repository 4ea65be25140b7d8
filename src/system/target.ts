/**
 * Checks that a PID names a live process we can observe, with a message a person can act on when not.
 */
import { observeError } from "../base/errors.js";
import type { HostFs } from "./host-fs.js";
import { readBasic } from "./read-process.js";

/** Throws a MemleakError (exit 3) if the process does not exist or cannot be read at all. */
export function assertObservable(fs: HostFs, pid: number): void {
  const r = readBasic(fs, pid);
  if (r.ok) return;
  if (r.reason === "missing") throw observeError(`no process with PID ${pid} (it may have exited)`);
  if (r.reason === "denied")
    throw observeError(`permission denied reading /proc/${pid}: run as the process's user or as root`);
  throw observeError(`cannot read /proc/${pid}`);
}

/** run and watch read /proc and cgroup files continuously: off Linux only `snapshot` has a fallback. */
export function requireLinux(command: "run" | "watch", platform: string): void {
  if (platform !== "linux") {
    throw observeError(
      `${command} needs Linux's /proc and cgroup files; on ${platform} only \`memleak snapshot\` works (RSS and CPU)`,
    );
  }
}
