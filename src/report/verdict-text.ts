/**
 * The final report in the terminal, readable at 80 columns: a table of the subjects (each process, the tree, the
 * cgroup) with the numbers of the metric that decided each and a sparkline, then the verdict in colour with its
 * one-sentence reason, the evidence, the advice, what could not be decided, the other findings and the gates.
 *
 * Every line fits in `columns` (long words, such as cgroup paths, are broken). Text from the target goes through
 * safeText so it cannot move the cursor or recolour the terminal.
 */
import type { ChalkInstance } from "chalk";
import type { Column } from "../analysis/column.js";
import type { ProcessSeries, SeriesSet } from "../analysis/series.js";
import type { Finding, MetricName, VerdictDocument } from "../analysis/types.js";
import { formatRate } from "../analysis/evidence.js";
import { formatBytes, formatDuration } from "../units.js";
import { markdownBlocks, plainInline } from "./html/markdown.js";
import { sparkline } from "./sparkline.js";
import { palette } from "./style.js";
import { safeText } from "../safe-text.js";
import { processKey } from "../process-key.js";

// ---------------------------------------------------------------- words shared with the HTML report

export const KIND_LABEL: Record<Finding["kind"], string> = {
  leak: "LEAK",
  fragmentation: "ALLOCATOR RETENTION (fragmentation)",
  "cgroup-artefact": "CGROUP ACCOUNTING ARTEFACT",
  cow: "COPY-ON-WRITE",
  plateau: "PLATEAU",
  stable: "STABLE",
  "insufficient-data": "NOT ENOUGH DATA",
};

/** "PID 42 (child of 7)", "process tree", "cgroup /a/b" — from the target, so pass it through safeText/escape. */
export function subjectText(f: Finding): string {
  if (f.subject.type === "process") return `PID ${f.subject.pid}${f.subject.isRoot ? "" : ` (child of ${f.subject.ppid})`}`;
  if (f.subject.type === "tree") return "process tree";
  return `cgroup ${f.subject.path}`;
}

const BYTES_KEY = /(start|end|peak|growth|Growth|Bytes|bytes|noise|limit|bound|Drop)$/;

/** An evidence number as a person reads it: sizes in binary units, seconds as durations, rates per second. */
export function evidenceValue(key: string, v: number | string | boolean): string {
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (typeof v === "string") return v;
  if (/BytesPerSecond$/.test(key)) return `${formatBytes(v)}/s`;
  if (/Seconds$/.test(key)) return v === 0 ? "0s" : formatDuration(v);
  if (BYTES_KEY.test(key) && !/samples/.test(key)) return formatBytes(v);
  return String(v);
}

function kindColour(c: ChalkInstance, kind: Finding["kind"]): (s: string) => string {
  if (kind === "leak") return c.bold.red;
  if (kind === "fragmentation" || kind === "cow") return c.bold.yellow;
  if (kind === "cgroup-artefact") return c.bold.magenta;
  if (kind === "insufficient-data") return c.bold.gray;
  return c.bold.green;
}

// ---------------------------------------------------------------- measuring and wrapping

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

/** Columns a line takes: ANSI colour codes take none; every other code point one (CJK in a command line is the rare exception). */
export function displayWidth(text: string): number {
  return [...text.replace(ANSI, "")].length;
}

function clip(text: string, width: number): string {
  const cps = [...text];
  return cps.length <= width ? text : cps.slice(0, Math.max(0, width - 1)).join("") + "…";
}

