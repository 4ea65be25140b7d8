/**
 * Targets for `watch` tests: real Python programs started by the test, not by memleak, the way a user's service runs
 * before anyone thinks of memleak. And what such a target holds of memleak's: threads named by the agent, sockets.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { expect } from "vitest";
import type { VerdictDocument } from "../../src/analysis/types.js";
import { REPO } from "./fixtures.js";
import { startReady, type Started } from "./processes.js";

/** A scenario script (fixtures/scenarios) started outside memleak; resolves once it runs (or once `ready` is printed). */
export function startScenario(
  script: string,
  seconds: number,
  ready = /^ready$/m,
  python = "python3",
): Promise<Started> {
  const path = `${REPO}fixtures/scenarios/${script}.py`;
  const boot = `import runpy, sys; sys.argv = [${JSON.stringify(path)}, "${seconds}"]; print("ready", flush=True); runpy.run_path(sys.argv[0], run_name="__main__")`;
  return startReady([python, "-u", "-c", boot], ready);
}

/** Native thread names (the agent names its thread memleak-agent). */
export function threadNames(pid: number): string[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => {
    try {
      return readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim();
    } catch {
      return "";
    }
  });
}

export function socketCount(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).filter((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith("socket:");
    } catch {
      return false;
    }
  }).length;
}

export const alive = (pid: number) => {
  try {
    return !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
  } catch {
    return false;
  }
};

/** Polls until `check` holds or `ms` pass; returns whether it held. */
export async function eventually(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}

/**
 * The live processes whose command line contains `text`, read from /proc (this test's own process left out). Unlike
 * `pgrep`, whose exit status 1 means "none" but whose other failures (not installed, killed) look the same to a
 * caller that catches, this throws when it cannot look: an empty answer means nothing was found.
 */
export function processesMatching(text: string): number[] {
  const pids = readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map(Number);
  if (!pids.includes(process.pid)) throw new Error("/proc does not list this process: cannot look for others");
  return pids.filter((pid) => {
    if (pid === process.pid || !alive(pid)) return false;
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").includes(text);
    } catch {
      return false; // gone between the listing and the read
    }
  });
}

/** The children of `pid` (from /proc/PID/task/PID/children; throws when the process cannot be read). */
export function childrenOf(pid: number): number[] {
  const text = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
  return text === "" ? [] : text.split(/\s+/).map(Number);
}

/**
 * The layer a growing dict_cache_leak.py is named in: Python objects, held by its module dict RESPONSES (its ~5 KB
 * strings are malloc'd, over pymalloc's 512 bytes, but what holds them is the dict the agent's census follows).
 */
export function expectDictCacheLayer(doc: VerdictDocument): void {
  const evidence = JSON.stringify({ ...doc.verdict, advice: undefined });
  expect(doc.verdict.evidence.layer, evidence).toBe("Python objects");
  expect(doc.verdict.holder?.path, evidence).toMatch(/RESPONSES/);
}
