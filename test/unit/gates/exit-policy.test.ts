import { describe, expect, it } from "vitest";
import { gatesExitCode, runExitCode, type CommandExit } from "../../../src/gates/exit-policy.js";
import type { GateResult } from "../../../src/gates/gates.js";
import type { VerdictDocument } from "../../../src/analysis/types.js";
import { EXIT, type ExitCode } from "../../../src/base/errors.js";

const exit = (code: number | null, signal: NodeJS.Signals | null = null): CommandExit => ({ code, signal });
const gate = (result: GateResult["result"], passed: boolean): GateResult => ({
  name: "fail-on",
  result,
  passed,
  message: "m",
});
const docWith = (gates?: GateResult[]) => ({ ...(gates && { gates }) }) as unknown as VerdictDocument;

describe("gatesExitCode", () => {
  it.each<[string, GateResult[] | undefined, ExitCode]>([
    ["no gates", undefined, EXIT.ok],
    ["a passed gate", [gate("pass", true)], EXIT.ok],
    ["an inconclusive gate that lets the step pass", [gate("inconclusive", true)], EXIT.ok],
    ["an inconclusive gate under --strict", [gate("inconclusive", false)], EXIT.gateFailed],
    ["a failed gate among passed ones", [gate("pass", true), gate("fail", false)], EXIT.gateFailed],
  ])("%s → %i", (_, gates, expected) => {
    expect(gatesExitCode(docWith(gates))).toBe(expected);
  });
});

describe("runExitCode: the gates and the command's exit", () => {
  it.each<[ExitCode, CommandExit, number]>([
    // gates pass: the command's status, as a shell gives it
    [EXIT.ok, exit(0), EXIT.ok],
    [EXIT.ok, exit(1), 1],
    [EXIT.ok, exit(2), 2],
    [EXIT.ok, exit(127), 127],
    [EXIT.ok, exit(null, "SIGTERM"), 143],
    [EXIT.ok, exit(null, "SIGKILL"), 137],
    // a gate failed: that wins over anything the command did
    [EXIT.gateFailed, exit(0), EXIT.gateFailed],
    [EXIT.gateFailed, exit(2), EXIT.gateFailed],
    [EXIT.gateFailed, exit(null, "SIGTERM"), EXIT.gateFailed],
  ])("gates %i, command %j → %i", (gates, command, expected) => {
    expect(runExitCode(gates, command)).toBe(expected);
  });
});

describe("runExitCode: a command memleak stopped at --duration with SIGTERM", () => {
  it.each<[ExitCode, CommandExit, number]>([
    // killed by memleak's own SIGTERM, or a shell in between reporting that death as 143: the gates decide
    [EXIT.ok, exit(null, "SIGTERM"), EXIT.ok],
    [EXIT.ok, exit(143), EXIT.ok],
    [EXIT.gateFailed, exit(null, "SIGTERM"), EXIT.gateFailed],
    // it caught the signal and shut down cleanly
    [EXIT.ok, exit(0), EXIT.ok],
    // its shutdown failed in a way of its own, or another signal ended it: still the command's failure
    [EXIT.ok, exit(1), 1],
    [EXIT.ok, exit(null, "SIGKILL"), 137],
    [EXIT.ok, exit(null, "SIGSEGV"), 139],
  ])("gates %i, command %j → %i", (gates, command, expected) => {
    expect(runExitCode(gates, command, "SIGTERM")).toBe(expected);
  });

  it("without a signal of memleak's, SIGTERM is the command's failure (a signal from elsewhere, an interrupted run)", () => {
    expect(runExitCode(EXIT.ok, exit(null, "SIGTERM"), undefined)).toBe(143);
  });
});
