/**
 * base/command-exit.ts: how a launched command's end reads — the status a shell reports for it, and whether it died of
 * the signal memleak sent it at --duration (run's exit code and run --try's failed trials both read it).
 */
import { describe, expect, it } from "vitest";
import { DURATION_SIGNAL, endedBySignalSent, shellExitCode } from "../../../src/base/command-exit.js";
import type { CommandExit } from "../../../src/base/command-io.js";

const exit = (code: number | null, signal: NodeJS.Signals | null = null): CommandExit => ({ code, signal });

describe("shellExitCode", () => {
  it("is the command's own code, or 128 + the signal's number", () => {
    expect(shellExitCode(exit(0))).toBe(0);
    expect(shellExitCode(exit(3))).toBe(3);
    expect(shellExitCode(exit(null, "SIGKILL"))).toBe(137);
    expect(shellExitCode(exit(null, "SIGTERM"))).toBe(143);
    expect(shellExitCode(exit(null, "SIGINT"))).toBe(130);
    expect(shellExitCode(exit(null, null))).toBe(129);
  });
});

describe("endedBySignalSent", () => {
  it("is the death by the signal memleak sent, or the status a shell in between reports for it", () => {
    expect(DURATION_SIGNAL).toBe("SIGTERM");
    expect(endedBySignalSent(exit(null, "SIGTERM"), "SIGTERM")).toBe(true);
    expect(endedBySignalSent(exit(143), "SIGTERM")).toBe(true);
    expect(endedBySignalSent(exit(0), "SIGTERM")).toBe(false);
    expect(endedBySignalSent(exit(1), "SIGTERM")).toBe(false);
    expect(endedBySignalSent(exit(null, "SIGKILL"), "SIGTERM")).toBe(false);
  });

  it("without a signal of memleak's, none is (a signal from elsewhere, an interrupted run)", () => {
    expect(endedBySignalSent(exit(null, "SIGTERM"), undefined)).toBe(false);
    expect(endedBySignalSent(exit(143), undefined)).toBe(false);
  });
});
