import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { REPO } from "./fixtures.js";
import { E2E_LONGEST_FIRST } from "../sequencer.js";

describe("the e2e files' order (test/sequencer.ts)", () => {
  it("names every e2e file once, and no file that is gone", () => {
    const files = readdirSync(`${REPO}test/e2e`).filter((f) => f.endsWith(".test.ts"));
    expect(E2E_LONGEST_FIRST.map(([f]) => f).sort()).toEqual(files.sort());
  });
  it("is longest first", () => {
    const seconds = E2E_LONGEST_FIRST.map(([, s]) => s);
    expect(seconds).toEqual([...seconds].sort((a, b) => b - a));
  });
});
