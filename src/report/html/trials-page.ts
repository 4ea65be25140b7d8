/**
 * `run --try … --html`: the comparison as a page — the answer, the table of settings, each setting's line — and the
 * settings' curves on one chart per measure (the tree's Σ anonymous PSS, the cgroup's usage), each trial from its own
 * start, the warm-up from which growth was counted shaded. Text from the target and the settings goes in escaped.
 */
import type { SeriesSet } from "../../series/series.js";
import type { Column } from "../../series/column.js";
import { formatBytes } from "../../base/units.js";
import { cutsText, type ComparedTrial, type Comparison, signedChange } from "../../trial/compare.js";
import { treeMetricLabel } from "../../trial/measures.js";
import { settingHow, settingUse } from "../../trial/settings.js";
import { effectWord, measuredWhat } from "../trials/trials-words.js";
import { alignForDrawing } from "./downsample.js";
import type { ChartPayload, ChartSpec } from "./chart-data.js";
import { escapeHtml as h } from "./escape.js";
import { footer, htmlPage, type ReportAbout } from "./index.js";

/** One colour per trial, the command as it is in grey: it is what the others are read against. */
const COLOURS = ["#6b7280", "#4e79a7", "#e15759", "#59a14f", "#f28e2b", "#b07aa1", "#76b7b2", "#edc948", "#9c755f"];

function chart(
  id: string,
  group: ChartSpec["group"],
  title: string,
  cols: (Column | undefined)[],
  labels: string[],
): ChartSpec | undefined {
  if (!cols.some((c) => c && c.length > 0)) return undefined;
  const a = alignForDrawing(cols);
  return {
    id,
    group,
    title,
    xs: a.xs.map((x) => Math.round(x * 1000) / 1000),
    series: labels.map((label, i) => ({
      label,
      color: COLOURS[i % COLOURS.length]!,
      values: a.ys[i]!.map((v) => (v === null ? null : Math.round(v))),
      ...(i === 0 && { width: 3 }),
    })),
  };
}

export function trialsPayload(cmp: Comparison, sets: readonly SeriesSet[]): ChartPayload {
  const labels = cmp.trials.map((t) => t.setting.text);
  const metric = cmp.trials[0]?.measures.metric ?? "pss-anon";
  const tree = chart(
    "trials-tree",
    "tree",
    `${treeMetricLabel(metric)} of the tree, one line per setting (seconds from each run's start)`,
    sets.map((s) => s.tree[metric]),
    labels,
  );
  const cgroup = chart(
    "trials-cgroup",
    "cgroup",
    "The cgroup's usage, one line per setting",
    sets.map((s) => s.cgroup.cgroup),
    labels,
  );
  return {
    duration: Math.max(...sets.map((s) => s.duration)),
    warmupFrom: 0,
    warmup: cmp.measuredFrom,
    charts: [tree, cgroup].filter((c): c is ChartSpec => c !== undefined),
    omittedProcesses: 0,
  };
}

function row(t: ComparedTrial): string {
  const m = t.measures;
  const v = m.verdict;
  const change =
    t.effect === "helps"
      ? cutsText(t.vsBaseline!, t.noise!)
      : t.vsBaseline?.end !== undefined
        ? `end ${signedChange(t.vsBaseline.end)} (noise ±${formatBytes(t.noise)})`
        : "";
  const seen = t.inEffect
    ? t.inEffect.seen
      ? t.inEffect.how
      : `not in effect: ${t.inEffect.why}`
    : settingHow(t.setting);
  return `<tr><td>${h(t.setting.text)}</td><td><span class="badge kind-${h(v.kind)}">${h(v.kind)} ${Math.round(v.confidence * 100)}%</span></td><td class="num">${h(formatBytes(m.tree?.peak))}</td><td class="num">${h(formatBytes(m.tree?.end))}</td><td class="num">${h(signedChange(m.tree?.growth))}</td><td class="num">${h(formatBytes(m.cgroup?.end))}</td><td>${h(effectWord(t.effect))}${change ? `: ${h(change)}` : ""}</td><td>${h(seen)}</td></tr>`;
}

export function renderTrialsHtml(
  cmp: Comparison,
  command: string,
  sets: readonly SeriesSet[],
  about?: ReportAbout,
): string {
  const best = cmp.trials.find((t) => t.setting.text === cmp.recommendation.setting);
  const rec = cmp.recommendation;
  const kind = best
    ? best.measures.verdict.kind === "leak"
      ? "leak"
      : "stable"
    : cmp.trials[0]?.measures.verdict.kind === "leak"
      ? "leak"
      : "insufficient-data";
  const top = `<header class="top"><h1>memleak: allocator settings compared <span class="title">${h(command)}</span></h1></header>
<section class="banner kind-${h(kind)}"><div class="kind">${best ? `use ${h(best.setting.text)}` : "no setting helps"}</div>
<p class="summary">${h(rec.text)}</p>${best ? `<p class="rate">to keep it: ${h(settingUse(best.setting))}</p>` : ""}${(rec.also ?? []).map((a) => `<p class="rate">also helps: ${h(a)}</p>`).join("")}</section>
<p class="note">${h(measuredWhat(cmp, command))}</p>
<table class="trials"><thead><tr><th>setting</th><th>verdict</th><th class="num">peak</th><th class="num">end</th><th class="num">growth</th><th class="num">cgroup end</th><th>effect</th><th>in effect</th></tr></thead><tbody>
${cmp.trials.map(row).join("\n")}
</tbody></table>`;
  return htmlPage({
    tabTitle: `memleak: settings compared — ${command}`,
    top,
    payload: trialsPayload(cmp, sets),
    bottom: footer(about),
  });
}
