/**
 * Series → findings → verdict. Each subject gets one finding from its own rule chain (signals/*.ts); then findings
 * that explain each other are reconciled, and the verdict is the most serious finding.
 *
 *   1. each process that lived long enough to judge (the root always)      → signals/process.ts
 *   2. the tree as a whole, when there was more than one process           → signals/tree.ts
 *   3. the memory cgroup                                                   → signals/cgroup.ts
 *   4. reconcile: tree/cgroup growth that copy-on-write in the workers explains is `cow`, not a leak; that stable
 *      processes account for is stable (stable-explains.ts)
 *   4b. each process's memory on each CUDA device it used                 → signals/gpu.ts
 *   5. verdict: highest SEVERITY; ties go to the most specific subject (process, then tree, then cgroup), a copying
 *      worker before its parent, then to the higher confidence
 * What each finding says is facts (phrases.ts): report/wording/ words them, and report/verdict.ts `classify` is the
 * document users see.
 */
import { safeText } from "../base/safe-text.js";
import { shortCommand } from "../base/command-text.js";
import { endLevel, levelChange, levelPoints, minGrowth } from "./assess.js";
import { processKey } from "../sampling/process-key.js";
import { tooShortForShapes } from "../series/enough-samples.js";
import { calibrateFindings } from "./calibration.js";
import { earlyCaveat } from "./evidence.js";
import { DEFAULT_ALPHA as GROWS_P } from "./stats/trend.js";
import { warmupFor, type AnalysisOptions, type Context } from "./context.js";
import type { ProcessSeries, SeriesSet } from "../series/series.js";
import { analyzeCgroup } from "./signals/cgroup.js";
import { claimedGrowth, explainedByStable } from "./stable-explains.js";
import { analyzeProcess, processSubject } from "./signals/process.js";
import { analyzeTree } from "./signals/tree.js";
import { copying } from "./signals/cow.js";
import { putCopied } from "./signals/copied.js";
import { ownArrivals } from "./signals/own-footprint.js";
import { backlogOf, type BacklogJudgement } from "./signals/gc-backlog.js";
import { lowsChange } from "./signals/live-heap.js";
import { sliceByTime } from "./stats/window.js";
import { judgeGpus } from "./signals/gpu.js";
import { SEVERITY, type AnalysisWindow, type Finding, type VerdictDocument } from "./types.js";
import type { JudgedFinding, Judgement } from "./judgement.js";
import { phrase, type LeakPart, type Phrase } from "./phrases.js";
import { withTimeToLimit } from "./limit-countdowns.js";
import type { AgentResults } from "./context.js";

export interface ClassifyInput {
  set: SeriesSet;
  options: AnalysisOptions;
  /** Command lines by pid (from the sampler or the recording), for messages. */
  commands?: Map<number, string[]>;
  /**
   * `others`: pids in the cgroup outside the watched tree, whose memory the cgroup's numbers include;
   * `othersAnonGrowth`: how much their resident anon memory grew over the watch (those whose /proc was readable).
   */
  cgroup?: { path: string; version: 1 | 2; others?: number[]; othersAnonGrowth?: number | undefined } | undefined;
  /** `watch`: processes the agent could not be loaded into, and why. */
  agentMissing?: Map<number, string> | undefined;
  target: VerdictDocument["target"];
  /** End-of-run results from the in-process agent, by pid. */
  agentResults?: AgentResults | undefined;
}

const SUBJECT_ORDER = { process: 0, gpu: 1, tree: 2, cgroup: 3 } as const;

/**
 * Of a parent and its forked worker both judged copy-on-write, the worker first: a page the worker writes is copied
 * for it, and the parent's original, no longer shared, turns private to the parent, so the parent's USS rises by what
 * its worker copies (a worker writing 122 MiB of its parent's array: parent 19 → 121 MiB, worker 12 → 115 MiB, the
 * same confidence and slope). The worker is the one that copies, and the one whose agent says what it copied.
 */
function copierFirst(a: Pick<Finding, "kind" | "subject">, b: Pick<Finding, "kind" | "subject">): number {
  if (a.kind !== "cow" || b.kind !== "cow" || a.subject.type !== "process" || b.subject.type !== "process") return 0;
  if (a.subject.ppid === b.subject.pid) return -1;
  if (b.subject.ppid === a.subject.pid) return 1;
  return 0;
}

/**
 * Of two findings of one kind, the one that says what a forked worker had copied before memleak first read it first,
 * and of those the one whose look named the data: a pool whose workers each copied 51 MiB of their parent's dict in
 * their first second is flat from then on — stable, parent and workers alike — and the parent's "stable" said nothing
 * of the 204 MiB its workers hold (signals/copied.ts putCopiedBefore).
 */
function copiedBeforeFirst(a: Ranked, b: Ranked): number {
  const says = (f: Ranked) => (f.evidence?.copiedBeforeBytes === undefined ? 0 : f.copied ? 2 : 1);
  return says(b) - says(a);
}

