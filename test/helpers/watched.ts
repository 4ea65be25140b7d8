/**
 * Targets for `watch` tests: real Python programs started by the test, not by memleak, the way a user's service runs
 * before anyone thinks of memleak. And what such a target holds of memleak's: threads named by the agent, sockets.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { REPO } from "./fixtures.js";
import { startReady, type Started } from "./processes.js";

/** A scenario script (fixtures/scenarios) started outside memleak; resolves once it runs (or once `ready` is printed). */
export function startScenario(script: string, seconds: number, ready = /^ready$/m, python = "python3"): Promise<Started> {
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
