/**
 * A memleak killed with SIGKILL leaves its agent directory (and socket) in the temp dir: the next one removes those
 * whose memleak is gone, and only those.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { removeStaleAgentDirs } from "../../../src/agent/channel.js";
import { tempDir } from "../../helpers/temp.js";

describe("stale agent directories", () => {
  it("removes a dead memleak's, keeps a live one's and anything else", async () => {
    const dir = tempDir("stale");
    const dead = Number(execFileSync("sh", ["-c", "echo $$"], { encoding: "utf8" }).trim()); // exited by now
    for (const name of [
      `memleak-agent-${dead}-aaaaaa`,
      `memleak-agent-${process.pid}-bbbbbb`,
      "memleak-agent-1-cccccc",
      "memleak-agent-xyz",
      "other",
    ]) {
      mkdirSync(`${dir}/${name}`);
    }
    await removeStaleAgentDirs(dir);
    expect(readdirSync(dir).sort()).toEqual(
      [`memleak-agent-${process.pid}-bbbbbb`, "memleak-agent-1-cccccc", "memleak-agent-xyz", "other"].sort(),
    );
  });

  it("a dead pid's directory whose socket still answers (a memleak in another container, same /tmp) is kept", async () => {
    const dir = tempDir("stale");
    const dead = Number(execFileSync("sh", ["-c", "echo $$"], { encoding: "utf8" }).trim());
    const live = `${dir}/memleak-agent-${dead}-dddddd`;
    mkdirSync(live);
    const server = createServer(() => {}).listen(`${live}/agent.sock`);
    await new Promise((r) => server.once("listening", r));
    await removeStaleAgentDirs(dir);
    expect(existsSync(live)).toBe(true);
    server.close();
    await removeStaleAgentDirs(dir);
    expect(existsSync(live)).toBe(false);
  });

  it("a missing temp dir is not an error", async () => {
    await expect(removeStaleAgentDirs("/nonexistent-memleak-dir")).resolves.toBeUndefined();
    expect(existsSync("/nonexistent-memleak-dir")).toBe(false);
  });
});