type Ranked = Pick<Finding, "kind" | "subject" | "confidence" | "rawConfidence" | "rate"> &
  Partial<Pick<Finding, "evidence" | "copied">>;

/**
 * Most serious first. Two findings of a kind and a subject type are ordered by the rules' own scores, never the
 * calibrated ones (analysis/calibration.ts): a curve fitted per family must not reorder findings of two families — here
 * in judge, or where verdicts of several sessions or series are ranked after calibration (prometheus/verdicts.ts,
 * report/terminal/series-verdicts.ts).
 */
export function compareFindings(a: Ranked, b: Ranked): number {
  return (
    SEVERITY[b.kind] - SEVERITY[a.kind] ||
    SUBJECT_ORDER[a.subject.type] - SUBJECT_ORDER[b.subject.type] ||
    copierFirst(a, b) ||
    copiedBeforeFirst(a, b) ||
    (b.rawConfidence ?? b.confidence) - (a.rawConfidence ?? a.confidence) ||
    (b.rate?.bytesPerSecond ?? 0) - (a.rate?.bytesPerSecond ?? 0)
  );
}

function commandText(pid: number, comm: string, commands: Map<number, string[]> | undefined): string {
  const argv = commands?.get(pid);
  // The name comes from the target (or from a recording CI did not make): control characters shown escaped, so a
  // newline in it cannot start a line of its own (a workflow command under GitHub Actions) wherever it is printed.
  if (!argv || argv.length === 0) return safeText(comm);
  const text = safeText(shortCommand({ cmdline: argv, comm }));
  return text.length > 80 ? text.slice(0, 79) + "…" : text;
}

/**
 * Whether a finding of the watched tree (a process, or the tree) says its memory was still growing at the end: a leak,
 * or a state whose metric still grew by a significant trend over the floor (a fragmenting heap whose holes grow, a
 * worker copying pages). A shared cgroup that grows while one of them does is not growing "because of" others only.
 */
function stillGrows(f: JudgedFinding): boolean {
  if (f.subject.type === "cgroup" || f.subject.type === "gpu") return false;
  if (f.kind === "leak") return true;
  if (f.kind !== "fragmentation" && f.kind !== "cow") return false;
  const growth = Number(f.evidence.growth ?? 0);
  return Number(f.evidence.pValue ?? 1) < GROWS_P && growth >= minGrowth(Number(f.evidence.start ?? 0));
}

/** The share of a tree's or cgroup's growth its processes' leaks must reach for it to be said as theirs, no part. */
export const LEAKS_EXPLAIN_ALL = 0.75;

/**
 * A tree or cgroup leak that a process's leak accounts for says which process. With no process leaking, the processes
 * whose own growth explains it (TREE_EXPLAINS of it) are named even though another cause heads their findings: the
 * holes of a fragmenting heap growing, or pages a worker copies — the user is told where the growth is, and that
 * process's finding says why.
 */
function attributeLeaks(findings: JudgedFinding[]): JudgedFinding[] {
  const processes = findings.filter((f) => f.subject.type === "process");
  const leaking = processes.filter((f) => f.kind === "leak");
  const growthOf = (f: JudgedFinding) =>
    Number((f.subject.type === "cgroup" ? f.evidence.usageGrowth : undefined) ?? f.evidence.growth ?? 0);
  /** The processes that explain f's growth, their kind when they share one, and whether they explain all of it. */
  const explaining = (
    f: JudgedFinding,
  ): { pids: string; as?: JudgedFinding["kind"]; all?: JudgedFinding; part?: LeakPart } | undefined => {
    if (leaking.length > 0) {
      // Said as a part where the leaks are well short of the growth: "because PID 5605 grows" stood under a cgroup
      // that others in it grew by 167 MiB of 475 (a helper's trial, two programs' runs sharing the job's cgroup).
      // Against the finding's own growth, the one its summary's "usage A → B" says: a cgroup's usageGrowth is counted
      // from the warm-up's end, before the start-up cut, and came to 199 MiB under "usage 232 MiB → 350 MiB".
      const grown = leaking.reduce((sum, p) => sum + Math.max(0, growthOf(p)), 0);
      const growth = Number(f.evidence.growth ?? 0);
      const part = grown > 0 && grown < LEAKS_EXPLAIN_ALL * growth ? { part: { grown, growth } } : {};
      return { pids: leaking.map((p) => p.pid).join(", "), ...part };
    }
    const growers = processes.filter((p) => p.kind !== "stable" && p.kind !== "insufficient-data" && growthOf(p) > 0);
    const grown = growers.reduce((sum, p) => sum + growthOf(p), 0);
    if (growers.length === 0 || !(grown >= TREE_EXPLAINS * growthOf(f))) return undefined;
    const kinds = [...new Set(growers.map((p) => p.kind))];
    // All of it, within the growth floor: nothing is left for the tree or the cgroup to say besides their finding
    // (the first of them, whose confidence and advice it then takes).
    const all = growthOf(f) - grown < minGrowth(Number(f.evidence.start ?? 0));
    return {
      pids: growers.map((p) => p.pid).join(", "),
      ...(kinds.length === 1 && { as: kinds[0]! }),
      ...(all && { all: growers[0]! }),
    };
  };
  return findings.map((f) => {
    if (f.subject.type === "process" || f.kind !== "leak" || f.evidence.growthIn === "shmem") return f;
    const by = explaining(f);
    if (!by) return f;
    const attributed = {
      ...f,
      summary: phrase("reconcile.attributed", {
        of: f.summary,
        pids: by.pids,
        ...(by.as && { as: by.as }),
        ...(by.part && { part: by.part }),
      }),
      evidence: { ...f.evidence, explainedByPids: by.pids },
    };
    // The holes of fragmenting processes are all of the growth, and no container they keep explains them (that would
    // make those processes leak): the tree's or the cgroup's growth is that retention, not a leak of its own. A burst
    // that took seconds on a busy machine was called a leak of the tree early while its process was fragmentation
    // (ci.test's 8 s burst beside two busy loops).
    if (by.as === "fragmentation" && by.all)
      return { ...attributed, kind: "fragmentation", confidence: by.all.confidence, advice: by.all.advice };
    // The general advice ("no single process explains it") would contradict the evidence that names one.
    const subject = f.subject.type === "tree" ? ("tree" as const) : ("cgroup" as const);
    const advice = f.rate
      ? [
          phrase("advice.leak", {
            variant: "attributed",
            rate: f.rate,
            subject,
            pids: by.pids,
            ...(by.part && { part: by.part }),
          }),
        ]
      : f.advice;
    return { ...attributed, advice };
  });
}

