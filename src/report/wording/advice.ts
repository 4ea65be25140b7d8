/**
 * Advice phrases: the sections of src/advice/<kind>.md (advice/load.ts), their placeholders filled with the facts
 * in words.
 */
import { advice } from "../../advice/load.js";
import { formatBytes, signedBytes } from "../../base/units.js";
import { becauseOf, formatRate, pidsThatGrow } from "./numbers.js";
import type { LeakPart, PhraseFacts, PhraseName } from "../../analysis/phrases.js";
import { DEFAULT_ALPHA } from "../../analysis/stats/trend.js";
import { gpuHolderGains } from "../../analysis/signals/holder.js";
import { gcWaitingReason, keptReason, settlingReason } from "./notes.js";
import { groupName, pidList, type Wordings } from "./words.js";

/** How stable.md names what did not grow. */
const STABLE_METRIC = {
  process: (m: string) => m,
  tree: (m: string) => `Σ ${m}`,
  cgroup: () => "cgroup usage",
  gpu: (m: string) => m,
};

/** Items a second as the advice says them: 2 significant digits, a fraction under 1 ("~0.5"). */
function gainsText(perSecond: number): string {
  if (perSecond >= 100) return Math.round(Number(perSecond.toPrecision(2))).toLocaleString("en-US");
  return String(Number(perSecond.toPrecision(2)));
}

/** How to trace a leaking process again, with the command that found it: `watch` traces a running one in place. */
function traceWords(pid: number, launched: boolean | undefined): { traceAgain: string; traceWorker: string } {
  if (launched === false)
    return {
      traceAgain: `watch it again with \`memleak watch --trace-python ${pid}\``,
      traceWorker: `Watch it again with \`memleak watch --trace-python ${pid}\``,
    };
  return {
    traceAgain: "run again with `memleak run --trace-python -- …`",
    traceWorker: "Run the worker's code alone under `memleak run --trace-python`",
  };
}

