/**
 * The target and all its descendants, rediscovered every tick so new workers appear and dead ones drop out.
 * Primary source: /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN, one read per thread; cheap). Fallback when that
 * file does not exist: scan every /proc/N/stat for its ppid. A process that vanishes mid-walk is simply skipped.
 */
import { parseStat } from "../probes/stat.js";
import type { HostFs } from "./host-fs.js";

export interface TreeNode {
  pid: number;
  ppid: number;
}

function childrenViaTasks(fs: HostFs, pid: number): number[] | undefined {
  const tasks = fs.list(`/proc/${pid}/task`);
  if (tasks.length === 0) return undefined;
  const kids: number[] = [];
  let sawFile = false;
  for (const tid of tasks) {
    const text = fs.readOptional(`/proc/${pid}/task/${tid}/children`);
    if (text === undefined) continue;
    sawFile = true;
    for (const word of text.split(/\s+/)) {
      const n = Number(word);
      if (word !== "" && Number.isSafeInteger(n) && n > 0) kids.push(n);
    }
  }
  return sawFile ? kids : undefined;
}

/** pid → ppid for every process on the host; used only when the children files are unavailable. */
function scanParents(fs: HostFs): Map<number, number> {
  const parents = new Map<number, number>();
  for (const name of fs.list("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const text = fs.readOptional(`/proc/${name}/stat`);
    if (text === undefined) continue;
    const st = parseStat(text);
    if (st.ok) parents.set(st.value.pid, st.value.ppid);
  }
  return parents;
}

/** Breadth-first from rootPid; root first. Returns [] if the root itself is gone. */
export function processTree(fs: HostFs, rootPid: number): TreeNode[] {
  const rootStat = fs.readOptional(`/proc/${rootPid}/stat`);
  if (rootStat === undefined) return [];
  const parsedRoot = parseStat(rootStat);
  const nodes: TreeNode[] = [{ pid: rootPid, ppid: parsedRoot.ok ? parsedRoot.value.ppid : 0 }];
  const seen = new Set([rootPid]);
  let scanned: Map<number, number> | undefined;
  for (let i = 0; i < nodes.length; i++) {
    const parent = nodes[i]!.pid;
    let kids = childrenViaTasks(fs, parent);
    if (kids === undefined) {
      scanned ??= scanParents(fs);
      kids = [...scanned].filter(([, pp]) => pp === parent).map(([pid]) => pid);
    }
    for (const kid of kids) {
      if (seen.has(kid)) continue;
      seen.add(kid);
      nodes.push({ pid: kid, ppid: parent });
    }
  }
  return nodes;
}