/**
 * Tree or cgroup growth that processes with a garbage backlog (gc-backlog.ts) account for, all but less than the
 * growth floor, is not a leak either: it is undecided while they wait for a full collection, and stable once one gave
 * it back. Judged for every process alive at the end, not only those the rules saw growing: the cgroup's usage can
 * pass the trend test at a look where the process's anon, nearly all of it, just misses it (gc_sawtooth: 22 looks in
 * 10 minutes). Not when any process leaks (that leak explains the growth: attributeLeaks), nor for a cgroup other
 * processes share (what they add is no backlog of the watched tree's: markOutside says whose it is).
 */
function explainBacklogs(
  findings: JudgedFinding[],
  set: SeriesSet,
  from: number,
  newcomers: readonly ProcessSeries[],
): JudgedFinding[] {
  if (findings.some((f) => f.subject.type === "process" && f.kind === "leak")) return findings;
  const settlingSeen = findings.some(undecided) || newcomers.length > 0;
  // Anon that rose to a level by what malloc keeps makes the tree and the cgroup plateau too; with the live heap
  // still rising under it, that level is no verdict (leak_under_temporaries: "plateau 99%" for the tree).
  const keptSeen = findings.some((f) => f.subject.type === "process" && f.evidence.keptTemporaries === true);
  const explainable = (f: JudgedFinding) => explainableGrowth(f, settlingSeen, keptSeen);
  if (!findings.some(explainable)) return findings;
  const onLows = findings.some((f) => explainable(f) && f.evidence.trendOn === "lows");
  const settling = settlingExplainers(findings, newcomers, set, from, onLows);
  const explainers = [...backlogsAtEnd(set, from).filter((b) => !settling.some((s) => s.pid === b.pid)), ...settling];
  if (explainers.length === 0) return findings;
  const by: Explanation = {
    grown: explainers.reduce((sum, b) => sum + Math.max(0, b.growth), 0),
    waiting: explainers.some((b) => b.kind !== "released"),
    pids: explainers.map((b) => b.pid).join(", "),
    settling: settling.length > 0,
    processAdvice: findings.find(
      (f) => f.subject.type === "process" && (f.evidence.gcBacklog !== undefined || undecided(f)),
    )?.advice,
    reconciled: reconciledPhrase(findings, keptSeen),
  };
  return findings.map((f) => (explainable(f) ? explainedGrowth(f, by) : f));
}

/**
 * Settling allocators, or retention not yet told from a leak that pins it (process.ts pinningUndecided): either
 * way the process's growth is undecided, and so is the part of the tree's and the cgroup's it accounts for.
 * Or a live heap that rises under freed temporaries malloc keeps, not yet by the floor (kept-temporaries.ts).
 * Or a process still importing (imports.ts): a service's child that imports PyTorch adds ~100 MiB to the tree as it
 * starts, which the tree's trend read as a leak for the 12 s the child lived (torch_child_exits.busy-import, cut at
 * 14-26 s), while the child's own finding waited for its imports to end.
 */
function undecided(f: JudgedFinding): f is JudgedFinding & { subject: { type: "process" } } {
  return (
    f.subject.type === "process" &&
    (f.evidence.settling === true ||
      f.evidence.pinningUndecided === true ||
      f.evidence.keptTemporaries === true ||
      f.evidence.importing === true)
  );
}

