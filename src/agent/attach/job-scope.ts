/**
 * Whether a watched tree is one job, before `watch` loads its agent into anything (issue 48 item 6). `memleak watch 1`
 * on a host walks every process of the machine: unrelated jobs' Pythons would get an agent (a thread, a socket, ~2-3
 * MiB each) without a word. One job is one session and one user: what a shell, a systemd service (setsid), a container's
 * init (runc's setsid) and a DataLoader's or gunicorn's workers share. A tree that spans several needs --all to inject;
 * --no-inject reads /proc only and needs nothing. Processes of another session or user that appear later are left
 * without an agent the same way.
 */
import type { HostFs } from "../../system/host-fs.js";
import { processTree } from "../../system/process-tree.js";
import { tracerFacts } from "./permission.js";

export interface JobFacts {
  pid: number;
  comm: string;
  /** /proc/PID/stat field 6. */
  session: number | undefined;
  /** Real uid, the first of /proc/PID/status's Uid (as permission.ts reads it for ptrace). */
  uid: number | undefined;
}

/** The session (field 6) and the command name of a stat line; the name sits between the first "(" and the last ")". */
export function parseSessionOf(stat: string): { comm: string; session: number } | undefined {
  const open = stat.indexOf("(");
  const close = stat.lastIndexOf(")");
  if (open < 0 || close < open) return undefined;
  const fields = stat
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  // After the name: state (3), ppid (4), pgrp (5), session (6).
  const session = Number(fields[3]);
  return Number.isInteger(session) && session >= 0 ? { comm: stat.slice(open + 1, close), session } : undefined;
}

export function readJobFacts(fs: HostFs, pid: number): JobFacts | undefined {
  const stat = fs.readOptional(`/proc/${pid}/stat`);
  const parsed = stat === undefined ? undefined : parseSessionOf(stat);
  if (!parsed) return undefined;
  return {
    pid,
    comm: parsed.comm,
    session: parsed.session,
    uid: tracerFacts(fs.readOptional(`/proc/${pid}/status`) ?? "").uid,
  };
}

/** Why `member` is outside the job of `root` ("another session", "another user"), or undefined when it is inside. */
export function outsideJob(root: JobFacts, member: JobFacts): string | undefined {
  if (root.session !== undefined && member.session !== undefined && member.session !== root.session)
    return `another session than PID ${root.pid}'s`;
  if (root.uid !== undefined && member.uid !== undefined && member.uid !== root.uid)
    return `another user than PID ${root.pid}'s`;
  return undefined;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * The refusal for a tree that is not one job, in a few lines: what it would touch and the three ways on; undefined when
 * the tree is one job. Pure: the facts are read by the caller.
 */
export function scopeRefusal(root: JobFacts, tree: readonly JobFacts[]): string | undefined {
  const outside = tree.filter((p) => p.pid !== root.pid && outsideJob(root, p) !== undefined);
  if (outside.length === 0) return undefined;
  const sessions = new Set(tree.map((p) => p.session).filter((s) => s !== undefined)).size;
  const users = new Set(tree.map((p) => p.uid).filter((u) => u !== undefined)).size;
  const examples = outside
    .slice(0, 3)
    .map((p) => `${p.pid} (${p.comm})`)
    .join(", ");
  return [
    `PID ${root.pid} (${root.comm}) and its descendants are not one job: ${plural(tree.length, "process", "processes")} in ${plural(sessions, "session")}, owned by ${plural(users, "user")}`,
    `  (${plural(outside.length, "process", "processes")} outside PID ${root.pid}'s session or user, such as ${examples}).`,
    `  watch would load its agent into every Python among them. Give the PID of one job's process, or:`,
    `  --no-inject  read /proc and the cgroup only, no agent anywhere`,
    `  --all        load the agent into every Python of this tree, whoever started it`,
  ].join("\n");
}

/** Reads the tree's facts and returns the refusal, or undefined. */
export function checkJobScope(fs: HostFs, rootPid: number): string | undefined {
  const root = readJobFacts(fs, rootPid);
  if (!root) return undefined;
  const tree = processTree(fs, rootPid)
    .map((n) => (n.pid === rootPid ? root : readJobFacts(fs, n.pid)))
    .filter((p): p is JobFacts => p !== undefined);
  return scopeRefusal(root, tree);
}
