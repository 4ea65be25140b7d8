/**
 * The final report in the terminal, readable at 80 columns: the table of the subjects (subjects-table.ts), then the
 * verdict in colour with its one-sentence reason, the evidence, the advice, what could not be decided, the other
 * findings and the gates.
 *
 * Every line fits in `columns` (long words, such as cgroup paths, are broken). Text from the target goes through
 * safeText so it cannot move the cursor or recolour the terminal.
 */
import type { ChalkInstance } from "chalk";
import type { SeriesSet } from "../../series/series.js";
import type { Finding, VerdictDocument } from "../../analysis/types.js";
import { formatRate, samplingText } from "../wording/numbers.js";
import { formatBytes } from "../../base/units.js";
import { markdownBlocks, plainInline } from "../html/markdown.js";
import { palette } from "../style.js";
import { safeText } from "../../base/safe-text.js";
import { subjectsTable } from "./subjects-table.js";
import { testsTable } from "../pytest/table.js";
import { nativeStackLines } from "../native/stacks-text.js";
import { clip, displayWidth, wrap } from "../text-width.js";
import { evidenceValue, KIND_LABEL, kindColour, subjectText } from "../vocabulary.js";
import { everyFinding } from "../../analysis/every-finding.js";
import {
  gpuHistoryCost,
  holderCost,
  holderHeadline,
  holderHops,
  holderWhere,
  sitesHeading,
  traceWindowCost,
} from "../holder-lines.js";
import { copiedCost, copiedHeadline, copiedObjectLine } from "../copied-lines.js";
import { evidenceLabel } from "../evidence-labels.js";
import { rateShown } from "../rate-shown.js";
import { observedText } from "../observed.js";

function evidenceLines(f: Finding, columns: number): string[] {
  const entries = Object.entries(f.evidence).map(
    ([k, v]) => [safeText(evidenceLabel(k)), safeText(evidenceValue(k, v))] as const,
  );
  // The JSON keeps the raw keys (scripts read them); a person reads what each is called (evidence-labels.ts).
  const keyW = 20;
  const valW = 15;
  const cellW = 2 + keyW + 1 + valW;
  // Two columns when every entry fits one: evidence is a long list of short numbers.
  if (columns >= 2 * cellW + 1 && entries.every(([k, v]) => displayWidth(k) <= keyW && displayWidth(v) <= valW)) {
    const half = Math.ceil(entries.length / 2);
    const cell = ([k, v]: readonly [string, string]) => `  ${k.padEnd(keyW)} ${v}`;
    const lines: string[] = [];
    for (let i = 0; i < half; i++) {
      const left = cell(entries[i]!);
      const right = entries[i + half];
      lines.push(right ? left.padEnd(cellW + 1) + cell(right) : left);
    }
    return lines;
  }
  // One column, keys as wide as the widest label (a third of the line at most, so the values keep room).
  // wrap() re-flows whitespace, so the padded key goes in as the first line's prefix, not as text.
  const oneW = Math.min(Math.max(keyW, ...entries.map(([k]) => displayWidth(k))), Math.floor(columns / 3));
  const indent = " ".repeat(oneW + 3);
  return entries.flatMap(([k, v]) =>
    // A label wider than that has a line of its own, its value indented below it.
    displayWidth(k) <= oneW
      ? wrap(v, columns, `  ${k.padEnd(oneW)} `, indent)
      : [...wrap(k, columns, "  ", "  "), ...wrap(v, columns, indent, indent)],
  );
}

function adviceLines(md: string, columns: number): string[] {
  const out: string[] = [];
  for (const b of markdownBlocks(md)) {
    if (out.length) out.push("");
    if (b.type === "p") out.push(...wrap(safeText(plainInline(b.text)), columns));
    else for (const item of b.items) out.push(...wrap(safeText(plainInline(item)), columns, "- ", "  "));
  }
  return out;
}

/** `head` coloured and `rest` dimmed on one line when they fit, else the head alone and the rest wrapped below. */
function headed(head: string, paint: (s: string) => string, rest: string, c: ChalkInstance, columns: number): string[] {
  if (displayWidth(head + rest) <= columns) return [paint(head) + c.dim(rest)];
  return [paint(clip(head, columns)), ...wrap(rest.replace(/^\s*—\s*/, ""), columns).map((l) => c.dim(l))];
}

/** "+12.3 MiB  +2400  app.py:42", the path shortened from the left to fit. */
function siteLines(
  sites: NonNullable<VerdictDocument["verdict"]["sites"]>,
  columns: number,
  c: ChalkInstance,
): string[] {
  return sites.slice(0, 10).flatMap((s) => {
    const head = `  ${`+${formatBytes(s.sizeDiff)}`.padStart(11)} ${`${s.countDiff >= 0 ? "+" : ""}${s.countDiff}`.padStart(8)}  `;
    // A GPU site names its function (the allocator's stacks carry it), and below it the library frame it went through.
    const room = Math.max(10, columns - head.length);
    const line = head + leftClipped(safeText(`${s.file}:${s.line}${s.function ? ` ${s.function}` : ""}`), room);
    return s.via ? [line, c.dim(" ".repeat(head.length) + `via ${leftClipped(safeText(s.via), room - 4)}`)] : [line];
  });
}

