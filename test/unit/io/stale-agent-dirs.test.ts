/**
 * A memleak killed with SIGKILL leaves its agent directory (and socket) in the temp dir: the next one removes those
 * whose memleak is gone, and only those.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { removeStaleAgentDirs } from "../../../src/agent/channel.js";

describe("stale agent directories", () => {
  it("removes a dead memleak's, keeps a live one's and anything else", () => {
    const dir = mkdtempSync(`${tmpdir()}/memleak-stale-`);
    const dead = Number(execFileSync("sh", ["-c", "echo $$"], { encoding: "utf8" }).trim()); // exited by now
    for (const name of [`memleak-agent-${dead}-aaaaaa`, `memleak-agent-${process.pid}-bbbbbb`, "memleak-agent-1-cccccc", "memleak-agent-xyz", "other"]) {
      mkdirSync(`${dir}/${name}`);
    }
    removeStaleAgentDirs(dir);
    expect(readdirSync(dir).sort()).toEqual([`memleak-agent-${process.pid}-bbbbbb`, "memleak-agent-1-cccccc", "memleak-agent-xyz", "other"].sort());
  });

  it("a missing temp dir is not an error", () => {
    expect(() => removeStaleAgentDirs("/nonexistent-memleak-dir")).not.toThrow();
    expect(existsSync("/nonexistent-memleak-dir")).toBe(false);
  });
});
