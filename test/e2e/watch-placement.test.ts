/**
 * `watch` puts its agents where they tell something (issue 49, analysis/agent-placement.ts): on a service's tree of
 * a parent and 16 idle forked workers (bench/py/idle_tree_one_leaks.py), at most 2 agents: the watched parent and one worker
 * for the group get one, the others are read from /proc only, each saying why; when one worker starts to leak, it gets
 * its own agent, which names what holds the leak, and the group's agent, whose slot it took, leaves its process. Σ PSS of the tree is
 * read from /proc by the test, not from memleak.
 */
import { readdirSync, readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import type { VerdictDocument } from "../../src/analysis/types.js";
import { REPO } from "../helpers/fixtures.js";
import { memleak, startReady, type Started } from "../helpers/processes.js";

const MiB = 2 ** 20;
const started: Started[] = [];
afterAll(async () => {
  for (const s of started) await s.stop();
});

/** The pids of the tree under `root`, root included (children from /proc/PID/task/TID/children). */
function tree(root: number): number[] {
  const out = [root];
  for (let i = 0; i < out.length; i++) {
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${out[i]}/task`);
    } catch {
      continue;
    }
    for (const t of tasks) {
      try {
        const kids = readFileSync(`/proc/${out[i]}/task/${t}/children`, "utf8").trim();
        if (kids) out.push(...kids.split(/\s+/).map(Number));
      } catch {
        /* gone */
      }
    }
  }
  return out;
}

/** Pss of one process from smaps_rollup, bytes (0 when it is gone). */
function pss(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Whether a thread named by the agent (memleak_lifecycle.py: PR_SET_NAME "memleak-agent") runs in pid. */
function agentThread(pid: number): boolean {
  try {
    return readdirSync(`/proc/${pid}/task`).some((t) => {
      try {
        return readFileSync(`/proc/${pid}/task/${t}/comm`, "utf8").trim() === "memleak-agent";
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("watch: agents where they tell something", { timeout: 180_000 }, () => {
  it("16 idle workers and one that starts to leak: agents in the parent and one for the group, then the leaker in the group's slot, its holder named; the rest from /proc", async () => {
    // The leak starts 20 s after ready, in the last worker forked (not the one that speaks for the group): by then the
    // two first agents are in (lldb or gdb, one at a time, 1-5 s each), and the leaker has to take a slot.
    const target = await startReady(
      ["python3", `${REPO}bench/py/idle_tree_one_leaks.py`, "16", "8", "20"],
      /^ready$/m,
      1,
      60_000,
    );
    started.push(target);
    const pids = tree(target.pid);
    expect(pids).toHaveLength(17);
    const before = new Map(pids.map((p) => [p, pss(p)]));
    const run = memleak(["watch", String(target.pid), "--duration", "60", "--max-agents", "2", "--json"]);
    // Σ PSS of the tree 50 s in (the agents are in, the leak 30 s old), the leaker left out (its agent cannot be told
    // from its leak): what memleak's other agents added to the tree.
    await sleep(50_000);
    const leaker = Number(/leaking worker: (\d+)/.exec(target.output())?.[1]);
    const added = pids.filter((p) => p !== leaker).reduce((s, p) => s + pss(p) - before.get(p)!, 0);
    const r = await run;
    const doc = JSON.parse(r.stdout) as VerdictDocument;
    const shown = `${r.stderr}\n${JSON.stringify(doc.sampling?.agents)}`;

    // where the agents were at the end, and why
    const agents = doc.sampling?.agents;
    expect(agents?.max, shown).toBe(2);
    const reasons = Object.fromEntries((agents?.in ?? []).map((a) => [a.pid, a.reason]));
    expect(reasons[target.pid], shown).toBe("watched");
    expect(reasons[leaker], shown).toBe("grows");
    expect(agents?.in, shown).toHaveLength(2);
    // the other workers read from /proc only, each with why: 17 Pythons, 2 agents, the released one not counted
    expect(agents?.readFromProc, shown).toBe(14);
    expect(r.stderr).toMatch(/agents in 2 of 17 Python processes: PID \d+ \(watched\), PID \d+ \(for 16 siblings\)/);
    const idle = doc.findings.filter(
      (f) => f.subject.type === "process" && f.evidence.agentMissingReason !== undefined,
    );
    expect(idle.length, shown).toBe(agents!.readFromProc);
    for (const f of idle)
      expect(String(f.evidence.agentMissingReason)).toMatch(
        /^read from \/proc only: an idle sibling of PID \d+ \(same parent and command\)/,
      );

    // the leaker: a leak, held by the list its module keeps
    const leak = doc.findings.find((f) => f.subject.type === "process" && f.subject.pid === leaker);
    expect(leak?.kind, shown).toBe("leak");
    expect(leak?.holder, shown).toMatchObject({ found: true, path: "__main__.cache" });

    // a slot taken: the group's agent was released and left its process (no thread of ours)
    const released = [...r.stderr.matchAll(/agent released from PID (\d+)/g)].map((m) => Number(m[1]));
    expect(released, r.stderr).toHaveLength(1);
    expect(r.stderr).toMatch(
      /agent released from PID \d+ \(python3\): over the limit of 2 agents at once \(--max-agents\)/,
    );
    for (const pid of released) expect(agentThread(pid), `PID ${pid}`).toBe(false);
    // Its leaker stopped here, not at the file's end: the next test watches a tree in the same cgroup.
    await target.stop();

    // What the agents added to the tree (the leaker's left out): the parent's ~3.3 MiB and the group's ~3.7 MiB, which
    // stays after its agent is released (the pages it copied stay private), 2026-12-03, lldb, CPython 3.11. An agent in
    // each of the 16 would have added ~60 MiB; issue 49 asks 10 MiB for all agents.
    console.log(`Σ PSS of the 16 processes but the leaker: +${(added / MiB).toFixed(1)} MiB with memleak's agents in`);
    expect(added / MiB, shown).toBeLessThan(10);
  });

  it("a group of 12 identical workers, one of which diverges to a level: it gets its own agent and is a plateau, no leak; the group's agent stays", async () => {
    // The last worker takes 48 MiB more 12 s after ready and is idle again (KIND "once"): its group's agent no longer
    // speaks for it. The tick after its jump it is "larger" than its siblings (the line says so, once the places hold
    // for two ticks); once a whole block of its lows stands above the older ones (5-9 readings), it "grows", which it
    // still does at the end, within the minute. It is the plateau it is, and nothing leaks.
    const target = await startReady(
      ["python3", `${REPO}bench/py/idle_tree_one_leaks.py`, "12", "8", "12", "0", "once"],
      /^ready$/m,
      1,
      60_000,
    );
    started.push(target);
    const r = await memleak([
      "watch",
      String(target.pid),
      "--duration",
      "45",
      "--max-agents",
      "3",
      "--fail-on",
      "leak",
      "--json",
    ]);
    const doc = JSON.parse(r.stdout) as VerdictDocument;
    const shown = `${r.stderr}\n${JSON.stringify(doc.sampling?.agents)}`;
    expect(r.code, shown).toBe(0);
    const diverged = Number(/diverging worker: (\d+)/.exec(target.output())?.[1]);
    expect(diverged).toBeGreaterThan(0);

    const reasons = Object.fromEntries((doc.sampling?.agents?.in ?? []).map((a) => [a.pid, a.reason]));
    const speaker = Number(Object.keys(reasons).find((p) => reasons[Number(p)] === "represents"));
    expect(reasons, shown).toEqual({ [target.pid]: "watched", [diverged]: "grows", [speaker]: "represents" });
    expect(speaker).not.toBe(diverged);
    expect(doc.sampling?.agents?.readFromProc, shown).toBe(10);
    expect(r.stderr).not.toMatch(/agent released/);
    expect(r.stderr).toMatch(
      new RegExp(
        `agents in 3 of 13 Python processes: .*PID ${diverged} \\(larger than its 11 siblings\\).*; the other 10 read from /proc`,
      ),
    );

    // its verdict: a plateau (one step of ~48 MiB, then flat), not a leak; nothing of the watched tree leaks (the
    // cgroup is this machine's, shared with whatever else runs: growth it has outside the tree is said as such)
    const own = doc.findings.find((f) => f.subject.type === "process" && f.subject.pid === diverged);
    expect(own?.kind, shown).toBe("plateau");
    expect(
      doc.findings.filter((f) => f.kind === "leak" && !f.outsideWatchedTree).map((f) => f.summary),
      shown,
    ).toEqual([]);
  });
});
