import { describe, expect, it } from "vitest";
import { parseCLI } from "../../src/cli/parse.js";

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
});
