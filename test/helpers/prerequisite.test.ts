import { afterEach, describe, expect, it } from "vitest";
import { lacking } from "./prerequisite.js";

const ci = process.env.CI;
afterEach(() => {
  if (ci === undefined) delete process.env.CI;
  else process.env.CI = ci;
});

describe("lacking: a missing prerequisite skips off CI and fails under CI=true", () => {
  it("present: never skips, on CI or off", () => {
    process.env.CI = "true";
    expect(lacking(false, "tmux", "apt-get install tmux")).toBe(false);
    delete process.env.CI;
    expect(lacking(false, "tmux", "apt-get install tmux")).toBe(false);
  });
  it("missing off CI: skipped", () => {
    delete process.env.CI;
    expect(lacking(true, "tmux", "apt-get install tmux")).toBe(true);
  });
  it("missing under CI=true: an error that names it and how to get it", () => {
    process.env.CI = "true";
    expect(() => lacking(true, "tmux", "apt-get install tmux")).toThrow(
      "CI=true and this machine lacks tmux: apt-get install tmux. Under CI no test is skipped for it.",
    );
  });
});