/** Word-wraps plain text; a word longer than the line (a path) is broken where the line ends. */
export function wrap(text: string, width: number, indent = "", hanging = indent): string[] {
  const lines: string[] = [];
  let line = indent;
  let lineHasWord = false;
  // A size stays on one line with its unit ("10.2 MiB"), so the space before a unit is not a break.
  for (const word of text.split(/\s+(?!(?:B|KiB|MiB|GiB|TiB)\b)/).filter(Boolean)) {
    const room = width - displayWidth(line) - (lineHasWord ? 1 : 0);
    if (displayWidth(word) <= room) {
      line += (lineHasWord ? " " : "") + word;
      lineHasWord = true;
      continue;
    }
    if (lineHasWord) lines.push(line);
    line = lineHasWord || lines.length > 0 ? hanging : indent;
    let rest = [...word];
    while (rest.length > Math.max(1, width - displayWidth(line))) {
      const avail = Math.max(1, width - displayWidth(line));
      lines.push(line + rest.slice(0, avail).join(""));
      line = hanging;
      rest = rest.slice(avail);
    }
    line += rest.join("");
    lineHasWord = true;
  }
  if (lineHasWord || lines.length === 0) lines.push(line);
  return lines;
}

// ---------------------------------------------------------------- the subjects table

interface Row {
  label: string;
  metric: MetricName;
  start?: number;
  end?: number;
  peak?: number;
  growth?: number;
  perHour?: number;
  values?: readonly number[];
  finding?: Finding;
}

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const keyOf = (f: Finding) => (f.subject.type === "process" ? processKey(f.subject) : f.subject.type);

/** Numbers of one subject: the finding's own (its analysed window) when it has them, else the column's after warm-up. */
function rowFor(label: string, metric: MetricName, f: Finding | undefined, col: Column | undefined, warmup: number): Row {
  const row: Row = { label, metric, ...(f && { finding: f }) };
  const e = f?.evidence ?? {};
  if (col && col.length > 0) {
    row.values = col.ys;
    let i = col.xs.findIndex((x) => x >= warmup);
    if (i < 0) i = 0;
    const ys = col.ys.slice(i);
    row.start = ys[0];
    row.end = ys[ys.length - 1];
    row.peak = ys.reduce((m, y) => (y > m ? y : m), -Infinity);
    row.growth = row.end! - row.start!;
  }
  if (num(e.start) !== undefined && num(e.end) !== undefined) {
    row.start = num(e.start);
    row.end = num(e.end);
    row.peak = num(e.peak) ?? row.peak;
    row.growth = num(e.growth) ?? row.end! - row.start!;
  }
  if (f?.rate) row.perHour = f.rate.bytesPerSecond * 3600;
  return row;
}

const MAX_PROCESS_ROWS = 10;

/** Root first, then each child under its parent (depth-first), so the labels can draw the tree. */
function treeOrder(set: SeriesSet): { ps: ProcessSeries; depth: number }[] {
  const all = [...set.processes.values()].sort((a, b) => a.firstSeen - b.firstSeen || a.pid - b.pid);
  const pids = new Set(all.map((p) => p.pid));
  const out: { ps: ProcessSeries; depth: number }[] = [];
  const seen = new Set<ProcessSeries>();
  const visit = (ps: ProcessSeries, depth: number) => {
    if (seen.has(ps)) return;
    seen.add(ps);
    out.push({ ps, depth });
    for (const c of all) if (c.ppid === ps.pid && c !== ps) visit(c, depth + 1);
  };
  for (const ps of all) if (ps.pid === set.rootPid || !pids.has(ps.ppid)) visit(ps, ps.pid === set.rootPid ? 0 : 1);
  for (const ps of all) visit(ps, 1);
  return out;
}

