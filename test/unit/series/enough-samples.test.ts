import { describe, expect, it } from "vitest";
import { MIN_SECONDS, secondsShort } from "../../../src/series/enough-samples.js";

describe("secondsShort: a too-short span never said as long as what it needs", () => {
  it.each([
    [8.75, MIN_SECONDS, "9"],
    [9.4, MIN_SECONDS, "9"],
    [9.5, MIN_SECONDS, "9.5"],
    [9.75, MIN_SECONDS, "9.8"],
    [9.96, MIN_SECONDS, "9.9"],
    [9.799999999, MIN_SECONDS, "9.8"],
    [12, MIN_SECONDS, "12"],
    [4.7, 5, "4.7"],
    [4.2, 5, "4"],
  ])("%s s (needs %s) → %s", (seconds, needs, said) => {
    expect(secondsShort(seconds, needs)).toBe(said);
    expect(Number(said)).toBeLessThan(seconds < needs ? needs : Infinity);
  });
});
