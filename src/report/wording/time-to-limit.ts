/**
 * The time to the limit in words: "container limit 2.00 GiB, anon + shmem 1.41 GiB, growing 1.9 MiB/s: ~5 min
 * (4–7 min)". Which limit, what it is counted on, how fast, when — each a fact the reader can check against their
 * dashboard.
 */
import type { TimeToLimitFacts } from "../../analysis/time-to-limit.js";
import type { MemoryLimit, TimeToLimit } from "../../analysis/types.js";
import { formatBytes } from "../../base/units.js";

/** A span as an operator says it: seconds under 90 s, minutes under 90 min, hours under 48 h, then days. */
const UNITS: [limit: number, size: number, name: string][] = [
  [90, 1, "s"],
  [90 * 60, 60, "min"],
  [48 * 3600, 3600, "h"],
  [Infinity, 86400, "days"],
];

function unitOf(seconds: number): [size: number, name: string] {
  const u = UNITS.find(([limit]) => seconds < limit)!;
  return [u[1], u[2]];
}

/** The number of a span in a unit: two significant digits under 10 ("1.5 h"), whole numbers above. */
const amount = (seconds: number, size: number) => {
  const v = seconds / size;
  return v < 10 ? String(Number(v.toFixed(1))) : v.toFixed(0);
};

export function spanText(seconds: number): string {
  const [size, name] = unitOf(seconds);
  return `${amount(seconds, size)} ${name}`;
}

/**
 * "4–7 min" when both ends share a unit, "50 s – 2 min" when not, "at least 4 min" when the far end is unbounded.
 */
export function rangeText(min: number, max: number | null): string {
  if (max === null) return `at least ${spanText(min)}`;
  const [minSize] = unitOf(min);
  let i = UNITS.findIndex(([limit]) => max < limit);
  // A narrow range whose ends round alike ("10–10 min") is said in the next smaller unit ("590–612 s").
  while (i > 0 && amount(min, UNITS[i]![1]) === amount(max, UNITS[i]![1])) i--;
  const [, size, name] = UNITS[i]!;
  return minSize >= size ? `${amount(min, size)}–${amount(max, size)} ${name}` : `${spanText(min)} – ${spanText(max)}`;
}

function rateText(bytesPerSecond: number): string {
  if (bytesPerSecond >= 2 ** 20 / 10) return `${formatBytes(bytesPerSecond)}/s`;
  if (bytesPerSecond * 60 >= 2 ** 20 / 10) return `${formatBytes(bytesPerSecond * 60)}/min`;
  return `${formatBytes(bytesPerSecond * 3600)}/h`;
}

function limitText(t: TimeToLimitFacts): string {
  const l = t.limit;
  if (l.kind === "machine") return `no nearer limit than the machine's memory: ${formatBytes(t.headroom)} available`;
  if (l.source !== "memory.high") return `container limit ${formatBytes(l.bytes)}`;
  const max = t.otherLimits.find((o: MemoryLimit) => o.source === "memory.max");
  return `container memory.high ${formatBytes(l.bytes)} (reclaim and throttling from there${max ? `; memory.max ${formatBytes(max.bytes)}` : ""})`;
}

export function timeToLimitText(t: TimeToLimitFacts): string {
  const when =
    t.headroom <= 0 ? "at the limit now" : `~${spanText(t.seconds)} (${rangeText(t.secondsMin, t.secondsMax)})`;
  // Peaks worth saying: over 1 MiB and 2% of the room left (a sawtooth of temporaries reaches the limit first).
  const peaks = t.swing >= Math.max(2 ** 20, 0.02 * t.headroom) ? ` (peaks +${formatBytes(t.swing)})` : "";
  return `${limitText(t)}, ${t.counted} ${formatBytes(t.level)}${peaks}, growing ${rateText(t.bytesPerSecond)}: ${when}`;
}

/** The projection with its sentence, as the document carries it. */
export const renderTimeToLimit = (t: TimeToLimitFacts): TimeToLimit => ({ ...t, summary: timeToLimitText(t) });