function processRows(doc: VerdictDocument, set: SeriesSet): { rows: Row[]; omitted: number } {
  const byKey = new Map(doc.findings.map((f) => [keyOf(f), f]));
  const ordered = treeOrder(set);
  // Too many workers for one screen: keep the root, the verdict's subject, every process with something to say,
  // then the largest; the order on screen stays the tree's.
  const important = (ps: ProcessSeries) => {
    const f = byKey.get(processKey(ps));
    if (ps.pid === set.rootPid || processKey(ps) === keyOf(doc.verdict)) return 0;
    return f && f.kind !== "stable" && f.kind !== "insufficient-data" ? 1 : 2;
  };
  const size = (ps: ProcessSeries) => (ps.metrics.anon ?? ps.metrics.rss)?.max() ?? 0;
  const keep = new Set(
    [...ordered]
      .sort((a, b) => important(a.ps) - important(b.ps) || size(b.ps) - size(a.ps))
      .slice(0, MAX_PROCESS_ROWS)
      .map((o) => o.ps),
  );
  const rows = ordered
    .filter((o) => keep.has(o.ps))
    .map(({ ps, depth }) => {
      const f = byKey.get(processKey(ps));
      const metric = f?.metric ?? (ps.metrics.anon ? "anon" : "rss");
      const label = depth === 0 ? `PID ${ps.pid}` : `${" ".repeat(Math.min(depth - 1, 3))}└ ${ps.pid}`;
      return rowFor(label, metric, f, ps.metrics[metric], doc.window.warmup);
    });
  return { rows, omitted: ordered.length - rows.length };
}

function subjectRows(doc: VerdictDocument, set: SeriesSet | undefined): { rows: Row[]; omitted: number } {
  if (!set) {
    const rows = doc.findings.map((f) => {
      const label = f.subject.type === "process" ? `PID ${f.subject.pid}` : f.subject.type;
      return rowFor(label, f.metric, f, undefined, doc.window.warmup);
    });
    return { rows, omitted: 0 };
  }
  const { rows, omitted } = processRows(doc, set);
  const tree = doc.findings.find((f) => f.subject.type === "tree");
  if (set.processes.size > 1) {
    const metric = tree?.metric ?? (set.tree.pss ? "pss" : "rss");
    rows.push(rowFor(`tree (${set.treeCount.max() ?? set.processes.size})`, metric, tree, set.tree[metric], doc.window.warmup));
  }
  const cg = doc.findings.find((f) => f.subject.type === "cgroup");
  if (cg || set.cgroup.cgroup) {
    const metric = cg?.metric ?? "cgroup";
    rows.push(rowFor("cgroup", metric, cg, set.cgroup[metric], doc.window.warmup));
  }
  return { rows, omitted };
}

interface TableColumn {
  head: string;
  width: number;
  right: boolean;
  /** Dropped first when the terminal is narrow (highest first). */
  drop: number;
  cell: (r: Row) => string;
}

const signed = (v: number | undefined) => (v === undefined ? "–" : `${v > 0 ? "+" : ""}${formatBytes(v)}`);

function table(rows: Row[], c: ChalkInstance, columns: number, ascii: boolean): string[] {
  const cols: TableColumn[] = [
    { head: "subject", width: 11, right: false, drop: 0, cell: (r) => r.label },
    { head: "metric", width: 6, right: false, drop: 3, cell: (r) => r.metric },
    { head: "start", width: 8, right: true, drop: 2, cell: (r) => formatBytes(r.start) },
    { head: "end", width: 8, right: true, drop: 0, cell: (r) => formatBytes(r.end) },
    { head: "peak", width: 8, right: true, drop: 4, cell: (r) => formatBytes(r.peak) },
    { head: "growth", width: 9, right: true, drop: 0, cell: (r) => signed(r.growth) },
    { head: "per hour", width: 9, right: true, drop: 1, cell: (r) => signed(r.perHour) },
  ];
  const used = () => cols.reduce((s, col) => s + col.width + 1, -1);
  const hasSpark = rows.some((r) => r.values && r.values.length > 1);
  // The sparkline takes what is left (up to 32 columns); narrow terminals lose it first, then the least needed numbers.
  let spark = hasSpark ? Math.min(32, columns - used() - 2) : 0;
  while ((spark > 0 && spark < 6) || (spark <= 0 && used() > columns)) {
    if (spark > 0) {
      spark = 0;
      continue;
    }
    const victim = cols.reduce((a, b) => (b.drop > a.drop ? b : a));
    if (victim.drop === 0) break;
    cols.splice(cols.indexOf(victim), 1);
  }
  const cellText = (col: TableColumn, text: string) => {
    const t = clip(text, col.width);
    const pad = " ".repeat(Math.max(0, col.width - displayWidth(t)));
    return col.right ? pad + t : t + pad;
  };
  const head = cols.map((col) => cellText(col, col.head)).join(" ") + (spark > 0 ? "  trend" : "");
  const out = [c.dim(clip(head.trimEnd(), columns))];
  for (const r of rows) {
    const colour = r.finding && r.finding.kind !== "stable" ? kindColour(c, r.finding.kind) : (s: string) => s;
    const cells = cols.map((col, i) => (i === 0 ? colour(cellText(col, safeText(col.cell(r)))) : cellText(col, col.cell(r))));
    let line = cells.join(" ");
    if (spark > 0 && r.values && r.values.length > 1) {
      const peak = r.values.reduce((m, y) => Math.max(m, Math.abs(y)), 0);
      // Scale to at least 4% of the level, so a few KiB of noise on a flat process does not fill the whole height.
      line += "  " + colour(sparkline(r.values, spark, ascii, 0.04 * peak));
    }
    out.push(line.trimEnd());
  }
  return out;
}

