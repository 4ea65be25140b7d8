/**
 * The two line formats most /proc and cgroup files use:
 *   "Name:\t  1234 kB"   (status, smaps_rollup)
 *   "name 1234"          (memory.stat, memory.events, memory.oom_control)
 * Unknown keys are kept, so newer kernels' fields are not lost; values that are not numbers are skipped and so read
 * as missing (undefined), never as 0.
 */
import { parseBigCount } from "./parsed.js";

const KB = 1024;

/**
 * "Key:   value [kB]" lines → key → raw string value (trimmed). Lines without a colon are ignored.
 * With `wanted`, only those keys are kept and the scan stops once all are found: status is read every tick for
 * every process, and it has ~55 lines of which memleak uses 11.
 */
export function colonFields(text: string, wanted?: ReadonlySet<string>): Map<string, string> {
  const fields = new Map<string, string>();
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const colon = text.indexOf(":", start);
    if (colon > start && colon < end) {
      const key = text.slice(start, colon).trim();
      if (!wanted || wanted.has(key)) {
        fields.set(key, text.slice(colon + 1, end).trim());
        if (wanted && fields.size === wanted.size) break;
      }
    }
    start = end + 1;
  }
  return fields;
}

/** A "1234 kB" value in bytes; undefined if the value is missing or is not "<digits> kB". */
export function kibField(fields: Map<string, string>, key: string): number | undefined {
  const raw = fields.get(key);
  if (raw === undefined) return undefined;
  const m = /^(\d{1,20})\s*kB$/.exec(raw);
  if (!m) return undefined;
  return Number(m[1]) * KB;
}

/** "key 1234" lines → key → number. Later duplicates win; lines that do not fit are skipped. */
export function spaceFields(text: string): Map<string, number> {
  const fields = new Map<string, number>();
  for (const line of text.split("\n")) {
    const m = /^\s*(\S+)\s+(\S+)\s*$/.exec(line);
    if (!m) continue;
    const value = parseBigCount(m[2]!);
    if (value !== undefined) fields.set(m[1]!, value);
  }
  return fields;
}
