import { describe, expect, it } from "vitest";
import { parseCLI } from "../../../src/cli/parse.js";

describe("parseCLI", () => {
  it.each([
    [["snapshot", "123"], { kind: "snapshot", pid: 123, json: false }],
    [["snapshot", "--json", "7"], { kind: "snapshot", pid: 7, json: true }],
  ])("%j", (args, expected) => {
    expect(parseCLI(args)).toMatchObject(expected);
  });

  it.each([
    [["snapshot"], "missing required argument"],
    [["snapshot", "abc"], "is not a PID"],
    [["snapshot", "0"], "is not a PID"],
    [["snapshot", "-5"], "is not a PID"],
    [["snapshto", "1"], "unknown command"],
    [["snapshot", "1", "--frobnicate"], "unknown option"],
  ])("%j is a usage error (exit 2) mentioning %j", (args, message) => {
    const r = parseCLI(args);
    expect(r.kind).toBe("error");
    if (r.kind === "error") {
      expect(r.exitCode).toBe(2);
      expect(r.message).toContain(message);
    }
  });

  it("help and version are output with exit 0", () => {
    for (const args of [[], ["--help"], ["snapshot", "--help"], ["--version"]]) {
      const r = parseCLI(args);
      expect(r).toMatchObject({ kind: "print", exitCode: 0 });
    }
    expect(parseCLI([])).toMatchObject({ text: expect.stringContaining("snapshot") });
  });

  it("run: the command and its arguments after --, exactly as given", () => {
    const r = parseCLI([
      "run",
      "--interval",
      "500ms",
      "--max-growth",
      "50MiB",
      "--fail-on",
      "leak,cow",
      "--",
      "python3",
      "-c",
      "print('a b')",
      "--json",
    ]);
    expect(r).toMatchObject({
      kind: "run",
      command: ["python3", "-c", "print('a b')", "--json"],
      interval: 0.5,
      json: false,
      isolate: true,
      gates: {
        maxGrowth: { kind: "bytes", bytes: 50 * 2 ** 20 },
        failOn: ["leak", "cow"],
        metric: "pss",
        perProcess: false,
      },
      smapsBudget: expect.closeTo(0.03, 9),
      pssEvery: 2,
    });
  });

  it("pytest: its options, pytest's arguments after -- as given, and the per-test limits in bytes", () => {
    const r = parseCLI([
      "pytest",
      "--python",
      "/usr/bin/python3",
      "--repeat",
      "5",
      "--warmup-calls",
      "2",
      "--max-test-growth",
      "10MiB",
      "--max-leak-per-call",
      "100KiB",
      "--json",
      "--",
      "-q",
      "tests/",
      "-k",
      "not slow",
    ]);
    expect(r).toMatchObject({
      kind: "pytest",
      python: "/usr/bin/python3",
      pytestArgs: ["-q", "tests/", "-k", "not slow"],
      repeat: 5,
      warmupCalls: 2,
      maxTestGrowth: 10 * 2 ** 20,
      maxLeakPerCall: 100 * 1024,
      json: true,
      isolate: true,
    });
    expect(parseCLI(["pytest"])).toMatchObject({
      kind: "pytest",
      python: "python3",
      pytestArgs: [],
      repeat: 1,
      warmupCalls: 0,
      maxTestGrowth: undefined,
    });
  });

  it.each([
    [["pytest", "--max-test-growth", "10%"], '--max-test-growth: "10%" is a percentage: give a size (100KiB, 10MiB)'],
    [["pytest", "--repeat", "0"], '--repeat: "0" is not a whole number from 1 to 1000'],
    [["pytest", "--warmup-calls", "-1"], '--warmup-calls: "-1" is not a whole number from 0 to 1000'],
    [["pytest", "--", "-n", "4"], "pytest -n: pytest-xdist workers are not supported"],
    [["pytest", "--", "-nauto"], "pytest -nauto: pytest-xdist workers are not supported"],
    [["pytest", "--", "--dist=loadscope", "tests/"], "pytest --dist=loadscope: pytest-xdist workers are not supported"],
    [
      ["pytest", "--no-agent", "--", "tests/"],
      "memleak pytest needs the agent (its plugin reports each test through it): drop --no-agent",
    ],
  ])("pytest %j is a usage error", (args, message) => {
    const r = parseCLI(args);
    expect(r).toMatchObject({ kind: "error", exitCode: 2 });
    if (r.kind === "error") expect(r.message).toContain(message);
  });

  it("pytest takes the agent options run takes", () => {
    expect(parseCLI(["pytest", "--trace-python", "--trim-probe", "--", "tests/"])).toMatchObject({
      kind: "pytest",
      tracePython: true,
      trimProbe: true,
      pytestArgs: ["tests/"],
    });
    expect(parseCLI(["pytest"])).toMatchObject({ kind: "pytest", tracePython: false, trimProbe: false });
  });

  it("pytest: a file named -n after pytest's own -- is a file, not xdist", () => {
    expect(parseCLI(["pytest", "--", "--", "-n"])).toMatchObject({ kind: "pytest", pytestArgs: ["--", "-n"] });
  });

  it("watch --trace-python: tracemalloc for --trace-window (60 s unless given), never without the agent", () => {
    expect(parseCLI(["watch", "42", "--trace-python"])).toMatchObject({
      kind: "watch",
      tracePython: true,
      traceWindow: 60,
    });
    expect(parseCLI(["watch", "42", "--trace-python", "--trace-window", "2m"])).toMatchObject({
      tracePython: true,
      traceWindow: 120,
    });
    expect(parseCLI(["watch", "42"])).toMatchObject({ tracePython: false });
    expect(parseCLI(["watch", "42", "--trace-python", "--no-inject"])).toMatchObject({
      kind: "error",
      exitCode: 2,
      message: expect.stringContaining("--trace-python needs the agent in the program: drop --no-inject"),
    });
    expect(parseCLI(["watch", "42", "--trace-window", "0s"])).toMatchObject({
      kind: "error",
      exitCode: 2,
      message: expect.stringMatching(/^--trace-window: /),
    });
  });

  it("--pss-every is a duration, at least 50 ms", () => {
    expect(parseCLI(["watch", "42", "--pss-every", "10s"])).toMatchObject({ kind: "watch", pssEvery: 10 });
    expect(parseCLI(["watch", "42", "--pss-every", "500ms"])).toMatchObject({ pssEvery: 0.5 });
    expect(parseCLI(["watch", "42", "--pss-every", "soon"])).toMatchObject({
      kind: "error",
      exitCode: 2,
      message: expect.stringMatching(/^--pss-every: /),
    });
    expect(parseCLI(["watch", "42", "--pss-every", "0s"])).toMatchObject({
      kind: "error",
      exitCode: 2,
      message: expect.stringMatching(/--pss-every: must be at least 0.05s/),
    });
  });

  it("watch and analyze", () => {
    expect(
      parseCLI(["watch", "42", "--duration", "10m", "--json", "--metric", "working-set", "--max-rate", "10MiB/h"]),
    ).toMatchObject({
      kind: "watch",
      pid: 42,
      duration: 600,
      json: true,
      gates: { metric: "working-set", maxRate: { bytesPerSecond: (10 * 2 ** 20) / 3600 } },
    });
    expect(parseCLI(["run", "--no-isolate", "--", "true"])).toMatchObject({ kind: "run", isolate: false });
    expect(parseCLI(["analyze", "r.jsonl", "--warmup", "30s"])).toMatchObject({
      kind: "analyze",
      file: "r.jsonl",
      warmup: 30,
    });
  });

  it("--strict and --fail-fast belong to the gates; analyze has --strict only (a recording cannot be stopped)", () => {
    expect(parseCLI(["run", "--fail-on", "leak", "--strict", "--fail-fast", "--", "true"])).toMatchObject({
      gates: { failOn: ["leak"], strict: true, failFast: true },
    });
    expect(parseCLI(["watch", "42", "--max-growth", "10%", "--fail-fast"])).toMatchObject({
      gates: { failFast: true },
    });
    expect(parseCLI(["analyze", "r.jsonl", "--fail-on", "leak", "--strict"])).toMatchObject({
      gates: { strict: true },
    });
    expect(parseCLI(["analyze", "r.jsonl", "--fail-on", "leak", "--fail-fast"])).toMatchObject({
      kind: "error",
      message: expect.stringContaining("--fail-fast"),
    });
  });

  it.each([
    [["run", "--fail-fast", "--", "true"], "--fail-fast stops at the first failed gate: give one"],
    [["run", "--max-growth", "50MX", "--", "true"], '--max-growth: "50MX" is not a size'],
    [
      ["run", "--max-growth", "50", "--", "true"],
      '--max-growth: "50" has no unit: did you mean 50MiB? (50B for bytes)',
    ],
    [["pytest", "--max-test-growth", "10", "--", "t.py"], '--max-test-growth: "10" has no unit: did you mean 10MiB?'],
    [["run", "--max-rate", "5/h", "--", "true"], '--max-rate: "5/h" is not a rate'],
    [["run", "--max-rate", "5MB", "--", "true"], '--max-rate: "5MB" is not a rate'],
    [["run", "--fail-on", "leak,oops", "--", "true"], 'unknown verdict kind "oops"'],
    [["run", "--interval", "fast", "--", "true"], '--interval: "fast" is not a duration'],
    [["run", "--interval", "0", "--", "true"], "--interval: must be at least 0.05s"],
    [["run", "--metric", "heap", "--", "true"], "heap"],
    [["run", "--smaps-budget", "0", "--", "true"], "--smaps-budget"],
    [["run", "--per-process", "--metric", "cgroup", "--", "true"], "belongs to the cgroup"],
    [["watch", "12", "--duration", "soon"], '--duration: "soon" is not a duration'],
    [["run"], "missing required argument"],
  ])("%j → usage error mentioning %s", (args, message) => {
    const r = parseCLI(args);
    expect(r).toMatchObject({ kind: "error", exitCode: 2 });
    if (r.kind === "error") expect(r.message).toContain(message.replace(/\\"/g, '"'));
  });
});

describe("run --try: whether --interval was typed", () => {
  it("says so, whatever its value: the trials choose their own only when it was not", () => {
    const at = (args: string[]) => parseCLI(["run", ...args, "--", "python3", "x.py"]);
    expect(at(["--try", "trim"])).toMatchObject({ kind: "run", interval: 1, intervalGiven: false });
    expect(at(["--try", "trim", "--interval", "1s"])).toMatchObject({ interval: 1, intervalGiven: true });
    expect(at(["-i", "500ms", "--try", "trim"])).toMatchObject({ interval: 0.5, intervalGiven: true });
  });
});
