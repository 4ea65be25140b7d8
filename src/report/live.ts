/**
 * What `run` and `watch` show while they sample: on a terminal, a block redrawn in place (the tree, a sparkline per
 * subject, the verdict so far); in a log, one progress line every few seconds.
 */
import type { SeriesSet } from "../analysis/series.js";
import type { VerdictDocument } from "../analysis/types.js";
import type { Sample } from "../sample.js";
import { formatBytes, formatDuration } from "../units.js";
import { sparkline } from "./sparkline.js";
import { palette, safeText, truncate } from "./style.js";

export interface LiveState {
  mode: "run" | "watch";
  rootPid: number;
  command: string;
  elapsed: number;
  set: SeriesSet;
  latest: Sample | undefined;
  soFar: VerdictDocument | undefined;
  commands: Map<number, string>;
  /** The oldest PSS/USS of the latest sample, seconds (read under --pss-every and --smaps-budget). */
  pssAge?: number | undefined;
}

/** "PSS ≤ 2 s old": how fresh the USS column and Σ PSS are. */
const pssAgeText = (age: number | undefined) =>
  age === undefined ? undefined : age < 0.05 ? "PSS read this tick" : `PSS ≤ ${age < 10 ? age.toFixed(1) : age.toFixed(0)} s old`;

const SPARK = 20;

function tail(values: readonly number[], n = 120): number[] {
  return values.slice(-n);
}

/** Like the final report: changes under 4% of the level draw flat, so noise does not look like growth. */
function spark(values: readonly number[]): string {
  const recent = tail(values);
  return sparkline(recent, SPARK, false, 0.04 * recent.reduce((m, v) => Math.max(m, v), 0));
}

function delta(values: readonly number[] | undefined): string {
  if (!values || values.length < 2) return "";
  const d = values[values.length - 1]! - values[0]!;
  return `${d >= 0 ? "+" : ""}${formatBytes(d)}`;
}

function soFarText(doc: VerdictDocument | undefined): string {
  if (!doc) return "collecting…";
  const v = doc.verdict;
  return `${v.kind}${v.pid !== undefined ? ` (PID ${v.pid})` : ""}: ${v.summary}`;
}

export function renderLive(s: LiveState, color: boolean, columns = 100): string {
  const c = palette(color);
  const lines: string[] = [];
  lines.push(
    `${c.bold("memleak")} ${s.mode === "run" ? "running" : "watching"} PID ${s.rootPid} ${c.dim(truncate(safeText(s.command), 40))} — ${formatDuration(s.elapsed)}, ${s.set.samples} samples ${c.dim("(Ctrl-C to stop)")}`,
  );
  lines.push(c.dim(`${"PID".padEnd(8)}${"command".padEnd(26)}${"RSS".padStart(10)}${"USS".padStart(10)}${"anon".padStart(10)}${"Δ anon".padStart(11)}  anon over time`));
  const live = new Set(s.latest?.processes.map((p) => p.pid) ?? []);
  for (const ps of s.set.processes.values()) {
    if (!live.has(ps.pid)) continue;
    const p = s.latest!.processes.find((q) => q.pid === ps.pid)!;
    const anon = ps.metrics.anon?.ys;
    const lastUss = ps.metrics.uss?.last();
    lines.push(
      `${String(ps.pid).padEnd(8)}${truncate(safeText(s.commands.get(ps.pid) ?? ps.comm), 25).padEnd(26)}${formatBytes(p.rss).padStart(10)}${formatBytes(lastUss).padStart(10)}${formatBytes(p.anon).padStart(10)}${delta(anon).padStart(11)}  ${spark(anon ?? [])}`,
    );
    if (lines.length > 14) {
      lines.push(c.dim(`… and ${live.size - 12} more`));
      break;
    }
  }
  const pss = s.set.tree.pss?.ys;
  const age = s.pssAge === undefined ? "" : ` (${pssAgeText(s.pssAge)})`;
  if (s.set.processes.size > 1 && pss) lines.push(`${"tree".padEnd(8)}${`Σ PSS ${formatBytes(pss[pss.length - 1])}${age}`.padEnd(56)}${delta(pss).padStart(11)}  ${spark(pss)}`);
  const cg = s.latest?.cgroup;
  const usage = s.set.cgroup.cgroup?.ys;
  if (cg && usage) {
    lines.push(
      `${"cgroup".padEnd(8)}${`usage ${formatBytes(cg.usage)}  working set ${formatBytes(cg.workingSet)}  cache ${formatBytes(cg.stat?.file)}`.padEnd(56)}${delta(usage).padStart(11)}  ${spark(usage)}`,
    );
  }
  lines.push(`${c.bold("so far:")} ${truncate(safeText(soFarText(s.soFar)), Math.max(20, columns - 9))}`);
  return lines.map((l) => truncate(l, columns + (color ? 40 : 0))).join("\n");
}

/** One line for logs: no cursor tricks, a few numbers, the verdict so far. */
export function renderProgress(s: LiveState): string {
  const parts = [`memleak: ${formatDuration(s.elapsed)}`, `${s.set.samples} samples`];
  const n = s.latest?.processes.length ?? 0;
  parts.push(`${n} process${n === 1 ? "" : "es"}`);
  const pss = s.set.tree.pss?.ys;
  if (pss?.length) parts.push(`Σ PSS ${formatBytes(pss[pss.length - 1])} (${delta(pss)}${s.pssAge !== undefined ? `, ${pssAgeText(s.pssAge)}` : ""})`);
  const usage = s.set.cgroup.cgroup?.ys;
  if (usage?.length) parts.push(`cgroup ${formatBytes(usage[usage.length - 1])} (${delta(usage)})`);
  parts.push(`so far: ${s.soFar ? s.soFar.verdict.kind + (s.soFar.verdict.pid !== undefined ? ` (PID ${s.soFar.verdict.pid})` : "") : "collecting"}`);
  return parts.join(", ");
}

/** Moves the cursor up over the previous block and clears it, so the next block draws in its place. */
export function redrawPrefix(previousLines: number): string {
  return previousLines > 0 ? `\x1b[${previousLines}F\x1b[J` : "";
}
