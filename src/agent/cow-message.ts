/**
 * The agent's 'cow' message (memleak_cow.py): the containers a forked worker copied from its parent. Names come from
 * the watched program (its globals, its dataset's attributes), so they are bounded in length and count, and only
 * strings, numbers and booleans are kept, like every other message.
 */
import type { CopiedObject, CowResult } from "./agent-results.js";
import { boundedText as text, nonNegative } from "./message-fields.js";

const MAX_OBJECTS = 8;
const MAX_NAME = 200;

function copiedObject(v: unknown): CopiedObject | undefined {
  const o = v as Record<string, unknown> | null;
  const name = text(o?.name, MAX_NAME);
  const what = text(o?.what, 80);
  if (!o || name === undefined || what === undefined) return undefined;
  const { length, bytes, itemsPrivate, trackedPrivate, storagePrivate } = o;
  if (![length, bytes, itemsPrivate, trackedPrivate, storagePrivate].every(nonNegative)) return undefined;
  const sharedWith = text(o.sharedWith, MAX_NAME);
  return {
    name,
    what,
    length: length as number,
    bytes: bytes as number,
    itemsPrivate: itemsPrivate as number,
    trackedPrivate: trackedPrivate as number,
    storagePrivate: storagePrivate as number,
    sampled: o.sampled === true,
    ...(sharedWith !== undefined && { sharedWith }),
  };
}

export function parseCow(m: Record<string, unknown>, pid: number, t: number): CowResult | undefined {
  if (!Array.isArray(m.objects)) return undefined;
  const objects = m.objects.slice(0, MAX_OBJECTS).map(copiedObject);
  if (objects.some((o) => o === undefined)) return undefined;
  const out: CowResult = { type: "cow", pid, t, objects: objects as CopiedObject[] };
  for (const k of ["frozen", "privateDirty", "walkBytes", "ms", "cpuMs"] as const) if (nonNegative(m[k])) out[k] = m[k];
  const why = text(m.why, MAX_NAME);
  if (why !== undefined) out.why = why;
  return out;
}
