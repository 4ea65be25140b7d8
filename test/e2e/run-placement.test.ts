/**
 * `run`'s agents where they tell something (issue 49, session/run-agents.ts): a service's parent and 16 forked workers
 * (bench/py/idle_tree_one_leaks.py) launched under `run`; each worker's agent sleeps from its fork, unconnected and
 * with no thread, memleak wakes the one that speaks for the group with the wake signal, and the last worker, once it
 * starts to leak, has its agent woken too, which names what holds the leak. The sleeping workers run no thread of
 * memleak's (read from /proc by the test while the run goes on).
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { VerdictDocument } from "../../src/analysis/types.js";
import { REPO } from "../helpers/fixtures.js";
import { memleak } from "../helpers/processes.js";

/** The agent's thread in pid (named memleak-agent by prctl): its voluntary context switches; undefined if none. */
function agentWakeups(pid: number): number | undefined {
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      if (readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim() !== "memleak-agent") continue;
      const status = readFileSync(`/proc/${pid}/task/${tid}/status`, "utf8");
      return Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(status)![1]);
    }
  } catch {
    /* gone */
  }
  return undefined;
}

/** The children of pid (from /proc/PID/task/TID/children). */
function children(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((t) =>
    readFileSync(`/proc/${pid}/task/${t}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number),
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("run: the agents that tell nothing sleep", { timeout: 180_000 }, () => {
  it("16 idle workers and one that starts to leak: the group's agent and the leaker's report, its holder named; the others asleep, with no thread", async () => {
    let seen = "";
    // 16 workers of 8 MB; the last starts keeping 1 MiB/s 20 s after "ready"; the program ends 55 s after "ready".
    const running = memleak(
      ["run", "--json", "--", "python3", `${REPO}bench/py/idle_tree_one_leaks.py`, "16", "8", "20", "55"],
      {},
      (text) => (seen += text),
    );
    for (let i = 0; i < 600 && !/^ready$/m.test(seen); i++) await sleep(100);
    const program = Number(/\(PID (\d+)\)/.exec(seen)?.[1]);
    // The group's agent has been woken by 9 s after ready; the leak starts at 20 s: between 9 and 17 s only the
    // group's agent runs a thread and wakes (its interval), the 15 others (the leaker-to-be among them) have none.
    await sleep(9_000);
    const pids = children(program);
    expect(pids, seen).toHaveLength(16);
    const first = new Map(pids.map((p) => [p, agentWakeups(p)]));
    await sleep(8_000);
    const withThread = pids.filter((p) => first.get(p) !== undefined);
    // the pids first: a retried failure keeps only the message's first 400 characters
    expect(withThread, `agent threads in: ${withThread.join(", ")} of ${pids.join(", ")}\n${seen}`).toHaveLength(1);
    expect(agentWakeups(withThread[0]!), seen).toBeGreaterThan(first.get(withThread[0]!)!);
    const woke = withThread;

    const r = await running;
    const doc = JSON.parse(r.stdout) as VerdictDocument;
    const shown = `${r.stderr}\n${JSON.stringify(doc.sampling?.agents)}`;
    expect(r.code, shown).toBe(0);
    const leaker = Number(/leaking worker: (\d+)/.exec(r.stderr)?.[1]);
    const reasons = Object.fromEntries((doc.sampling?.agents?.in ?? []).map((a) => [a.pid, a.reason]));
    expect(reasons, shown).toEqual({ [program]: "watched", [leaker]: "grows", [woke[0]!]: "represents" });
    expect(doc.sampling?.agents?.readFromProc, shown).toBe(14);
    expect(r.stderr).toMatch(
      /agents report from 2 of 17 Python processes: PID \d+ \(watched\), PID \d+ \(for 16 siblings\); the other 15 quiet, read from \/proc \(--max-agents 4\)/,
    );
    expect(r.stderr).toMatch(new RegExp(`agent in PID ${leaker} \\(python3\\) reports: `));

    // the leaker: a leak, held by the list its module keeps; the quiet ones say why they had no agent
    expect(doc.verdict, shown).toMatchObject({ kind: "leak", pid: leaker });
    expect(doc.verdict.holder, shown).toMatchObject({ found: true, path: "__main__.cache" });
    const quiet = doc.findings.filter((f) => f.subject.type === "process" && f.evidence.agentMissingReason);
    const each = doc.findings
      .filter((f) => f.subject.type === "process")
      .map(
        (f) =>
          `${f.subject.type === "process" ? f.subject.pid : ""} ${f.kind}${f.evidence.agentMissingReason ? "" : " (agent)"}`,
      );
    expect(quiet, `${each.join(", ")}\n${shown}`).toHaveLength(14);
    for (const f of quiet)
      expect(String(f.evidence.agentMissingReason)).toMatch(
        /^read from \/proc only: an idle sibling of PID \d+ \(same parent and command\), whose agent speaks for them/,
      );
  });
});
