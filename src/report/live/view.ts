/**
 * What `run` and `watch` show while they sample: on a terminal, a block redrawn in place (the tree, a sparkline per
 * subject, the verdict so far); in a log, one progress line every few seconds.
 */
import type { SeriesSet } from "../../series/series.js";
import type { JudgedFinding } from "../../analysis/judgement.js";
import { rangeText, spanText, timeToLimitText } from "../wording/time-to-limit.js";
import { sayShort } from "../wording/index.js";
import { groupName } from "../wording/words.js";
import type { Sample } from "../../system/sample.js";
import { formatBytes, formatDuration } from "../../base/units.js";
import { memorySpan, sparkline } from "../sparkline.js";
import { palette, truncate } from "../style.js";
import { safeText } from "../../base/safe-text.js";
import { clip, displayWidth, fit } from "../text-width.js";
import { gpuSeries } from "../../series/gpu-series.js";
import { gpuFieldName } from "../../sampling/gpu-fields.js";
import { sitesText, type LiveSite } from "./sites.js";

export interface LiveState {
  mode: "run" | "watch";
  rootPid: number;
  command: string;
  elapsed: number;
  set: SeriesSet;
  latest: Sample | undefined;
  /** The verdict so far, as facts (session/interim/job.ts). */
  soFar: JudgedFinding | undefined;
  commands: Map<number, string>;
  /** The oldest PSS/USS of the latest sample, seconds (read under --pss-every and --smaps-budget). */
  pssAge?: number | undefined;
  /** run --trace-python: the allocation sites that grew most since warm-up, as the agent last sent them. */
  sites?: LiveSite[] | undefined;
}

/** "PSS ≤ 2 s old": how fresh the USS column and Σ PSS are. */
const pssAgeText = (age: number | undefined) =>
  age === undefined
    ? undefined
    : age < 0.05
      ? "PSS read this tick"
      : `PSS ≤ ${age < 10 ? age.toFixed(1) : age.toFixed(0)} s old`;

const SPARK = 20;

function tail(values: readonly number[], n = 120): number[] {
  return values.slice(-n);
}

/** Like the final report: changes under the growth floor draw flat, so noise does not look like growth. */
function spark(values: readonly number[], width = SPARK): string {
  const recent = tail(values);
  return sparkline(recent, width, false, memorySpan(recent));
}

/**
 * Column widths for a terminal this wide: at 100 columns and more the full layout; narrower, the command column and
 * the sparkline give way first (at 80 columns a 26-character command column left the sparkline 3 characters).
 * The numbers (PID, RSS, USS, anon, Δ anon: 51 characters) never shrink.
 */
function layout(columns: number): { name: number; spark: number } {
  if (columns >= 100) return { name: 26, spark: SPARK };
  const spark = Math.max(6, Math.min(SPARK, columns - 51 - 2 - 16));
  return { name: Math.max(10, Math.min(26, columns - 51 - 2 - spark)), spark };
}

function delta(values: readonly number[] | undefined): string {
  if (!values || values.length < 2) return "";
  const d = values[values.length - 1]! - values[0]!;
  return `${d >= 0 ? "+" : ""}${formatBytes(d)}`;
}

export function soFarText(v: JudgedFinding | undefined): string {
  if (!v) return "collecting…";
  // A process's sentence in its short form, without "PID N (its command)", which the line already names: at 80
  // columns in tmux the command left no room for what the verdict says ("not enough data (garbage cycles may be
  // waiting…" was cut).
  return `${kindSure(v)}${v.pid !== undefined ? ` (PID ${v.pid})` : ""}${alsoText(v)}: ${sayShort(v.summary)}`;
}

/**
 * "leak 41%": the kind with its calibrated confidence, as the trials' table gives it. A noisy steady service watched
 * for 20 s said "so far: leak" (a user's trial, 2026-12-06) with nothing to tell a first guess from a firm call. Not
 * for "insufficient-data", which is no call at all ("insufficient-data 0%" read as a verdict ruled out).
 */
const kindSure = (v: JudgedFinding) =>
  v.kind === "insufficient-data" ? v.kind : `${v.kind} ${Math.round(v.confidence * 100)}%`;

/**
 * " (PID 812)", or the group the verdict is about: the log line says no more of it than this, and a bare "so far: leak"
 * at 10 s, the cgroup's early call, read as the process's (a helper's trial) before "leak (PID 4375)" at 20 s.
 */
function whoseText(v: JudgedFinding): string {
  if (v.pid !== undefined) return ` (PID ${v.pid})`;
  const group = v.subject.type;
  return group === "tree" || group === "cgroup" ? ` (the ${groupName(group)})` : "";
}

/** " + fragmentation": the other findings of the verdict's subject, by kind (a leak under retained heap is both). */
const alsoText = (v: JudgedFinding) => (v.alsoFound?.length ? ` + ${v.alsoFound.map((f) => f.kind).join(" + ")}` : "");

/**
 * "memleak running PID 7784 python3 train.py — 7.4s, 38 samples": the command gives way to the time and the count
 * (at 80 columns a 40-character command cut them off), and the Ctrl-C hint is left out below 100 columns.
 */
function headerLine(s: LiveState, c: ReturnType<typeof palette>, columns: number): string {
  const before = `memleak ${s.mode === "run" ? "running" : "watching"} PID ${s.rootPid} `;
  const after = ` — ${formatDuration(s.elapsed)}, ${s.set.samples} samples`;
  const hint = columns >= 100 ? ` ${c.dim("(Ctrl-C to stop)")}` : "";
  const room = Math.max(10, Math.min(40, columns - 1 - displayWidth(before + after + hint)));
  return `${c.bold(before.slice(0, 7))}${before.slice(7)}${c.dim(clip(safeText(s.command), room))}${after}${hint}`;
}

