/**
 * Arithmetic that saturates at ±Number.MAX_VALUE instead of overflowing to Infinity (and then to NaN).
 */

const MAX = Number.MAX_VALUE;

export function saturate(v: number): number {
  return v > MAX ? MAX : v < -MAX ? -MAX : v;
}

/** a + (b − a)·f written so that it neither overflows (b − a can exceed MAX) nor returns NaN for a === b. */
export function lerp(a: number, b: number, f: number): number {
  return a === b || f === 0 ? a : saturate(a * (1 - f) + b * f);
}

/** (y2 − y1) / (x2 − x1) for x2 > x1; halves the operands when a difference would overflow. */
export function slopeBetween(x1: number, y1: number, x2: number, y2: number): number {
  let dx = x2 - x1;
  let dy = y2 - y1;
  if (!Number.isFinite(dx) || !Number.isFinite(dy)) {
    dx = x2 / 2 - x1 / 2;
    dy = y2 / 2 - y1 / 2;
  }
  return saturate(dy / dx);
}
