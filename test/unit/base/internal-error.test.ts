import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { reportInternalError } from "../../../src/base/internal-error.js";
import { tempDir } from "../../helpers/temp.js";

describe("an internal error", () => {
  it("is one line on stderr naming the file that holds the stack, the version and the arguments", () => {
    const dir = tempDir("crash");
    const err = new TypeError("cannot read properties of undefined (reading 'anon')\nsecond line");
    const out = reportInternalError(err, ["run", "--", "python3", "x.py"], undefined, dir, new Date(0));
    expect(out).not.toMatch(/\n\s+at /);
    expect(out.trimEnd().split("\n")).toHaveLength(2);
    expect(out).toMatch(
      /^memleak: internal error \(a bug in memleak\): cannot read properties of undefined \(reading 'anon'\)\n/,
    );
    const path = /details written to (\S+);/.exec(out)![1]!;
    expect(path.startsWith(dir)).toBe(true);
    const details = readFileSync(path, "utf8");
    expect(details).toContain('argv: ["run","--","python3","x.py"]');
    expect(details).toContain(err.stack!);
  });

  it("prints the stack after all when the details cannot be written, so the report is not lost", () => {
    const out = reportInternalError(new Error("boom"), [], () => {
      throw new Error("EROFS");
    });
    expect(out).toMatch(/^memleak: internal error \(a bug in memleak; please report it\): Error: boom\n\s+at /);
  });

  it("escapes control characters in the message's line", () => {
    const out = reportInternalError(new Error("bad \u001b[2J name"), [], () => {});
    expect(out).not.toContain("\u001b");
    expect(out).toContain("\\x1b[2J");
  });
});