/**
 * A shared cgroup's growth is judged by markOutside, except where settling processes account for it all (the
 * floor check in explainedGrowth): their growth is the watched tree's, and still undecided.
 * Not where the processes outside the tree grew anon by a reportable amount themselves: then theirs may be the
 * growth, and markOutside says whose it is.
 */
function explainableGrowth(f: JudgedFinding, settlingSeen: boolean, keptSeen: boolean): boolean {
  return (
    f.subject.type !== "process" &&
    (f.kind === "leak" || (keptSeen && f.kind === "plateau")) &&
    f.evidence.growthIn !== "shmem" &&
    (settlingSeen || !(Number(f.evidence.otherProcessesInCgroup ?? 0) > 0)) &&
    !(Number(f.evidence.otherProcessesAnonGrowth ?? 0) >= minGrowth(Number(f.evidence.start ?? 0)))
  );
}

/** A process whose growth may explain the tree's and the cgroup's, and why it is not judged yet. */
interface Explainer {
  pid: number;
  growth: number;
  kind: BacklogJudgement["kind"] | "settling";
}

/** Seen at the last sample, within the grace a late read is given. */
function aliveAtEnd(ps: ProcessSeries, set: SeriesSet): boolean {
  return ps.lastSeen >= set.duration - RELATIVE_GRACE_INTERVALS * meanInterval(set) - 1e-9;
}

/** The garbage backlogs of the processes alive at the end. */
function backlogsAtEnd(set: SeriesSet, from: number): Explainer[] {
  return [...set.processes.values()]
    .filter((ps) => aliveAtEnd(ps, set))
    .flatMap((ps) => {
      const b = backlogOf(ps, from);
      return b ? [{ pid: ps.pid, growth: b.growth, kind: b.judgement.kind }] : [];
    });
}

/** The undecided processes (`undecided`), and the newcomers too young for a finding. */
function settlingExplainers(
  findings: JudgedFinding[],
  newcomers: readonly ProcessSeries[],
  set: SeriesSet,
  from: number,
  onLows: boolean,
): Explainer[] {
  const settling: Explainer[] = findings.flatMap((f) =>
    undecided(f) ? [{ pid: f.pid!, growth: settledGrowth(f, set, from, onLows), kind: "settling" as const }] : [],
  );
  // A process too young for a finding added what it holds now (USS where read, its private pages: a forked worker's
  // shared ones were in the tree already), and is judged once it has lived long enough.
  for (const ps of newcomers) {
    const levels = [ps.metrics.anon ?? ps.metrics.rss, ps.metrics.uss].map(endLevel).filter((l) => l !== undefined);
    if (levels.length > 0) settling.push({ pid: ps.pid, growth: Math.min(...levels), kind: "settling" });
  }
  return settling;
}

/**
 * Processes whose allocators are still filling to their working size (live-heap.ts allocatorSettling): their
 * growth is undecided too, and so is the part of the tree's and the cgroup's that it accounts for.
 * Their growth over the same window as the tree's and the cgroup's (from `from`), not their finding's: a process's
 * trend window starts after its own start-up (assess.ts afterStartup), and the rise of its first seconds, left out
 * there, is in the cgroup's usage (gc_cycles_raised under run for 40 s: 11.8 MiB against the cgroup's 16.9, so the
 * cgroup was a leak and --fail-on leak failed a steady job).
 * And by its lows where the growth to explain was found on its lows (`onLows`, stats/envelope.ts): a process
 * whose levels moved 7.1 MiB under 30 MiB swings had lows 16 MiB up, as the cgroup's were (a watched GC-churn
 * program: a cgroup leak at 54 s, issue 46).
 */
function settledGrowth(
  f: JudgedFinding & { subject: { type: "process" } },
  set: SeriesSet,
  from: number,
  onLows: boolean,
): number {
  const ps = set.processes.get(processKey(f.subject));
  const col = ps && (ps.metrics.anon ?? ps.metrics.rss);
  const sameWindow = levelChange(col, from);
  const lows = col && onLows ? lowsChange(sliceByTime({ xs: col.xs, ys: col.ys }, from).ys) : undefined;
  // A process that started inside the window added all of its memory to the tree's and the cgroup's growth.
  const arrived = ps && ps.firstSeen > from ? endLevel(col) : undefined;
  return Math.max(Number(f.evidence.growth ?? 0), sameWindow ?? 0, lows ?? 0, arrived ?? 0);
}

/** What the explainers together account for, and what to say of the growth they explain. */
interface Explanation {
  /** Their growth, summed. */
  grown: number;
  /** Whether a backlog still waits for its collection (or a process is undecided). */
  waiting: boolean;
  pids: string;
  /** Whether undecided processes or newcomers are among them. */
  settling: boolean;
  /** The advice of the first process with a backlog or undecided. */
  processAdvice: Phrase[] | undefined;
  reconciled: ReturnType<typeof reconciledPhrase>;
}