export function renderLive(s: LiveState, color: boolean, columns = 100): string {
  const c = palette(color);
  const lines: string[] = [];
  lines.push(headerLine(s, c, columns));
  const w = layout(columns);
  lines.push(
    c.dim(
      `${"PID".padEnd(8)}${"command".padEnd(w.name)}${"RSS".padStart(10)}${"USS".padStart(10)}${"anon".padStart(10)}${"Δ anon".padStart(11)}  anon over time`,
    ),
  );
  const live = new Set(s.latest?.processes.map((p) => p.pid) ?? []);
  for (const ps of s.set.processes.values()) {
    if (!live.has(ps.pid)) continue;
    const p = s.latest!.processes.find((q) => q.pid === ps.pid)!;
    const anon = ps.metrics.anon?.ys;
    const lastUss = ps.metrics.uss?.last();
    lines.push(
      `${String(ps.pid).padEnd(8)}${fit(clip(safeText(s.commands.get(ps.pid) ?? ps.comm), w.name - 1), w.name)}${formatBytes(p.rss).padStart(10)}${formatBytes(lastUss).padStart(10)}${formatBytes(p.anon).padStart(10)}${delta(anon).padStart(11)}  ${spark(anon ?? [], w.spark)}`,
    );
    if (lines.length > 14) {
      lines.push(c.dim(`… and ${live.size - 12} more`));
      break;
    }
  }
  const pss = s.set.tree.pss?.ys;
  const age = s.pssAge === undefined ? "" : ` (${pssAgeText(s.pssAge)})`;
  // The subject's text spans the command, RSS, USS and anon columns, so its change and sparkline line up below theirs.
  const textWidth = w.name + 30;
  // Each live process's memory on each GPU it uses (series/gpu-series.ts), at most four lines of them.
  for (const g of gpuSeries(s.set)
    .filter((x) => live.has(x.ps.pid))
    .slice(0, 4)) {
    const reserved = g.index === undefined ? undefined : g.ps.agent[`gpu.${gpuFieldName(g.index, "Reserved")}`]?.last();
    const now = formatBytes(g.col.last());
    const what =
      g.source === "driver"
        ? `GPU ${g.device} used ${now}`
        : `${g.device} allocated ${now}${reserved === undefined ? "" : `  reserved ${formatBytes(reserved)}`}`;
    lines.push(
      `${"gpu".padEnd(8)}${truncate(`PID ${g.ps.pid} ${what}`, textWidth - 1).padEnd(textWidth)}${delta(g.col.ys).padStart(11)}  ${spark(g.col.ys, w.spark)}`,
    );
  }
  if (s.set.processes.size > 1 && pss)
    lines.push(
      `${"tree".padEnd(8)}${truncate(`Σ PSS ${formatBytes(pss[pss.length - 1])}${age}`, textWidth - 1).padEnd(textWidth)}${delta(pss).padStart(11)}  ${spark(pss, w.spark)}`,
    );
  const cg = s.latest?.cgroup;
  const usage = s.set.cgroup.cgroup?.ys;
  if (cg && usage) {
    lines.push(
      `${"cgroup".padEnd(8)}${truncate(`usage ${formatBytes(cg.usage)}  working set ${formatBytes(cg.workingSet)}  cache ${formatBytes(cg.stat?.file)}`, textWidth - 1).padEnd(textWidth)}${delta(usage).padStart(11)}  ${spark(usage, w.spark)}`,
    );
  }
  if (s.sites?.length) lines.push(`${c.bold("sites:")} ${truncate(sitesText(s.sites), Math.max(20, columns - 8))}`);
  lines.push(`${c.bold("so far:")} ${truncate(safeText(soFarText(s.soFar)), Math.max(20, columns - 9))}`);
  // When will it fall over, on its own line: the verdict's sentence above is cut to the terminal's width.
  if (s.soFar?.timeToLimit)
    lines.push(`${c.bold("limit:")} ${truncate(timeToLimitText(s.soFar.timeToLimit), Math.max(20, columns - 8))}`);
  // Every line one column short of the terminal, measured as the terminal does (string-width: colour takes none, CJK
  // two): a line that fills the last column wraps on some terminals, and a wrapped line is a row the redraw misses.
  return lines.map((l) => clip(l, columns - 1)).join("\n");
}

/** One line for logs: no cursor tricks, a few numbers, the verdict so far. */
export function renderProgress(s: LiveState): string {
  const parts = [`memleak: ${formatDuration(s.elapsed)}`, `${s.set.samples} samples`];
  const n = s.latest?.processes.length ?? 0;
  parts.push(`${n} process${n === 1 ? "" : "es"}`);
  const pss = s.set.tree.pss?.ys;
  if (pss?.length)
    parts.push(
      `Σ PSS ${formatBytes(pss[pss.length - 1])} (${delta(pss)}${s.pssAge !== undefined ? `, ${pssAgeText(s.pssAge)}` : ""})`,
    );
  const usage = s.set.cgroup.cgroup?.ys;
  if (usage?.length) parts.push(`cgroup ${formatBytes(usage[usage.length - 1])} (${delta(usage)})`);
  if (s.sites?.length) parts.push(`sites ${sitesText(s.sites.slice(0, 2))}`);
  parts.push(`so far: ${s.soFar ? kindSure(s.soFar) + whoseText(s.soFar) + alsoText(s.soFar) : "collecting"}`);
  const t = s.soFar?.timeToLimit;
  if (t)
    parts.push(
      `${t.limit.kind === "machine" ? "machine memory" : "limit"} in ~${spanText(t.seconds)} (${rangeText(t.secondsMin, t.secondsMax)})`,
    );
  return parts.join(", ");
}
