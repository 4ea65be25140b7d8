import { existsSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { tempDir } from "./temp.js";
import setup from "../global-setup.js";

describe("the suite's temp directory", () => {
  it("is one directory per run (test/global-setup.ts), inherited through TMPDIR, which tempDir uses", () => {
    expect(process.env.TMPDIR).toMatch(/\/memleak-tests-\d+$/);
    expect(tmpdir()).toBe(process.env.TMPDIR);
    expect(tempDir("x").startsWith(`${process.env.TMPDIR}/memleak-x-`)).toBe(true);
  });

  it("a run removes the directories of interrupted runs (their process gone), not those of runs still going", () => {
    const base = tmpdir();
    mkdirSync(`${base}/memleak-tests-999999999/memleak-agent-1-x`, { recursive: true }); // no such pid
    mkdirSync(`${base}/memleak-tests-1`); // init: alive
    const saved = process.env.TMPDIR;
    try {
      const teardown = setup();
      expect(process.env.TMPDIR).toBe(`${base}/memleak-tests-${process.pid}`);
      expect(existsSync(`${base}/memleak-tests-999999999`)).toBe(false);
      expect(existsSync(`${base}/memleak-tests-1`)).toBe(true);
      teardown();
      expect(existsSync(`${base}/memleak-tests-${process.pid}`)).toBe(false);
    } finally {
      process.env.TMPDIR = saved;
    }
  });
});