/** Why the processes are undecided, the strongest reason first. */
function reconciledPhrase(findings: JudgedFinding[], keptSeen: boolean) {
  const pinning = findings.some((f) => f.subject.type === "process" && f.evidence.pinningUndecided === true);
  const said = (key: string) => findings.some((f) => f.subject.type === "process" && f.evidence[key] === true);
  return pinning
    ? "reconcile.pinning-undecided"
    : keptSeen
      ? "reconcile.kept"
      : said("settling")
        ? "reconcile.settling"
        : said("importing")
          ? "reconcile.importing"
          : "reconcile.starting";
}

/** An explainable tree or cgroup finding, undecided or stable when the explainers account for its growth. */
function explainedGrowth(f: JudgedFinding, by: Explanation): JudgedFinding {
  const { grown, waiting, pids, processAdvice, reconciled } = by;
  // Not the usage's fall under a leak found on its lows (a watched GC-churn program: a leak at 44 s, issue 46).
  const growth = claimedGrowth(f);
  if (!(growth > 0) || growth - grown >= minGrowth(Number(f.evidence.start ?? 0))) return f;
  const facts = { subject: f.subject.type === "tree" ? ("tree" as const) : ("cgroup" as const), growth, pids };
  if (by.settling) {
    const why =
      reconciled === "reconcile.importing"
        ? "importing"
        : reconciled === "reconcile.starting"
          ? "starting"
          : "settling";
    const evidence = { ...f.evidence, [why]: true, explainedByPids: pids };
    return {
      ...f,
      kind: "insufficient-data",
      confidence: 0,
      evidence,
      advice: processAdvice ?? [phrase("advice.insufficient-data", { settlingPids: pids })],
      summary: phrase(reconciled, facts),
    };
  }
  const evidence = { ...f.evidence, gcBacklog: waiting ? "waiting" : "released", explainedByPids: pids };
  return waiting
    ? {
        ...f,
        kind: "insufficient-data",
        confidence: 0,
        evidence,
        advice: processAdvice ?? [phrase("advice.insufficient-data", { backlogPids: pids })],
        summary: phrase("reconcile.backlog-waiting", facts),
      }
    : {
        ...f,
        kind: "stable",
        evidence,
        advice: processAdvice ?? f.advice,
        summary: phrase("reconcile.backlog-released", facts),
      };
}

/** A process's growth over the tree's and the cgroup's window; undefined when it was gone before the run's end. */
function sameWindowGrowth(f: JudgedFinding, set: SeriesSet, from: number): number | undefined {
  if (f.subject.type !== "process") return undefined;
  const ps = set.processes.get(processKey(f.subject));
  if (!ps || !aliveAtEnd(ps, set)) return undefined;
  return levelChange(ps.metrics.anon ?? ps.metrics.rss, from);
}

/** Seconds between samples, on average (0 with fewer than two samples, when the duration is 0 too). */
const meanInterval = (set: SeriesSet) => (set.samples > 1 ? set.duration / (set.samples - 1) : 0);

/** When the level a run ends at begins: its last tenth of samples, 3 at least (assess.ts `levels`). */
function lastLevelFrom(set: SeriesSet): number {
  const xs = set.treeCount.xs;
  return xs[Math.max(0, xs.length - levelPoints(xs.length))] ?? 0;
}

/**
 * The watched tree must account for at least this share of the cgroup's growth for the growth to count as the tree's.
 * A third, a trade-off: the tree's Σ PSS counts shared pages once for all its processes while the cgroup charges
 * them to whoever touched them first, so a tree that does cause the growth can show well under all of it; under a
 * third, the outsiders' anon growth (read from their /proc at the first and last tick) is the larger part.
 */
export const TREE_EXPLAINS = 1 / 3;

/**
 * Tree or cgroup growth is copy-on-write when the copying in its processes (Σ their USS growth) is at least half of
 * it: then copying is the larger cause, and calling the rest a leak would name the wrong thing. Boundary tests:
 * rules/tree.test.ts (62% → cow, 41% → leak).
 */
export const COW_EXPLAINS_SHARE = 0.5;

/**
 * A parent or child counts as alive at a process's last sample if it was seen within this many sampling intervals
 * of it: processes are read one after another within a tick, and a parent that exits between two ticks was alive
 * for part of the interval before. 1.5: one interval, plus half of one for the timing jitter of a loaded machine.
 */
export const RELATIVE_GRACE_INTERVALS = 1.5;

/**
 * A cgroup shared with processes outside the watched tree that grows while the tree does not account for the growth:
 * that is the outsiders' (or their page cache's) doing, reported as such, and never the verdict about the watched pid.
 */
