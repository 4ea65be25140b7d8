/** A series as one line of block characters, scaled to its own min..max (or an ASCII ramp for terminals without Unicode). */
const BLOCKS = "▁▂▃▄▅▆▇█";
const ASCII = "_.-~=*#@";

/** Averages `values` down to `width` buckets, then maps each bucket to a character. */
export function sparkline(values: readonly number[], width = 24, ascii = false): string {
  const chars = ascii ? ASCII : BLOCKS;
  if (values.length === 0) return "";
  const buckets: number[] = [];
  const per = values.length / Math.min(width, values.length);
  for (let b = 0; b < Math.min(width, values.length); b++) {
    const from = Math.floor(b * per);
    const to = Math.max(from + 1, Math.floor((b + 1) * per));
    let sum = 0;
    for (let i = from; i < to; i++) sum += values[i]!;
    buckets.push(sum / (to - from));
  }
  const min = Math.min(...buckets);
  const max = Math.max(...buckets);
  const span = max - min;
  return buckets.map((v) => chars[span === 0 ? 0 : Math.min(chars.length - 1, Math.floor(((v - min) / span) * chars.length))]).join("");
}
