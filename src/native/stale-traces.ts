/**
 * Trace directories of memleaks killed before they could remove them (`kill -9`, the OOM killer): named by memleak's
 * pid, removed by the next `run --trace-native` once that pid is gone — only this user's, and only when nothing in
 * them changed for 10 minutes: a memleak in another container sharing this /tmp has a pid this one cannot see, and
 * its traced command keeps writing (heaptrack writes a clock line every 10 ms).
 */
import { readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { deadOwnersDirs } from "../system/stale-dirs.js";

export const TRACE_DIR_PREFIX = "memleak-native-";
const QUIET_MS = 10 * 60_000;

export function removeStaleTraceDirs(dir: string, now = Date.now()): void {
  for (const path of deadOwnersDirs(dir, TRACE_DIR_PREFIX)) {
    try {
      const newest = Math.max(statSync(path).mtimeMs, ...readdirSync(path).map((f) => statSync(join(path, f)).mtimeMs));
      if (now - newest < QUIET_MS) continue;
      rmSync(path, { recursive: true, force: true });
    } catch {
      /* gone, or not ours to remove */
    }
  }
}
