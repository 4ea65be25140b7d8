/**
 * Trace directories of memleaks killed before they could remove them (`kill -9`, the OOM killer): named by memleak's
 * pid, removed by the next `run --trace-native` once that pid is gone — only this user's, and only when nothing in
 * them changed for 10 minutes: a memleak in another container sharing this /tmp has a pid this one cannot see, and
 * its traced command keeps writing (heaptrack writes a clock line every 10 ms).
 */
import { readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { alive } from "../system/isolate.js";

export const TRACE_DIR_PREFIX = "memleak-native-";
const QUIET_MS = 10 * 60_000;

export function removeStaleTraceDirs(dir: string, now = Date.now()): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = new RegExp(`^${TRACE_DIR_PREFIX}(\\d+)-`).exec(name);
    if (!m || Number(m[1]) === process.pid || alive(Number(m[1]))) continue;
    const path = join(dir, name);
    try {
      const st = statSync(path);
      if (st.uid !== process.geteuid?.()) continue;
      const newest = Math.max(st.mtimeMs, ...readdirSync(path).map((f) => statSync(join(path, f)).mtimeMs));
      if (now - newest < QUIET_MS) continue;
      rmSync(path, { recursive: true, force: true });
    } catch {
      /* gone, or not ours to remove */
    }
  }
}