// ---------------------------------------------------------------- the verdict

function evidenceLines(f: Finding, columns: number): string[] {
  const entries = Object.entries(f.evidence).map(([k, v]) => [safeText(k), safeText(evidenceValue(k, v))] as const);
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
  // wrap() re-flows whitespace, so the padded key goes in as the first line's prefix, not as text.
  return entries.flatMap(([k, v]) => wrap(v, columns, `  ${k.padEnd(keyW)} `, " ".repeat(keyW + 3)));
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
function siteLines(sites: NonNullable<VerdictDocument["verdict"]["sites"]>, columns: number): string[] {
  return sites.slice(0, 10).map((s) => {
    const head = `  ${`+${formatBytes(s.sizeDiff)}`.padStart(11)} ${`${s.countDiff >= 0 ? "+" : ""}${s.countDiff}`.padStart(8)}  `;
    const where = safeText(`${s.file}:${s.line}`);
    const room = Math.max(10, columns - head.length);
    return head + (where.length > room ? "…" + where.slice(where.length - room + 1) : where);
  });
}

export function renderVerdict(doc: VerdictDocument, color: boolean, set?: SeriesSet, columns = 80, ascii = false): string {
  const c = palette(color);
  const v = doc.verdict;
  const w = doc.window;
  const out: string[] = [];
  out.push(...wrap(`observed ${formatDuration(w.end - w.start)}, ${w.samples} samples every ${formatDuration(w.interval)}${w.warmup > 0 ? `, warm-up ${formatDuration(w.warmup)} left out` : ""}`, columns).map((l) => c.dim(l)));

  const { rows, omitted } = subjectRows(doc, set);
  if (rows.length) {
    out.push("", ...table(rows, c, columns, ascii));
    if (omitted > 0) out.push(c.dim(`… and ${omitted} more process${omitted === 1 ? "" : "es"}, all stable`));
  }

  out.push("");
  out.push(...headed(`verdict: ${KIND_LABEL[v.kind]}`, kindColour(c, v.kind), ` — ${safeText(subjectText(v))}, confidence ${Math.round(v.confidence * 100)}%`, c, columns));
  out.push(...wrap(safeText(v.summary), columns));
  if (v.rate && v.kind !== "stable" && v.kind !== "insufficient-data") out.push(...wrap(`rate: ${v.metric} ${formatRate(v.rate)}`, columns));
  out.push("", c.bold("evidence"), ...evidenceLines(v, columns));
  if (v.sites?.length) out.push("", c.bold("allocation sites that grew since warm-up (tracemalloc)"), ...siteLines(v.sites, columns));
  if (v.advice) out.push("", c.bold("what to do"), ...adviceLines(v.advice, columns));
  if (v.caveats.length) out.push("", c.bold("notes"), ...v.caveats.flatMap((x) => wrap(safeText(x), columns, "  - ", "    ")));
  const others = doc.findings.filter((f) => f !== v && f.summary !== v.summary);
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