export const ADVICE_WORDS: Wordings<Extract<PhraseName, `advice.${string}`>> = {
  "advice.insufficient-data": (f) =>
    advice("insufficient-data", f.launched === false ? "watched" : "launched", {
      reason:
        "backlogPids" in f
          ? `PID ${f.backlogPids} holds garbage cycles waiting for a full collection`
          : "settlingPids" in f
            ? `the memory of PID ${f.settlingPids} grows while its live heap does not: its allocators are still filling up`
            : f.waiting
              ? gcWaitingReason(f.waiting)
              : f.settling
                ? settlingReason(f.settling)
                : f.kept
                  ? keptReason(f.kept)
                  : f.reason,
    }),
  "advice.cow-tree": (f) =>
    advice("cow", "tree", {
      subject: groupName(f.subject),
      growth: formatBytes(f.growth),
      copiers: f.copiers,
      copied: formatBytes(f.copied),
    }),
  "advice.leak-torch": () => advice("leak", "torch", {}),
  "advice.leak": (f) =>
    advice("leak", f.variant, {
      ...(f.variant === "outside" ? { ...f, others: pidList(f.others), tree: signedBytes(f.tree) } : f),
      // Not placeholders: they choose the trace command's words, and "because" or "partly because".
      launched: undefined,
      part: undefined,
      rate: formatRate(f.rate),
      ...("pid" in f && traceWords(f.pid, f.launched)),
      ...(f.variant === "attributed" && attributedWords(f.subject, String(f.pids), f.part)),
    }),
  "advice.plateau": (f) =>
    advice("plateau", "any", {
      growth: formatBytes(f.growth),
      level: formatBytes(f.level),
      // A level no stretch of the series dates (it ends on a move, stats/plateau.ts levelledFrom) gets no date.
      flatSince: f.levelFrom === undefined ? "" : ` (flat since ${f.levelFrom.toFixed(0)} s)`,
    }),
  // A significant trend under the floor is said as such, not as "no significant growth" beside its p-value; and what
  // the confidence means, since a flat program at 52% reads as a coin toss: it is how long it was watched.
  "advice.stable": (f) =>
    advice("stable", stableVariant(f), {
      metric: STABLE_METRIC[f.subject](f.metric),
      growth: formatBytes(f.growth),
      duration: `${f.seconds.toFixed(0)} s`,
      noise: formatBytes(f.noise),
      p: String(Number(f.p.toPrecision(3))),
      alpha: String(DEFAULT_ALPHA),
      floor: formatBytes(f.floor),
      own: formatBytes(f.own),
      rest: formatBytes(Math.max(0, f.growth - (f.own ?? 0))),
      confidenceLine: `Confidence ${Math.round(f.confidence * 100)}% says how long it was watched, not a doubt about the numbers: it rises to 95% at 10 minutes. Growth under ${formatBytes(f.floor)} in ${f.seconds.toFixed(0)} s (${formatBytes((f.floor / Math.max(1, f.seconds)) * 3600)} an hour) would not show yet.`,
    }),
  "advice.cgroup-artefact": (f) =>
    advice("cgroup-artefact", f.variant, {
      growth: formatBytes(f.usage),
      pssGrowth: formatBytes(f.processes),
      cacheGrowth: formatBytes(f.cache),
      kernelGrowth: formatBytes(f.kernel),
      slabGrowth: formatBytes(f.kernel),
      mappedGrowth: formatBytes(f.mapped),
      pssMetric: `Σ ${f.treeMetric}`,
      files: f.files ? ` — ${f.files}` : "",
      workingSetStart: formatBytes(f.wsStart),
      workingSetEnd: formatBytes(f.wsEnd),
      dirty: formatBytes(f.dirty),
    }),
  "advice.fragmentation": (f) =>
    advice("fragmentation", f.variant, {
      pid: f.pid,
      rss: formatBytes(f.anon),
      live: formatBytes(f.live),
      held: formatBytes(f.held),
      trimmed: formatBytes(f.trimmed),
    }),
  "advice.fragmentation-actions": (f) =>
    advice("fragmentation", "actions", {
      arenas: f.arenas ?? "an unknown number: the agent did not report malloc's",
      command: f.command,
      // As long as it took to show here, in whole minutes: each setting needs as long to show its effect.
      duration: `${Math.max(1, Math.ceil(f.seconds / 60))}m`,
    }),
  "advice.cow-process": (f) =>
    advice("cow", f.isRoot ? "parent" : "process", {
      pid: f.pid,
      command: f.command,
      ussStart: formatBytes(f.ussStart),
      ussEnd: formatBytes(f.ussEnd),
      parentAnon: formatBytes(f.bound),
    }),
  "advice.cow-before": (f) =>
    advice("cow", "before", {
      pid: f.pid,
      command: f.command,
      copied: formatBytes(f.copied),
      uss: formatBytes(f.uss),
      anon: formatBytes(f.anon),
    }),
  "advice.cow-object": (f) =>
    advice("cow", `object-${f.how}${objectVariant(f)}`, {
      pid: f.pid,
      name: f.name,
      what: f.what,
      length: f.length.toLocaleString("en-US"),
      bytes: formatBytes(f.bytes),
      private: formatBytes(f.private),
      tracked: formatBytes(f.tracked),
    }),
  "advice.gpu": (f) =>
    advice("gpu", f.variant, {
      pid: f.pid,
      command: f.command,
      device: f.device,
      held: formatBytes(f.held),
      split: formatBytes(f.split),
    }),
  "advice.holder": (f) =>
    advice("leak", f.variant, {
      path: f.path?.replace(/\u0060/g, "'"),
      container: f.container,
      length: `${f.lengthCapped ? "at least " : ""}${Math.round(f.length).toLocaleString("en-US")}`,
      // A graph past the agent's count (lengthCapped) shows no rise between the walks that found it: no rate to say.
      gains:
        f.itemsPerSecond === undefined || (f.lengthCapped && !(f.itemsPerSecond > 0))
          ? "keeps growing"
          : `gains ~${gainsText(f.itemsPerSecond)} ${f.variant.startsWith("holder-graph-chain") ? "nodes" : "items"} a second`,
      why: f.why,
      dropDone: dropDone(f.container, f.heldAs ?? "tasks"),
      device: f.device,
      perItem: f.deviceBytesPerItem !== undefined ? `${formatBytes(f.deviceBytesPerItem)} each` : "",
      explains: deviceShare(f),
    }),
  "advice.gc-off": (f) =>
    advice("leak", "gc-off", {
      pid: f.pid,
      count0:
        f.count0 !== undefined
          ? `: ${Math.round(f.count0).toLocaleString("en-US")} allocations since its last collection`
          : "",
    }),
  "advice.no-agent": (f) =>
    advice("no-agent", f.launched ? "run" : "any", { pid: f.pid, why: f.why, level: formatBytes(f.level) }),
};

