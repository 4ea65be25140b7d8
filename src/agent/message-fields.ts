/**
 * Field checks the agent's messages share: text that comes from the watched program (its names, its paths) is kept
 * only as a non-empty string, cut to a bound; counts and sizes are finite and not negative.
 */
import { isNum } from "./pytest-messages.js";

export const boundedText = (v: unknown, max: number): string | undefined =>
  typeof v === "string" && v.length > 0 ? v.slice(0, max) : undefined;

export const nonNegative = (v: unknown): v is number => isNum(v) && v >= 0;
