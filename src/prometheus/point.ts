/**
 * One element of a matrix's "values", `[seconds, "value"]`, kept or skipped: the rule of both readers of an answer
 * (matrix-json.ts in place, range-response.ts on what JSON.parse gave), so that they keep the same points.
 */

/** Pushes the point's time and value when both are finite numbers. */
export function pointInto(point: unknown, ts: number[], values: number[]): void {
  if (!Array.isArray(point)) return;
  const t = Number(point[0]);
  // Values are strings ("NaN", "+Inf" included): a point that is not a finite number is a gap, not a 0.
  const v = typeof point[1] === "string" ? Number(point[1]) : NaN;
  if (Number.isFinite(t) && Number.isFinite(v)) {
    ts.push(t);
    values.push(v);
  }
}
