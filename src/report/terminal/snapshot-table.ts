/**
 * A snapshot as terminal text: the process table with tree totals, then the cgroup and its memory.stat breakdown.
 */
import Table from "cli-table3";
import type { Snapshot, SnapshotProcess } from "../../sampling/snapshot.js";
import { formatBytes } from "../../base/units.js";
import { palette, tableStyle } from "../style.js";
import { clip, displayWidth } from "../text-width.js";
import { safeText } from "../../base/safe-text.js";
import { shortCommand } from "../../base/command-text.js";

const PROCESS_COLUMNS = ["PID", "command", "RSS", "PSS", "USS", "anon", "file", "shmem", "swap", "thr"];
/** Dropped in this order when the table would be wider than the terminal (--json keeps every field). */
const DROP_ORDER = ["swap", "shmem", "thr", "file"];
/** The command column's narrowest: a name and a few letters of its script. */
const MIN_COMMAND = 14;

function processCells(p: SnapshotProcess, depth: number): string[] {
  const indent = depth > 0 ? "  ".repeat(depth - 1) + "└ " : "";
  return [
    String(p.pid),
    indent + safeText(shortCommand(p)),
    formatBytes(p.rss),
    formatBytes(p.pss),
    formatBytes(p.uss),
    formatBytes(p.anon),
    formatBytes(p.file),
    formatBytes(p.shmem),
    formatBytes(p.swap),
    p.threads === undefined ? "–" : String(p.threads),
  ];
}

/** Depth of each process below the target, from the ppid links. */
function depths(processes: SnapshotProcess[]): Map<number, number> {
  const byPid = new Map(processes.map((p) => [p.pid, p]));
  const d = new Map<number, number>();
  const depthOf = (pid: number, guard = 0): number => {
    if (d.has(pid)) return d.get(pid)!;
    const p = byPid.get(pid);
    const parent = p && byPid.get(p.ppid);
    const v = parent && guard < 64 ? depthOf(parent.pid, guard + 1) + 1 : 0;
    d.set(pid, v);
    return v;
  };
  for (const p of processes) depthOf(p.pid);
  return d;
}

/**
 * The process table, at most `columns` wide: numbers right-aligned; when it does not fit, the least needed columns
 * go first (swap, shmem, threads, file) and the command column takes what is left, cut with "…" (a 108-column table
 * wrapped into a mess at 80). A line under it says what was left out.
 */
export function renderProcessTable(snap: Snapshot, color: boolean, columns = 80): string {
  const c = palette(color);
  const d = depths(snap.processes);
  const t = snap.totals;
  const rows = snap.processes.map((p) => processCells(p, d.get(p.pid) ?? 0));
  const total = [
    "",
    `total (${snap.processes.length} process${snap.processes.length === 1 ? "" : "es"})`,
    ...[t.rss, t.pss, t.uss, t.anon, t.file, t.shmem, t.swap].map((v) => formatBytes(v)),
    t.threads === undefined ? "–" : String(t.threads),
  ];
  // Measured once, in the columns the text takes (text-width.ts), before the drop loop asks for them again and again.
  const widths = PROCESS_COLUMNS.map((head, i) =>
    Math.max(head.length, ...[...rows, total].map((r) => displayWidth(r[i]!))),
  );
  let shown = PROCESS_COLUMNS.map((_, i) => i);
  // Each column takes its text, a space either side and a border; the command column is sized last.
  const fixed = (cols: number[]) => cols.filter((i) => i !== 1).reduce((sum, i) => sum + widths[i]! + 3, 1 + 3);
  const dropped: string[] = [];
  for (const name of DROP_ORDER) {
    if (fixed(shown) + MIN_COMMAND <= columns) break;
    shown = shown.filter((i) => PROCESS_COLUMNS[i] !== name);
    dropped.push(name);
  }
  const commandWidth = Math.max(MIN_COMMAND, Math.min(widths[1]!, 60, columns - fixed(shown)));
  // The total's label is said shorter rather than cut to "total (3 proce…".
  if (displayWidth(total[1]!) > commandWidth)
    total[1] = `Σ ${snap.processes.length} process${snap.processes.length === 1 ? "" : "es"}`;
  const cell = (r: string[], i: number) => (i === 1 ? clip(r[i]!, commandWidth) : r[i]!);
  const table = new Table({
    head: shown.map((i) => PROCESS_COLUMNS[i]!),
    colAligns: shown.map((i) => (i === 1 ? "left" : "right")),
    style: { ...tableStyle(color), compact: true },
  });
  for (const r of rows) table.push(shown.map((i) => cell(r, i)));
  table.push(shown.map((i) => (i === 0 || i === PROCESS_COLUMNS.length - 1 ? cell(total, i) : c.bold(cell(total, i)))));
  const note = dropped.length
    ? `\n${c.dim(`${dropped.join(", ")} not shown at ${columns} columns (--json has every field)`)}`
    : "";
  return table.toString() + note;
}

/** @param columns the terminal's width (80 when unknown, as in a log): the title's directory goes on a line of its own */
export function renderCgroup(snap: Snapshot, color: boolean, columns = 80): string {
  const c = palette(color);
  const cg = snap.cgroup;
  if (!cg.location || !cg.reading) return c.yellow(`cgroup: ${cg.error ?? "unknown"}`);
  const r = cg.reading;
  const s = r.stat ?? {};
  const limit = r.limit === null ? "none" : formatBytes(r.limit);
  const lines: [string, string][] = [
    ["usage", formatBytes(r.usage)],
    ["working set", `${formatBytes(r.workingSet)}  (usage − inactive file, as Kubernetes counts it)`],
    ["limit", limit],
    ["headroom", cg.headroom === undefined ? "–" : `${formatBytes(cg.headroom)}  (limit − working set)`],
    ["peak", formatBytes(r.peak)],
    ["OOM kills", r.oomKills === undefined ? "–" : String(r.oomKills)],
  ];
  const breakdown: [string, number | undefined][] = [
    ["anon", s.anon],
    ["file (page cache)", s.file],
    ["  active file", s.activeFile],
    ["  inactive file", s.inactiveFile],
    ["shmem", s.shmem],
    ["kernel", r.kernel],
    ["slab", s.slab],
    ["sock", s.sock],
  ];
  const table = new Table({ style: { ...tableStyle(color), compact: true } });
  for (const [k, v] of lines) table.push([k, v]);
  const stat = new Table({ head: ["memory.stat", ""], style: { ...tableStyle(color), compact: true } });
  for (const [k, v] of breakdown) if (v !== undefined) stat.push([k, formatBytes(v)]);
  // A v1 path under a sandbox's or a pod's hierarchy is long, and its directory repeats it: on one line they passed
  // 80 columns (118 in docs/snapshot.md). The directory goes under the path when both do not fit a line.
  const head = `cgroup v${cg.location.version} ${safeText(cg.location.path)}`;
  const dir = `(${safeText(cg.location.dir)})`;
  const oneLine = displayWidth(head) + 2 + displayWidth(dir) <= columns - 1;
  const title = c.bold(head) + (oneLine ? c.dim(`  ${dir}`) : `\n${c.dim(`  ${dir}`)}`);
  return `${title}\n${table.toString()}\n${stat.toString()}`;
}

export function renderSnapshot(snap: Snapshot, color: boolean, columns?: number): string {
  const c = palette(color);
  const parts = [renderProcessTable(snap, color, columns)];
  if (snap.platform === "linux") parts.push(renderCgroup(snap, color, columns));
  for (const w of snap.warnings) parts.push(c.yellow(`! ${w}`));
  return parts.join("\n\n") + "\n";
}