function markOutside(
  f: JudgedFinding,
  others: number[],
  othersAnonGrowth: number | undefined,
  treeGrows: boolean,
): JudgedFinding {
  if (others.length === 0 || f.kind === "stable" || f.kind === "insufficient-data") return f;
  // By what the finding claims grew: judged by the usage's level change alone (-36 MiB under a leak found on the
  // lows, +66 MiB), a neighbour's 1 MiB/s leak beside a watched tree whose one worker stepped up 48 MiB was the watch's
  // verdict, "because PID … grows (whose own finding is plateau)" (issue 49's diverging-group e2e, by hand).
  const growth = claimedGrowth(f);
  // The page cache of files the watched processes map is theirs too (a model they loaded with mmap).
  const tree = Number(f.evidence.processesGrowth ?? 0) + Number(f.evidence.mappedFileGrowth ?? 0);
  // A cgroup that keeps growing while nothing watched does: whatever the watched tree added over the window (an
  // allocator's arenas filling, a plateau reached) has stopped, and what goes on growing is the outsiders'.
  const stillTheirs = f.kind === "leak" && !treeGrows;
  if (!(growth > 0) || (tree >= TREE_EXPLAINS * growth && !stillTheirs)) return f;
  const artefact = f.kind === "cgroup-artefact" ? f.summary : undefined;
  // Advice that named the watched tree's leaking process as the cause ("because PID 5604 grows") would contradict the
  // summary: a watch beside two other programs' runs in the same cgroup said both (a helper's trial).
  const rate = f.rate;
  const advice = rate
    ? f.advice.map((a) =>
        a.say === "advice.leak" && a.facts.variant === "attributed"
          ? phrase("advice.leak", { variant: "outside", rate, others, tree })
          : a,
      )
    : f.advice;
  return {
    ...f,
    advice,
    outsideWatchedTree: true,
    summary: phrase("reconcile.outside", { growth, rate: f.rate, tree, others, othersAnonGrowth, artefact }),
    evidence: (({ explainedByPids: _, ...rest }) => ({ ...rest, outsideWatchedTree: true }))(f.evidence),
  };
}

/**
 * @param copiers USS growth by pid of the judged processes that show copy-on-write's shape (cow.ts `copying`), cow
 *        findings or not: workers that each copy under the per-process floor still add up.
 */
function reconcile(
  all: JudgedFinding[],
  copiers: Map<number, number>,
  set: SeriesSet,
  from: number,
  newcomers: readonly ProcessSeries[] = [],
): JudgedFinding[] {
  const findings = explainBacklogs(attributeLeaks(all), set, from, newcomers);
  // A page a worker copies after fork is charged anew to the cgroup and leaves the tree's Σ PSS shared no more, while
  // its anon, which counted it shared, does not move: with copiers, the processes' anon says nothing of the growth.
  if (copiers.size === 0) return explainedByStable(findings, (p) => sameWindowGrowth(p, set, from));
  const copied = [...copiers.values()].reduce((sum, g) => sum + g, 0);
  const cowFinding = findings.find((f) => f.subject.type === "process" && f.kind === "cow");
  // A process that leaks while others copy: the tree's or cgroup's growth has both causes, and the leak heads it.
  const processLeaks = findings.some((f) => f.subject.type === "process" && f.kind === "leak");
  return findings.map((f) => {
    if (f.subject.type === "process" || (f.kind !== "leak" && f.kind !== "plateau")) return f;
    const growth = Number((f.subject.type === "cgroup" ? f.evidence.usageGrowth : undefined) ?? f.evidence.growth ?? 0);
    if (!(growth > 0 && copied >= COW_EXPLAINS_SHARE * growth)) return f;
    const besideLeak = f.kind === "leak" && processLeaks;
    const facts = {
      subject: f.subject.type === "tree" ? ("tree" as const) : ("cgroup" as const),
      growth,
      copiers: copiers.size,
      copied,
      ...(besideLeak && { besideLeak }),
    };
    const cow: JudgedFinding = {
      ...f,
      kind: "cow",
      summary: phrase("reconcile.cow", facts),
      advice: cowFinding?.advice ?? [phrase("advice.cow-tree", facts)],
      ...(cowFinding?.copied && { copied: cowFinding.copied }),
      evidence: {
        ...f.evidence,
        copyOnWriteGrowth: Math.round(copied),
        copyOnWritePids: [...copiers.keys()].join(","),
      },
    };
    return besideLeak ? { ...f, alsoFound: [...(f.alsoFound ?? []), cow] } : cow;
  });
}

function windowOf(set: SeriesSet, warmup: number): AnalysisWindow {
  return {
    start: 0,
    end: Number(set.duration.toFixed(3)),
    warmup: Number(warmup.toFixed(1)),
    samples: set.samples,
    interval: Number(meanInterval(set).toFixed(3)),
  };
}

/** What every rule reads besides its own series: the warm-up (found on the root's memory) and the agent's results. */
function contextOf(input: ClassifyInput): Context {
  const { set, options } = input;
  const root = [...set.processes.values()].find((ps) => ps.pid === set.rootPid);
  const warmup = warmupFor(root?.metrics.anon ?? root?.metrics.rss ?? set.tree.rss, options);
  return {
    from: warmup,
    warmup,
    programStart: root?.execAt,
    duration: set.duration,
    t0: set.t0,
    agentSeen: [...set.processes.values()].some((p) => Object.keys(p.agent).length > 0),
    launched: options.launched === true,
    agentResults: input.agentResults,
    agentMissing: input.agentMissing,
  };
}