/** A path shortened from the left to fit: its file and line are what matter. */
const leftClipped = (s: string, room: number) => (s.length > room ? "…" + s.slice(s.length - room + 1) : s);

function holderLines(x: NonNullable<Finding["holder"]>, columns: number, c: ChalkInstance): string[] {
  const hops = holderHops(x);
  return [
    ...wrap(safeText(holderHeadline(x)), columns, "  ", "    "),
    ...(hops ? wrap(safeText(hops), columns, "  ", "    ").map((l) => c.dim(l)) : []),
    ...[holderWhere(x)].flatMap((where) =>
      where ? wrap(safeText(where), columns, "  ", "    ").map((l) => c.dim(l)) : [],
    ),
    ...wrap(holderCost(x), columns, "  ", "    ").map((l) => c.dim(l)),
  ];
}

function copiedLines(x: NonNullable<Finding["copied"]>, columns: number, c: ChalkInstance): string[] {
  const cost = copiedCost(x);
  return [
    ...wrap(safeText(copiedHeadline(x)), columns, "  ", "    "),
    ...x.objects.flatMap((o) => wrap(safeText(copiedObjectLine(o)), columns, "  - ", "    ")),
    ...(cost ? wrap(cost, columns, "  ", "    ").map((l) => c.dim(l)) : []),
  ];
}

export function renderVerdict(
  doc: VerdictDocument,
  color: boolean,
  set?: SeriesSet,
  columns = 80,
  ascii = false,
): string {
  const c = palette(color);
  const v = doc.verdict;
  const w = doc.window;
  const out: string[] = [];
  // A run too short for any sample says so (the verdict's reason), not "observed 0ms, 0 samples every 0ms".
  if (w.samples > 0)
    out.push(
      ...wrap(`observed ${observedText(w, (warmup) => `warm-up ${warmup} left out`)}`, columns).map((l) => c.dim(l)),
    );
  // How fresh PSS/USS were and what memleak took: the numbers below are only as good as the readings.
  if (doc.sampling && doc.sampling.ticks > 0)
    out.push(...wrap(samplingText(doc.sampling), columns).map((l) => c.dim(l)));

  // memleak pytest: the tests' results are the answer asked for, so they come first; the verdict below is the whole
  // pytest process's (a short suite is often too short for one: "not enough data" must not read as the result).
  const tests = testsTable(doc, c, columns);
  if (tests.length) out.push(...tests, "", c.dim("the pytest process as a whole"));

  out.push(...subjectsTable(doc, set, c, columns, ascii));

  out.push("");
  out.push(
    ...headed(
      `${tests.length ? "whole process" : "verdict"}: ${KIND_LABEL[v.kind]}`,
      kindColour(c, v.kind),
      ` — ${safeText(subjectText(v))}, confidence ${Math.round(v.confidence * 100)}%`,
      c,
      columns,
    ),
  );
  out.push(...wrap(safeText(v.summary), columns));
  if (v.rate && rateShown(v.kind)) out.push(...wrap(`rate: ${v.metric} ${formatRate(v.rate)}`, columns));
  if (v.timeToLimit) out.push(...wrap(`time to the limit: ${safeText(v.timeToLimit.summary)}`, columns));
  out.push("", c.bold("evidence"), ...evidenceLines(v, columns));
  const window = traceWindowCost(v) ?? gpuHistoryCost(v);
  if (v.sites?.length) out.push("", c.bold(sitesHeading(v)), ...siteLines(v.sites, columns, c));
  if (window) out.push(...wrap(window, columns, "  ", "    ").map((l) => c.dim(l)));
  if (v.holder) out.push("", c.bold("what holds it"), ...holderLines(v.holder, columns, c));
  if (v.copied) out.push("", c.bold("what it copied"), ...copiedLines(v.copied, columns, c));
  out.push(...nativeStackLines(doc.nativeTrace, c, columns));
  if (v.advice) out.push("", c.bold("what to do"), ...adviceLines(v.advice, columns));
  if (v.caveats.length)
    out.push("", c.bold("notes"), ...v.caveats.flatMap((x) => wrap(safeText(x), columns, "  - ", "    ")));
  // The other findings of the verdict's own subject first (a state beside its trend), then the other subjects'.
  const others = everyFinding([v, ...doc.findings.filter((f) => f !== v && f.summary !== v.summary)]).slice(1);
  if (others.length) {
    out.push("", c.bold("other findings"));
    const kw = Math.min(17, Math.max(...others.map((f) => f.kind.length)));
    for (const f of others) {
      const lines = wrap(safeText(f.summary), columns, " ".repeat(kw + 3), " ".repeat(kw + 3));
      lines[0] = `  ${kindColour(c, f.kind)(f.kind.padEnd(kw))} ${lines[0]!.slice(kw + 3)}`;
      out.push(...lines);
    }
  }
  if (doc.gates?.length) {
    out.push("", c.bold("gates"));
    for (const g of doc.gates) {
      const lines = wrap(`${g.name}: ${safeText(g.message)}`, columns, "       ", "       ");
      lines[0] = `  ${g.result === "pass" ? c.green("pass") : g.passed ? c.yellow("warn") : c.red("FAIL")} ${lines[0]!.slice(7)}`;
      out.push(...lines);
    }
  }
  return out.join("\n") + "\n";
}
