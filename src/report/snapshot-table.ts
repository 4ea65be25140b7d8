/**
 * A snapshot as terminal text: the process table with tree totals, then the cgroup and its memory.stat breakdown.
 */
import Table from "cli-table3";
import type { Snapshot, SnapshotProcess } from "../snapshot.js";
import { formatBytes } from "../units.js";
import { palette, tableStyle, truncate } from "./style.js";
import { safeText } from "../safe-text.js";
import { shortCommand } from "../command-text.js";

const PROCESS_COLUMNS = ["PID", "command", "RSS", "PSS", "USS", "anon", "file", "shmem", "swap", "thr"];


function commandOf(p: SnapshotProcess, width: number): string {
  const text = shortCommand(p);
  return truncate(safeText(text), width);
}

function processRow(p: SnapshotProcess, depth: number, cmdWidth: number): string[] {
  const indent = depth > 0 ? "  ".repeat(depth - 1) + "└ " : "";
  return [
    String(p.pid),
    indent + commandOf(p, Math.max(8, cmdWidth - indent.length)),
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

export function renderProcessTable(snap: Snapshot, color: boolean, columns = 100): string {
  const c = palette(color);
  // Nine numeric columns take ~75 characters; the command gets the rest, but never less than 16.
  const cmdWidth = Math.max(16, Math.min(60, columns - 80));
  const table = new Table({ head: PROCESS_COLUMNS, style: { ...tableStyle(color), compact: true } });
  const d = depths(snap.processes);
  for (const p of snap.processes) table.push(processRow(p, d.get(p.pid) ?? 0, cmdWidth));
  const t = snap.totals;
  table.push([
    "",
    c.bold(`total (${snap.processes.length} process${snap.processes.length === 1 ? "" : "es"})`),
    ...[t.rss, t.pss, t.uss, t.anon, t.file, t.shmem, t.swap].map((v) => c.bold(formatBytes(v))),
    t.threads === undefined ? "–" : String(t.threads),
  ]);
  return table.toString();
}

export function renderCgroup(snap: Snapshot, color: boolean): string {
  const c = palette(color);
  const cg = snap.cgroup;
  if (!cg.location || !cg.reading) return c.yellow(`cgroup: ${cg.error ?? "unknown"}`);
  const r = cg.reading;
  const s = r.stat ?? {};
  const limit = r.limit === null ? "none" : formatBytes(r.limit);
  const lines: [string, string][] = [
    ["usage", formatBytes(r.usage)],
    ["working set", `${formatBytes(r.workingSet)}  (usage − inactive file: what Kubernetes and docker stats show)`],
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
  const title = c.bold(`cgroup v${cg.location.version} ${safeText(cg.location.path)}`) + c.dim(`  (${cg.location.dir})`);
  return `${title}\n${table.toString()}\n${stat.toString()}`;
}

export function renderSnapshot(snap: Snapshot, color: boolean, columns?: number): string {
  const c = palette(color);
  const parts = [renderProcessTable(snap, color, columns)];
  if (snap.platform === "linux") parts.push(renderCgroup(snap, color));
  for (const w of snap.warnings) parts.push(c.yellow(`! ${w}`));
  return parts.join("\n\n") + "\n";
}