/**
 * One finding per process that lived long enough to judge (the root always), and the copying of every process alive
 * at the run's last level (by pid: USS growth), finding or not; `shortLived` counts the processes left unjudged.
 */
function judgeProcesses(
  input: ClassifyInput,
  ctx: Context,
): { findings: JudgedFinding[]; copiers: Map<number, number>; shortLived: number; newcomers: ProcessSeries[] } {
  const { set } = input;
  const all = [...set.processes.values()];
  // Forked relatives overlap in time: a parent alive when its child was last seen, or a child alive at its parent's end.
  const relativesAlive = (ps: (typeof all)[number]) =>
    all.some(
      (q) =>
        q !== ps &&
        (q.pid === ps.ppid || q.ppid === ps.pid) &&
        q.firstSeen <= ps.lastSeen &&
        q.lastSeen >= ps.lastSeen - RELATIVE_GRACE_INTERVALS * meanInterval(set) - 1e-9,
    );
  const findings: JudgedFinding[] = [];
  const copiers = new Map<number, number>();
  // What a process copied is freed when it exits: it explains the tree's and the cgroup's last level only if the
  // process was alive when that level was read.
  const copiedUntil = lastLevelFrom(set) - RELATIVE_GRACE_INTERVALS * meanInterval(set) - 1e-9;
  let shortLived = set.shortLivedDropped;
  // Processes that started inside the window, still alive at its end, too young for a finding: what the tree and the
  // cgroup grew by as they started is waited on with them (explainBacklogs).
  const newcomers: ProcessSeries[] = [];
  for (const ps of all) {
    const isRoot = ps.pid === set.rootPid;
    // Copying is a state, read off USS against resident memory: a worker seen too briefly for a finding of its own
    // still explains the tree's growth by what it copied (a 10 s job whose forked workers copy their parent's pages
    // grows the tree's Σ PSS as steadily as a leak, and the early test would call it one).
    const copy = copying(ps, relativesAlive(ps));
    if (copy && ps.lastSeen >= copiedUntil) copiers.set(ps.pid, copy.ussGrowth);
    if (!isRoot && !seenMostOf(ps, set) && tooShortForShapes(ps.seenCount, ps.lastSeen - ps.firstSeen)) {
      shortLived++;
      // Not one seen copying: what it copied explains the growth as copy-on-write (reconcile), not as start-up.
      if (ps.firstSeen > ctx.from && ps.lastSeen >= copiedUntil && !copiers.has(ps.pid)) newcomers.push(ps);
      continue;
    }
    // Seen, never read: a process whose every reading had no memory lines (samplers before 33bb8ea kept one that
    // exited between its stat and status reads; a brief one is counted as short-lived above). Nothing to judge and no
    // figure to say: the verdict is the tree's, or no samples at all (a `true` whose root was such crashed memleak).
    if (!ps.metrics.anon && !ps.metrics.rss) continue;
    const subject = processSubject(ps, set.rootPid, commandText(ps.pid, ps.comm, input.commands));
    if (subject.type === "process") findings.push(analyzeProcess(ps, subject, ctx, copy));
  }
  lendWorkersCopies(findings, ctx);
  return { findings, copiers, shortLived, newcomers };
}

/**
 * A parent judged copy-on-write (its USS rose as its pages became its own while its workers copied them) whose workers
 * had copied before memleak first read them: the workers are flat (stable, saying what they copied) and the parent's
 * finding outranks theirs, with only the general advice. It carries the containers the worker whose look named most
 * found copied, with their advice: the parent's rise is those copies.
 */
function lendWorkersCopies(findings: JudgedFinding[], ctx: Context): void {
  for (const f of findings) {
    if (f.kind !== "cow" || f.copied || f.subject.type !== "process") continue;
    const pid = f.subject.pid;
    const lender = findings
      .filter(
        (w) =>
          w.subject.type === "process" &&
          w.subject.ppid === pid &&
          w.copied &&
          w.copied.named > 0 &&
          w.evidence.copiedBeforeBytes !== undefined,
      )
      .sort((a, b) => b.copied!.named - a.copied!.named)[0];
    if (lender) putCopied(f, lender.copied!.pid, Number(lender.evidence.copiedBeforeBytes), ctx);
  }
}

/**
 * A process seen for most of the observed window is no short-lived one, however short the window: a 15 s watch of
 * gunicorn said "short-lived processes 2" of two workers that lived throughout, and said nothing of them, while the
 * master, as short, had its finding (not enough data). Such a worker gets its own, as the root does.
 */
export const MOST_OF_WINDOW = 0.9;
function seenMostOf(ps: { firstSeen: number; lastSeen: number }, set: SeriesSet): boolean {
  return set.duration > 0 && ps.lastSeen - ps.firstSeen >= MOST_OF_WINDOW * set.duration;
}

