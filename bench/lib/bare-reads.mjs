/**
 * The least user-space work that makes the kernel produce the same files memleak read: open, read to the end, close;
 * list directories. The baseline of sections a and g. No imports beyond node:fs, so a process built on it (section g's
 * bare reader) carries nothing but Node itself.
 */
import { closeSync, openSync, readdirSync, readSync } from "node:fs";

const scratch = Buffer.alloc(64 * 1024);

/** @param log [op, path] pairs as a logging HostFs saw them: op "read" or "list". */
export function bareReads(log) {
  for (const [op, path] of log) {
    try {
      if (op === "list") {
        readdirSync(path);
        continue;
      }
      const fd = openSync(path, "r");
      try {
        while (readSync(fd, scratch, 0, scratch.length, null) > 0);
      } finally {
        closeSync(fd);
      }
    } catch {
      /* gone or not there: memleak paid for the failed open too, and so did this loop */
    }
  }
}
