/**
 * The agent's 'holder' message (memleak_holder.py via memleak_census.py `_holder_search`), checked field by field like
 * every other message: names and paths come from the watched program (its variable names, its dict keys), so they
 * are bounded in length and count, and only strings and numbers are kept.
 */
import type { HolderHop, HolderResult } from "./agent-results.js";
import { boundedText as text } from "./message-fields.js";
import { isNum } from "./pytest-messages.js";

const MAX_HOPS = 16;
const MAX_NAME = 200;
const MAX_PATH = 500;

function hop(v: unknown): HolderHop | undefined {
  const h = v as Record<string, unknown> | null;
  const kind = text(h?.kind, 40);
  const name = text(h?.name, MAX_NAME);
  return kind !== undefined && name !== undefined ? { kind, name } : undefined;
}

export function parseHolder(m: Record<string, unknown>, pid: number, t: number): HolderResult | undefined {
  const container = text(m.container, MAX_NAME);
  if (container === undefined || typeof m.found !== "boolean" || !isNum(m.length)) return undefined;
  const cost = { levels: m.levels, calls: m.calls, objects: m.objects, ms: m.ms, longestMs: m.longestMs };
  if (!Object.values(cost).every(isNum)) return undefined;
  const out: HolderResult = {
    type: "holder",
    pid,
    t,
    container,
    length: m.length,
    found: m.found,
    ...(cost as Record<keyof typeof cost, number>),
  };
  if (isNum(m.itemsPerSecond) && m.itemsPerSecond >= 0) out.itemsPerSecond = m.itemsPerSecond;
  if (m.lengthCapped === true) out.lengthCapped = true;
  if (typeof m.device === "string" && /^[a-z]+:\d{1,3}$/.test(m.device) && isNum(m.deviceBytesPerItem)) {
    out.device = m.device;
    out.deviceBytesPerItem = m.deviceBytesPerItem;
  }
  if (m.found) {
    const path = text(m.path, MAX_PATH);
    const hops = Array.isArray(m.hops) ? m.hops.slice(0, MAX_HOPS).map(hop) : [];
    if (path === undefined || hops.length === 0 || hops.some((h) => h === undefined)) return undefined;
    out.path = path;
    out.hops = hops as HolderHop[];
    const root = text(m.root, 40);
    if (root !== undefined) out.root = root;
    const where = m.where as Record<string, unknown> | null | undefined;
    const file = text(where?.file, MAX_PATH);
    if (file !== undefined && isNum(where?.line) && Number.isInteger(where.line) && where.line > 0)
      out.where = { file, line: where.line };
  } else {
    const why = text(m.why, MAX_NAME);
    if (why !== undefined) out.why = why;
  }
  return out;
}
