/**
 * The whole process tree: Σ PSS when it was available throughout (each shared page counted once), else Σ anon.
 * It catches what no single process shows: workers started and never reaped, or many processes each growing a
 * little. Whether a process finding already explains it is decided in classify.ts.
 */
import { assess } from "../assess.js";
import type { Context } from "../context.js";
import { growthConfidence, trendEvidence } from "../evidence.js";
import type { JudgedFinding } from "../judgement.js";
import { phrase, type Phrase } from "../phrases.js";
import type { SeriesSet } from "../../series/series.js";
import type { Finding, MetricName } from "../types.js";
import { ownArrivals, ownInjections, ownStepPhrase, withoutOwnArrivals, withoutOwnStep } from "./own-footprint.js";
import type { Column } from "../../series/column.js";
import type { Assessment } from "../assess.js";
import { plateauParts, stableParts } from "./level-findings.js";

/** Share of ticks with a complete Σ PSS for the tree to be judged on it (rules/tree.test.ts: 40% / 60%). */
export const TREE_PSS_SHARE = 0.5;

/**
 * Σ Pss_Anon first: anonymous memory is what a leak grows, as for a single process (process.ts), while the file-backed
 * part of PSS grows with every page a program reads from a mapped model or dataset, and that is page cache the kernel
 * can drop. Σ PSS where the kernel reports no Pss_Anon (before 5.3), then Σ anon, Σ RSS.
 */
export function treeMetric(set: SeriesSet): MetricName {
  // PSS is read under a budget (sampling/smaps-budget.ts): use it when at least half the ticks have a complete total, so the
  // trend is fitted on the sum the window mostly has, not on a few late ticks.
  for (const metric of ["pss-anon", "pss"] as const) {
    const col = set.tree[metric];
    if (col && col.length >= TREE_PSS_SHARE * set.treeCount.length) return metric;
  }
  return set.tree.anon ? "anon" : "rss";
}

export function analyzeTree(set: SeriesSet, ctx: Context): JudgedFinding | undefined {
  const metric = treeMetric(set);
  const col = set.tree[metric];
  if (!col) return undefined;
  const injections = [...set.processes.values()].flatMap((ps) => ownInjections(ps, ctx));
  const arrived = withoutOwnArrivalsIfChanged(set, col, metric, ctx);
  const stepped = withoutOwnStep(arrived.a, injections);
  const a = stepped.a;
  const own = stepped.caveat ?? arrived.caveat;
  const count = set.treeCount;
  const processesStart = count.first() ?? 0;
  const processesEnd = count.last() ?? 0;
  const subject = { type: "tree" as const, processes: set.processes.size };
  const base = {
    subject,
    metric,
    rate: a.rate,
    evidence: {
      ...trendEvidence(a),
      processesStart,
      processesEnd,
      processesSeen: set.processes.size,
    } as Finding["evidence"],
    caveats: own ? [own] : [],
  };
  if (a.shape === "insufficient") {
    const reason = a.reason;
    return {
      ...base,
      kind: "insufficient-data",
      confidence: 0,
      summary: phrase("tree.insufficient", { reason }),
      advice: [phrase("advice.insufficient-data", { reason })],
    };
  }
  if (a.shape === "growing") {
    return {
      ...base,
      kind: "leak",
      confidence: growthConfidence(a),
      summary: phrase("tree.leak", { metric, start: a.start, end: a.end, rate: a.rate }),
      // "Started and never reaped" only when processes were added: a tree of the same workers throughout grew in them.
      advice: [
        phrase("advice.leak", {
          variant: processesEnd > processesStart ? "tree" : "tree-spread",
          rate: a.rate,
          processesStart,
          processesEnd,
        }),
      ],
    };
  }
  if (a.shape === "plateau" || a.shape === "step") {
    const p = plateauParts(a);
    if (p.levelFromSeconds !== undefined) base.evidence.levelFromSeconds = p.levelFromSeconds;
    return {
      ...base,
      kind: p.kind,
      confidence: p.confidence,
      summary: phrase("tree.plateau", { metric, end: a.end }),
      advice: p.advice,
    };
  }
  const s = stableParts(a, "tree", metric);
  return {
    ...base,
    kind: s.kind,
    confidence: s.confidence,
    summary: phrase("tree.stable", { metric, start: a.start, end: a.end }),
    advice: s.advice,
  };
}

/**
 * The tree's assessment, with memleak's own arrivals taken out when they are what made it grow: `watch` injects the
 * agent one process at a time (~5 s each on a loaded machine), and each adds its modules and thread and, in a forked
 * worker, the pages its first collections copy from the parent (+4 MiB of Σ Pss_Anon per idle worker of
 * bench/py/small_tree.py): a staircase the trend test called a leak for the minutes the injections took (an idle
 * 64-process tree said "so far: leak"). Each injected process's arrival is read off its own column of the tree's metric
 * (own-footprint.ts ownArrival; USS for the sums of PSS) and subtracted as the cgroup's are. Only when that changes the shape: a tree whose
 * shape is the same either way is judged, and its numbers given, as before.
 */
function withoutOwnArrivalsIfChanged(
  set: SeriesSet,
  col: Column,
  metric: MetricName,
  ctx: Context,
): { a: Assessment; caveat?: Phrase } {
  const raw = assess(col, ctx.from, 0, ctx.programStart);
  if (raw.shape !== "growing" && raw.shape !== "plateau" && raw.shape !== "step") return { a: raw };
  // A sum of PSS rises by one page for every page a process copies or adds, which is what its USS (private pages)
  // counts; the other sums are read off the same metric of each process.
  const perProcess = metric === "pss-anon" || metric === "pss" ? "uss" : metric;
  const arrivals = [...set.processes.values()].flatMap((ps) => ownArrivals(ps, ctx, perProcess));
  if (arrivals.length === 0) return { a: raw };
  const without = assess(withoutOwnArrivals(col, arrivals), ctx.from, 0, ctx.programStart);
  if (without.shape === raw.shape) return { a: raw };
  const added = arrivals.reduce((sum, r) => sum + r.bytes, 0);
  return { a: without, caveat: ownStepPhrase(arrivals, added) };
}
