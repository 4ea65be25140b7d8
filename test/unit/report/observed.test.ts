/** The "observed" line, in the terminal and the HTML: one sample is "1 sample", not "0ms, 1 samples every 0ms". */
import { describe, expect, it } from "vitest";
import { observedText } from "../../../src/report/observed.js";

const words = (w: string) => `warm-up ${w} left out`;

describe("observedText", () => {
  it("one sample has no interval and no duration", () => {
    expect(observedText({ start: 0, end: 0, warmup: 0, samples: 1, interval: 0 }, words)).toBe("1 sample");
  });
  it("several: how long, how many, how often, and the warm-up left out", () => {
    expect(observedText({ start: 0, end: 24, warmup: 1.5, samples: 49, interval: 0.5 }, words)).toBe(
      "24s, 49 samples every 500ms, warm-up 1.5s left out",
    );
  });
  it("the HTML's values go through its escaping", () => {
    const h = (s: string | number) => `<${String(s)}>`;
    expect(observedText({ start: 0, end: 300, warmup: 0, samples: 301, interval: 1 }, words, h)).toBe(
      "<5m00s>, <301> samples every <1s>",
    );
  });
});
