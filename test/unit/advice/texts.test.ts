/**
 * The advice the analysis gives is inlined from src/advice/*.md into src/advice/texts.ts (scripts/inline-advice.mjs,
 * run by `npm run build`): an edit to a .md file that was not built into texts.ts would ship the old words.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a build script in plain JavaScript, without declarations
import { adviceModule } from "../../../scripts/inline-advice.mjs";
import { advice } from "../../../src/advice/load.js";
import { REPO } from "../../helpers/fixtures.js";

describe("inlined advice", () => {
  it("texts.ts is what the .md files say (run `npm run build` after editing one)", () => {
    expect(readFileSync(`${REPO}src/advice/texts.ts`, "utf8")).toBe(adviceModule());
  });

  it("a variant's text comes back with its placeholders filled, from the inlined copy", () => {
    const text = advice("leak", "process", {
      pid: 42,
      rate: "1 MiB/s",
      growth: "60 MiB",
      level: "100 MiB",
      metric: "anon",
      command: "python3 x.py",
    });
    expect(text.length).toBeGreaterThan(50);
    expect(text).not.toMatch(/\{\{/);
  });
});
