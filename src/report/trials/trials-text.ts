/**
 * `run --try`'s comparison in the terminal: one row per setting (the command as it is first) with its verdict and the
 * tree's memory, a line per setting with what changed and how it was seen in effect, the noise, and the setting to
 * use. Columns give way on a narrow terminal (the cgroup's first); the lines wrap.
 */
import Table from "cli-table3";
import type { ChalkInstance } from "chalk";
import { formatBytes } from "../../base/units.js";
import { safeText } from "../../base/safe-text.js";
import { palette, tableStyle } from "../style.js";
import { clip, displayWidth, wrap } from "../text-width.js";
import { kindColour } from "../vocabulary.js";
import { cutsText, type ComparedTrial, type Comparison, signedChange } from "../../trial/compare.js";
import { settingUse } from "../../trial/settings.js";
import { effectWord, measuredWhat } from "./trials-words.js";

const HEAD = ["setting", "verdict", "peak", "end", "growth", "cgroup end", "effect"];
/**
 * Dropped in this order when the table is wider than the terminal (--json keeps every number; each setting's line says
 * what changed). The effect, the row's answer, goes last: a trial called `insufficient-data 0%` widened the verdict
 * column by 10, and at 80 columns the table then dropped the effect before the growth (CI on b968c5b).
 */
const DROP_ORDER = ["cgroup end", "peak", "growth", "effect"];
const MAX_SETTING = 28;
const MIN_SETTING = 12;

function cells(t: ComparedTrial, c: ChalkInstance): string[] {
  const m = t.measures;
  const v = m.verdict;
  return [
    safeText(t.setting.text),
    kindColour(c, v.kind)(`${v.kind} ${Math.round(v.confidence * 100)}%`),
    formatBytes(m.tree?.peak),
    formatBytes(m.tree?.end),
    signedChange(m.tree?.growth),
    formatBytes(m.cgroup?.end),
    effectWord(t.effect),
  ];
}

function table(cmp: Comparison, color: boolean, columns: number): string {
  const c = palette(color);
  const rows = cmp.trials.map((t) => cells(t, c));
  const widths = HEAD.map((h, i) => Math.max(h.length, ...rows.map((r) => displayWidth(r[i]!))));
  // Each column takes its text, a space either side and a border; the setting's column is sized last.
  const others = (shown: number[]) => shown.filter((i) => i !== 0).reduce((sum, i) => sum + widths[i]! + 3, 1 + 3);
  let shown = HEAD.map((_, i) => i);
  for (const name of DROP_ORDER)
    if (others(shown) + Math.min(widths[0]!, MAX_SETTING) > columns) shown = shown.filter((i) => HEAD[i] !== name);
  const setting = Math.max(MIN_SETTING, Math.min(widths[0]!, MAX_SETTING, columns - others(shown)));
  const t = new Table({
    head: shown.map((i) => HEAD[i]!),
    colAligns: shown.map((i) => (i <= 1 || i === 6 ? "left" : "right")),
    style: { ...tableStyle(color), compact: true },
  });
  for (const r of rows) t.push(shown.map((i) => (i === 0 ? clip(r[i]!, setting) : r[i]!)));
  return t.toString();
}

/** What the setting changed, past the noise, and how it was seen in effect (or why it was not). */
function settingLine(t: ComparedTrial): string {
  const name = safeText(t.setting.text);
  if (t.effect === "baseline") return `${name}: ${safeText(t.measures.verdict.summary)}`;
  const what =
    t.effect === "failed"
      ? `the command failed (${t.exit.code !== null ? `exit code ${t.exit.code}` : `signal ${t.exit.signal}`}): not compared`
      : t.effect === "helps"
        ? `helps: ${cutsText(t.vsBaseline!, t.noise!)}`
        : `${effectWord(t.effect)}: ${differences(t)}`;
  const effect = t.inEffect
    ? t.inEffect.seen
      ? `in effect: ${t.inEffect.how}`
      : `NOT in effect: ${t.inEffect.why}`
    : undefined;
  return `${name}: ${what}${effect ? `; ${safeText(effect)}` : ""}`;
}

function differences(t: ComparedTrial): string {
  const d = t.vsBaseline ?? {};
  const parts = [
    d.end !== undefined && `end ${signedChange(d.end)}`,
    d.growth !== undefined && `growth ${signedChange(d.growth)}`,
    d.peak !== undefined && `peak ${signedChange(d.peak)}`,
  ].filter(Boolean);
  return `${parts.join(", ")} (noise ±${formatBytes(t.noise)})`;
}

export function renderTrials(cmp: Comparison, command: string, color: boolean, columns = 80): string {
  const c = palette(color);
  const out: string[] = [];
  const base = cmp.trials[0]!;
  out.push(...wrap(`${measuredWhat(cmp, command)}`, columns).map((l) => c.bold(l)));
  out.push(table(cmp, color, columns));
  for (const t of cmp.trials) out.push(...wrap(settingLine(t), columns, "", "  "));
  const best = cmp.trials.find((t) => t.setting.text === cmp.recommendation.setting);
  const rec = cmp.recommendation;
  const line = best ? `→ use ${rec.text}; to keep it: ${settingUse(best.setting)}` : `→ ${rec.text}`;
  out.push(...wrap(safeText(line), columns, "", "  ").map((l) => c.bold(l)));
  for (const also of rec.also ?? []) out.push(...wrap(safeText(`also helps: ${also}`), columns, "  ", "    "));
  if (base.measures.tree === undefined) out.push(c.yellow("! the command as it is gave no readings of its tree"));
  return out.join("\n") + "\n";
}
