/**
 * The small one-value and key-value files of a memory cgroup.
 *   usage: v2 memory.current, v1 memory.usage_in_bytes
 *   limit: v2 memory.max ("max" = none), v1 memory.limit_in_bytes (a page-rounded LONG_MAX = none)
 *   peak:  v2 memory.peak (≥ 5.19), v1 memory.max_usage_in_bytes
 *   OOM:   v2 memory.events (oom, oom_kill, …), v1 memory.oom_control (oom_kill_disable, under_oom, oom_kill)
 */
import { spaceFields } from "./key-value.js";
import { fail, ok, parseBigCount, type Parsed } from "./parsed.js";

/** A byte count file. */
export function parseBytesFile(text: string, source: string): Parsed<number> {
  const n = parseBigCount(text);
  return n === undefined ? fail(source, `not a byte count: ${JSON.stringify(text.slice(0, 40))}`) : ok(n);
}

/**
 * v1 writes "no limit" as PAGE_COUNTER_MAX pages in bytes (9223372036854771712 on 4 KiB pages); anything at or above
 * 2^62 is treated as unlimited, as runc and cAdvisor do.
 */
const V1_UNLIMITED_FLOOR = 2 ** 62;

/** A limit: bytes, or null when there is none. */
export function parseLimitFile(text: string, source: string): Parsed<number | null> {
  if (text.trim() === "max") return ok(null);
  const n = parseBigCount(text);
  if (n === undefined) return fail(source, `not a limit: ${JSON.stringify(text.slice(0, 40))}`);
  return ok(n >= V1_UNLIMITED_FLOOR ? null : n);
}

export interface OomEvents {
  /** Times the cgroup hit its limit and reclaim failed (v2 `oom`; v1 has no counter for it). */
  oom: number | undefined;
  /** Processes the OOM killer killed in this cgroup. */
  oomKill: number | undefined;
  /** v2 `max`: times usage was about to pass memory.max. */
  max: number | undefined;
  /** v1 only: 1 while the cgroup is under OOM with the killer disabled. */
  underOom: number | undefined;
}

export function parseOomFile(text: string, version: 1 | 2): Parsed<OomEvents> {
  const source = version === 2 ? "memory.events" : "memory.oom_control";
  const f = spaceFields(text);
  if (f.size === 0) return fail(source, "no key/value lines");
  return ok({
    oom: version === 2 ? f.get("oom") : undefined,
    oomKill: f.get("oom_kill"),
    max: version === 2 ? f.get("max") : undefined,
    underOom: version === 1 ? f.get("under_oom") : undefined,
  });
}
