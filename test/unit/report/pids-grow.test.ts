/** The processes a growth is attributed to, with the verb agreeing (issue 48 item 8: "because PID 15702, 15705 grows"). */
import { describe, expect, it } from "vitest";
import { pidsThatGrow } from "../../../src/report/wording/numbers.js";
import { say } from "../../../src/report/wording/index.js";
import { phrase } from "../../../src/analysis/phrases.js";

const MB = 2 ** 20;

describe("pidsThatGrow", () => {
  it.each([
    ["101", "PID 101 grows"],
    ["15702, 15705", "PIDs 15702 and 15705 grow"],
    ["1,2,3", "PIDs 1, 2 and 3 grow"],
  ])("%s → %s", (pids, text) => expect(pidsThatGrow(pids)).toBe(text));
});

describe("the attributed leak's advice agrees with its processes", () => {
  const advice = (pids: string) =>
    say(
      phrase("advice.leak", {
        variant: "attributed",
        rate: { bytesPerSecond: MB, percentPerHour: 100 },
        subject: "tree",
        pids,
      }),
    ).replace(/\s+/g, " ");
  it("one process", () =>
    expect(advice("101")).toContain(
      'because PID 101 grows: that process\'s own finding (above, or under "other findings") says why',
    ));
  it("two processes", () =>
    expect(advice("100, 101")).toContain(
      'because PIDs 100 and 101 grow: those processes\' own findings (above, or under "other findings") say why',
    ));
});

describe("the attributed tree or cgroup finding's sentence", () => {
  const of = phrase("tree.stable", { metric: "pss-anon", start: MB, end: 2 * MB });
  it("two processes whose findings share a kind", () =>
    expect(say(phrase("reconcile.attributed", { of, pids: "100, 101", as: "fragmentation" }))).toMatch(
      / — because PIDs 100 and 101 grow \(whose own findings are fragmentation\)$/,
    ));
  it("one", () =>
    expect(say(phrase("reconcile.attributed", { of, pids: "101", as: "cow" }))).toMatch(
      / — because PID 101 grows \(whose own finding is cow\)$/,
    ));
});
