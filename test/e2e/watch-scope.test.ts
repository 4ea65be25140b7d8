/**
 * `watch` of a tree that is not one job (issue 48 item 6): PID 1 on a host, or a program whose children run in
 * another session. memleak says what it would touch and needs --all before it loads its agent anywhere; --no-inject
 * reads /proc only and needs nothing; a process of another session that joins the tree later gets no agent.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { VerdictDocument } from "../../src/analysis/types.js";
import { memleak, sleepersInOwnSessions, startReady, type Started } from "../helpers/processes.js";
import { REPO } from "../helpers/fixtures.js";
import { childrenOf } from "../helpers/watched.js";

const started: Started[] = [];
/** The parents' children: the one in a session of its own is not in the parent's process group, which stop() ends. */
const children: number[] = [];
afterAll(async () => {
  for (const s of started) await s.stop();
  for (const pid of children) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      /* gone */
    }
  }
});

/**
 * A Python parent whose two children sleep: one in its session at once ("ready PID"), one in a session of its own
 * (setsid) `delay` seconds later ("other PID").
 */
const PARENT = (delay: number) => `
import subprocess, sys, time
same = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
print("ready", same.pid, flush=True)
time.sleep(${delay})
other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"], start_new_session=True)
print("other", other.pid, flush=True)
time.sleep(120)
`;

/** Started; resolves at "ready" when the other child comes later, else once it is there too. */
async function parent(delay: number) {
  const s = await startReady(["python3", "-c", PARENT(delay)], delay > 0 ? /^ready \d+$/m : /^other \d+$/m);
  started.push(s);
  const pidAfter = (word: string) => {
    const pid = Number(new RegExp(`^${word} (\\d+)$`, "m").exec(s.output())?.[1]);
    if (pid > 0) children.push(pid);
    return pid;
  };
  return { root: s.pid, same: pidAfter("ready"), other: () => pidAfter("other") };
}

describe.concurrent("watch: only one job gets the agent unless --all", { timeout: 120_000 }, () => {
  it("PID 1: refused in a few lines, exit 2, before anything is attached; nothing written to stdout", async () => {
    // One process in a session of its own under PID 1 whatever else runs (a clean CI machine may have none).
    const stopSleepers = sleepersInOwnSessions(1);
    const r = await memleak(["watch", "1", "--duration", "2s"]).finally(stopSleepers);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /^memleak: PID 1 \(\S+\) and its descendants are not one job: \d+ processes in \d+ sessions/,
    );
    expect(r.stderr).toContain("--no-inject  read /proc and the cgroup only, no agent anywhere");
    expect(r.stderr).toContain("--all        load the agent into every Python of this tree, whoever started it");
    expect(r.stderr).not.toMatch(/agent attached|sampling/);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(r.stdout).toBe("");
  });

  it("PID 1 with --no-inject: watched from /proc, no agent, a verdict", async () => {
    const r = await memleak(["watch", "1", "--no-inject", "--duration", "3s", "--interval", "1", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as VerdictDocument).target.pid).toBe(1);
    expect(r.stderr).not.toMatch(/agent attached|not one job/);
  });

  it("--all with --no-inject is a usage error", async () => {
    const r = await memleak(["watch", "1", "--all", "--no-inject"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^memleak: --all chooses where the agent goes: drop it or --no-inject$/m);
  });

  it("a child in a session of its own: refused, naming it; with --all both Pythons get the agent", async () => {
    const { root, same, other: otherPid } = await parent(0);
    const other = otherPid();
    const refused = await memleak(["watch", String(root), "--duration", "2s"]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(
      `PID ${root} (python3) and its descendants are not one job: 3 processes in 2 sessions`,
    );
    expect(refused.stderr).toContain(`such as ${other} (python3)`);

    const r = await memleak(["watch", String(root), "--all", "--duration", "12s", "--interval", "0.5", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    for (const pid of [root, same, other]) expect(r.stderr).toContain(`agent attached to PID ${pid} `);
  });

  it("a child that starts a session of its own after the watch began gets no agent, and memleak says why", async () => {
    const { root, same, other: otherPid } = await parent(8);
    // The watch begins on the parent and its first child; the second comes 8 s later.
    const r = await memleak(["watch", String(root), "--duration", "16s", "--interval", "0.5", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const other = otherPid();
    expect(other).toBeGreaterThan(0);
    expect(r.stderr).toContain(`agent attached to PID ${root} `);
    expect(r.stderr).toContain(`agent attached to PID ${same} `);
    expect(r.stderr).toContain(
      `no agent in PID ${other} (python3): another session than PID ${root}'s, another job's (--all loads the agent there too)`,
    );
    expect(r.stderr).not.toContain(`agent attached to PID ${other} `);
  });

  it("a watch too short for every injection says which Pythons never got their turn", async () => {
    // A parent and 15 forked workers, asleep; one injection at a time, 0.8-3 s each (0.8 s on a quiet fast machine,
    // where 6 Pythons were all reached in 6 s): a 6 s watch reaches at most about 7 of 16 whatever the machine.
    const target = await startReady(["python3", `${REPO}bench/py/small_tree.py`, "15", "4"], /^ready$/m);
    started.push(target);
    const pythons = [target.pid, ...childrenOf(target.pid)];
    expect(pythons).toHaveLength(16);
    // --max-agents 16: a tree no larger than the limit has an agent wanted in each (the default puts two in this one).
    const r = await memleak([
      "watch",
      String(target.pid),
      "--duration",
      "6s",
      "--interval",
      "0.5",
      "--json",
      "--max-agents",
      "16",
    ]);
    expect(r.code, r.stderr).toBe(0);
    // Each of the sixteen is said: attached, or never got its turn.
    const attached = pythons.filter((pid) => r.stderr.includes(`agent attached to PID ${pid} `));
    const waiting = pythons.filter((pid) => new RegExp(`no agent in PID ${pid} \\(python3\\): `).test(r.stderr));
    expect(attached.length + waiting.length, r.stderr).toBe(16);
    expect(waiting.length, r.stderr).toBeGreaterThan(0);
    expect((JSON.parse(r.stdout) as VerdictDocument).sampling?.agents?.readFromProc).toBe(0);
    expect(r.stderr).toContain(
      "the watch ended before its turn (one injection at a time); it was watched from outside",
    );
  });
});