/**
 * holder-cuda: what the container's items add on the device a second against the device's growth ("~40 MiB/s, all of
 * the 39.7 MiB/s allocated grows"), or nothing where the agent did not measure both.
 */
function deviceShare(f: PhraseFacts["advice.holder"]): string {
  const gains = gpuHolderGains(f);
  if (gains === undefined || !f.rate) return "";
  const share = gains / f.rate.bytesPerSecond;
  const of = share >= 0.9 ? "all of" : `${Math.round(share * 100)}% of`;
  return `: ~${formatBytes(gains)}/s, ${of} the ${formatBytes(f.rate.bytesPerSecond)}/s that allocated grows`;
}

/** The done-callback that drops a finished task from its container, spelled for the container's type. */
/**
 * Which of a read container's advice: frozen by the program, read with some objects the collector tracks (its part the
 * smaller: "the collector does not touch them" was said of a list of dicts whose 36 MiB it did), or read only.
 */
function objectVariant(f: { how: string; frozen: boolean; tracked: number }): string {
  if (f.how !== "reads") return "";
  if (f.frozen) return "-frozen";
  return f.tracked > 0 ? "-tracked" : "";
}

function dropDone(container: string, name: string): string {
  if (/^set\b/.test(container)) return `${name}.discard`;
  if (/^(list|deque)\b/.test(container)) return `${name}.remove`;
  // The key the task was stored under, bound when the callback is added (a bare `key` would be the loop's last).
  return `lambda task, key=key: ${name}.pop(key, None)`;
}

/**
 * Which stable advice: a move that was memleak's own agent arriving; a real trend under the floor; no trend against noise that explains the move; or no trend where
 * the levels moved by more than 3 noise widths (a program whose 5-80 MB buffers come and go: its median noise is the
 * quiet stretches', 90 KiB, and "noise of ±90 KiB" beside a 6 MiB move reads as a contradiction).
 */
/** The p-value under which a rise that memleak does not call is said as a weak rise, not as a swing. */
const WEAK_TREND_P = 0.05;

function stableVariant(f: {
  p: number;
  growth: number;
  noise: number | undefined;
  floor: number;
  own?: number;
}): string {
  // A move that was memleak's agent arriving: its trend and its size are the agent's, not the program's.
  if (f.own !== undefined) return "own-arrival";
  if (f.p < DEFAULT_ALPHA) return "under-floor";
  if (f.noise !== undefined && Math.abs(f.growth) <= 3 * f.noise) return "no-trend";
  // A rise whose test falls short of memleak's 0.01 but under the usual 0.05 is no swing: said as a weak rise (a flat
  // buffer-churning program, p = 0.0143 and 96 KiB, "swings rather than climbs", read as untrue in a helper's trial).
  // Past the floor, a move the test does not call is a swing or a step (194 MiB in 27 s at p = 0.0164), not weak.
  return f.growth > 0 && f.growth < f.floor && f.p < WEAK_TREND_P ? "weak-trend" : "no-trend-swings";
}

/** The attributed leak advice's words, singular or plural by how many processes explain the growth. */
function attributedWords(subject: unknown, pids: string, part: LeakPart | undefined) {
  const several = pids.includes(",");
  return {
    subject: subject === "tree" ? "process tree" : "container",
    // As the summary says it (reconcile.attributed): a leak that explains a part of the growth is not all its cause.
    because: becauseOf(part),
    pidsGrow: pidsThatGrow(pids),
    whose: several ? "those processes'" : "that process's",
    findings: several ? "findings" : "finding",
    say: several ? "say" : "says",
  };
}
