/**
 * The target and all its descendants, rediscovered every tick so new workers appear and dead ones drop out.
 * Primary source: /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN, one read per thread; cheap). Fallback when that
 * file does not exist: scan every /proc/N/stat for its ppid. A process that vanishes mid-walk is simply skipped.
 */
import { exactCountAt, isBlank } from "../probes/colon-bytes.js";
import { parseStatBytes } from "../probes/stat.js";
import type { HostFs } from "./host-fs.js";
import type { AgentThreads } from "./agent-threads.js";

export interface TreeNode {
  pid: number;
  ppid: number;
}

/**
 * The pids a children file lists ("123 456 "), pushed onto `kids`, read from its bytes (one file per thread of every
 * process, every tick). A word that is not a positive count is skipped.
 */
function pushChildren(bytes: Uint8Array, kids: number[]): void {
  let i = 0;
  while (i < bytes.length) {
    while (i < bytes.length && isBlank(bytes[i])) i++;
    const start = i;
    while (i < bytes.length && !isBlank(bytes[i])) i++;
    const n = exactCountAt(bytes, start, i);
    if (n !== undefined && n > 0) kids.push(n);
  }
}

function childrenViaTasks(fs: HostFs, pid: number, agents: AgentThreads | undefined): number[] | undefined {
  const tasks = fs.list(`/proc/${pid}/task`);
  if (tasks.length === 0) return undefined;
  const kids: number[] = [];
  let sawFile = false;
  for (const tid of tasks) {
    // The agent's own thread never forks. It is not counted as a children file seen: a process whose program threads'
    // files all failed still falls back to the scan of every parent.
    if (agents?.isAgent(pid, tid)) continue;
    if (fs.readWith(`/proc/${pid}/task/${tid}/children`, (bytes) => pushChildren(bytes, kids)).ok) sawFile = true;
  }
  return sawFile ? kids : undefined;
}

/** pid → ppid for every process on the host; used only when the children files are unavailable. */
function scanParents(fs: HostFs): Map<number, number> {
  const parents = new Map<number, number>();
  for (const name of fs.list("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const st = fs.readWith(`/proc/${name}/stat`, parseStatBytes);
    if (st.ok && st.value.ok) parents.set(st.value.value.pid, st.value.value.ppid);
  }
  return parents;
}

/**
 * Breadth-first from rootPid; root first. Returns [] if the root itself is gone. `agents`: the sampler's record of
 * memleak's agent threads, whose children files are left out (a one-off walk reads them all).
 */
export function processTree(fs: HostFs, rootPid: number, agents?: AgentThreads): TreeNode[] {
  const rootStat = fs.readWith(`/proc/${rootPid}/stat`, parseStatBytes);
  if (!rootStat.ok) return [];
  agents?.beginWalk();
  const parsedRoot = rootStat.value;
  const nodes: TreeNode[] = [{ pid: rootPid, ppid: parsedRoot.ok ? parsedRoot.value.ppid : 0 }];
  const seen = new Set([rootPid]);
  let scanned: Map<number, number> | undefined;
  for (let i = 0; i < nodes.length; i++) {
    const parent = nodes[i]!.pid;
    let kids = childrenViaTasks(fs, parent, agents);
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
  agents?.endWalk();
  return nodes;
}