/** The cgroup's finding, with the processes outside the watched tree that share it. */
function judgeCgroup(
  set: SeriesSet,
  cgroup: NonNullable<ClassifyInput["cgroup"]>,
  ctx: Context,
): JudgedFinding | undefined {
  const { others, othersAnonGrowth, path, version } = cgroup;
  const cg = analyzeCgroup(
    set,
    { type: "cgroup", path, version },
    ctx,
    [...set.processes.values()].flatMap((ps) => ownArrivals(ps, ctx)),
  );
  if (cg && others && others.length > 0) {
    cg.caveats.push(phrase("cgroup.others", { others }));
    cg.evidence.otherProcessesInCgroup = others.length;
    if (othersAnonGrowth !== undefined) cg.evidence.otherProcessesAnonGrowth = Math.round(othersAnonGrowth);
  }
  return cg;
}

/** The verdict when there is no finding at all. */
const noSamples = (set: SeriesSet): JudgedFinding => ({
  kind: "insufficient-data",
  confidence: 0,
  subject: { type: "tree", processes: 0 },
  metric: "rss",
  summary: phrase("verdict.no-samples", {}),
  evidence: { samples: set.samples },
  advice: [],
  caveats: [],
});

/**
 * The verdict as facts: report/verdict.ts `classify` words it into the document users see (JSON, terminal, HTML).
 * Pure: the series in, the judgement out.
 */
export function judge(input: ClassifyInput): Judgement {
  const { set } = input;
  const ctx = contextOf(input);
  const { findings, copiers, shortLived, newcomers } = judgeProcesses(input, ctx);
  if (set.processes.size > 1) {
    const tree = analyzeTree(set, ctx);
    if (tree) {
      if (shortLived > 0) tree.evidence.shortLivedProcesses = shortLived;
      findings.push(tree);
    }
  }
  const cg = input.cgroup && judgeCgroup(set, input.cgroup, ctx);
  if (cg) findings.push(cg);

  for (const f of findings) {
    const early = f.kind === "leak" ? earlyCaveat(f.evidence) : undefined;
    if (early) f.caveats.push(early);
  }
  const treeGrows = findings.some(stillGrows);
  // GPU memory is no part of the host's: its findings take no part in reconciling the host's with each other.
  const gpus = judgeGpus(set, ctx, (ps) => commandText(ps.pid, ps.comm, input.commands));
  const reconciled = withTimeToLimit(
    reconcile(findings, copiers, set, ctx.from, newcomers).map((f) =>
      f.subject.type === "cgroup" && input.cgroup
        ? markOutside(f, input.cgroup.others ?? [], input.cgroup.othersAnonGrowth, treeGrows)
        : f,
    ),
    set,
    ctx.from,
    input.cgroup?.version,
  )
    .concat(gpus)
    .sort(compareFindings);
  for (const f of reconciled) withCommandAdvice(f, input.options.launched === true);
  for (const f of reconciled) withWindowStart(f, ctx.from, meanInterval(set));
  // The verdict is about the watched processes: growth of a shared cgroup they do not explain never heads it.
  const verdict = reconciled.find((f) => !f.outsideWatchedTree) ?? noSamples(set);
  // Said at how often such verdicts were right, once chosen: ranked on the rules' own scores, so never changed by it.
  calibrateFindings([...reconciled, verdict]);
  return {
    schema: "memleak.verdict/1",
    verdict,
    findings: reconciled,
    target: input.target,
    window: windowOf(set, ctx.warmup),
  };
}

/**
 * Keeps when a finding's window began only where it began later than the report says judging did (after the
 * warm-up, or when the process was first seen): a window cut after an import or a start-up burst. Unsaid, a leak's
 * "level at start" was the reading at 5 s under a header that left out no warm-up (a helper's trial, 2026-12-06).
 */
function withWindowStart(f: JudgedFinding, from: number, interval: number): void {
  const at = f.evidence.windowFromSeconds;
  const expected = Math.max(from, Number(f.evidence.firstSeenSeconds ?? 0));
  if (typeof at === "number" && at <= expected + 1.5 * Math.max(interval, 0.1)) delete f.evidence.windowFromSeconds;
  for (const also of f.alsoFound ?? []) withWindowStart(also, from, interval);
}

/**
 * Tells the advice that asks for more data, or for a trace, whether memleak launched the command or watched it
 * (phrases.ts): `--duration` only stops a launched command sooner, and a watched one is traced by `watch`.
 */
function withCommandAdvice(f: JudgedFinding, launched: boolean): void {
  for (const a of f.advice) {
    if (a.say === "advice.insufficient-data") a.facts.launched = launched;
    if (a.say === "advice.leak" && "pid" in a.facts) a.facts.launched = launched;
  }
  for (const also of f.alsoFound ?? []) withCommandAdvice(also, launched);
}
