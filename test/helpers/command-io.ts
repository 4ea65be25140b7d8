/** A CommandIO for tests: output kept in arrays, no terminal, no signals, Linux, and this process's pid. */
import type { CommandIO } from "../../src/base/command-io.js";

export function fakeIO(overrides: Partial<CommandIO> = {}): CommandIO & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    stdout: (t) => void out.push(t),
    stderr: (t) => void err.push(t),
    color: false,
    isTTY: false,
    ascii: false,
    columns: 100,
    env: {},
    platform: "linux",
    stdinIsTTY: false,
    pid: process.pid,
    onSignal: () => () => {},
    ...overrides,
  };
}
