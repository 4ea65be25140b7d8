/**
 * A tree's or cgroup's leak that the processes in it, every one judged stable, account for is no leak: both are the
 * same growth, judged twice against floors a few percent apart. kept.py's fixed running loss under `run` for 20 s
 * (CI on ec3431e): its process rose ~2.3 MiB as torch settled, under its 2.34 MiB floor (stable; it levelled off in a
 * 90 s run), and the run's cgroup by that and a little more, 120 → 123 MiB, past its own floor: "the cgroup grows at
 * 165 KiB/s", a leak heading a steady job's verdict and failing `--fail-on leak`.
 */
import type { JudgedFinding } from "./judgement.js";
import { minGrowth } from "./growth-floor.js";
import { phrase } from "./phrases.js";

/**
 * What a tree's or cgroup's finding claims grew, or, for a cgroup, the usage's level change where that is more: found
 * on the lows under swings, a cgroup's growth can be +15 MiB while its tenths' medians fell 1.3 MiB (a watched GC-churn
 * program), or +66 MiB while they fell 36 MiB, and the smaller figure taken alone leaves the finding standing where the
 * processes (explainBacklogs, explainedByStable) or the outsiders (markOutside) account for it.
 */
export function claimedGrowth(f: JudgedFinding): number {
  return Math.max(
    Number(f.evidence.growth ?? 0),
    Number((f.subject.type === "cgroup" ? f.evidence.usageGrowth : undefined) ?? -Infinity),
  );
}

/**
 * @param grownBy a process finding's growth over the tree's and the cgroup's window (not its own, which starts after
 *        its start-up), or undefined for a process gone before the run's end, whose memory is no longer charged.
 *
 * Only where the processes' growth together is under the floor, when there are several: workers that each grow under
 * their own floor can add up to a leak shared out, which is the tree's and the cgroup's to say. And only where what the group adds beyond its
 * processes (kernel memory, page cache, processes too short-lived to judge) is under the floor too. Not a cgroup shared
 * with processes outside the watched tree (markOutside says whose its growth is), nor growth in shared memory.
 */
export function explainedByStable(
  findings: JudgedFinding[],
  grownBy: (f: JudgedFinding) => number | undefined,
): JudgedFinding[] {
  const processes = findings.filter((f) => f.subject.type === "process");
  if (processes.length === 0 || processes.some((p) => p.kind !== "stable")) return findings;
  const alive = processes.flatMap((p) => {
    const g = grownBy(p);
    return g === undefined ? [] : [{ p, growth: Math.max(0, g) }];
  });
  if (alive.length === 0) return findings;
  const grown = alive.reduce((sum, a) => sum + a.growth, 0);
  const pids = alive.map((a) => a.p.pid).join(", ");
  return findings.map((f) => {
    if (f.subject.type === "process" || f.subject.type === "gpu" || f.kind !== "leak") return f;
    if (f.evidence.growthIn === "shmem" || Number(f.evidence.otherProcessesInCgroup ?? 0) > 0) return f;
    const floor = minGrowth(Number(f.evidence.start ?? 0));
    const growth = claimedGrowth(f);
    // One process is no leak shared out: its own finding judged the same growth over the same window (a fixed
    // training loop's anon +3.0 MiB, its trend's slope under the floor's by 5%, stable, while the cgroup's +3.1 MiB
    // passed its own by 4%: a leak heading a steady job's verdict, kept-alive.test's logits fixed at a first try).
    const sharedOut = alive.length > 1;
    if (!((grown < floor || !sharedOut) && growth - grown < floor)) return f;
    const subject = f.subject.type === "tree" ? ("tree" as const) : ("cgroup" as const);
    return {
      ...f,
      kind: "stable",
      // As sure as the least sure of the processes: theirs is the judgement taken.
      confidence: Math.min(...alive.map((a) => a.p.confidence)),
      summary: phrase("reconcile.stable", { subject, growth, grown, pids, floor }),
      advice: alive[0]!.p.advice,
      // The early call's caveat is a leak's: no part of a stable finding.
      caveats: f.caveats.filter((c) => c.say !== "leak.early"),
      evidence: { ...f.evidence, explainedByPids: pids },
    };
  });
}
