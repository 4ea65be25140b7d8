/**
 * The events a recording holds between its samples: their names and the shape of each one's detail, shared by the
 * writer (session-writer.ts) and the reader (replay.ts), so neither spells an event name of its own. The reader gets
 * a file from anywhere (another version, a cut or edited file): each `read…` function checks a detail's shape and
 * returns undefined, never throws, for one it cannot use.
 */
import type { AttachRecord } from "../agent/attach/attach-record.js";

export const EVENT = {
  /** An agent injection's outcome (`watch`, and `run`'s inherited agents). */
  attach: "attach",
  /** A process's command line when it first appears, again after an exec. */
  processStart: "process-start",
  /** The cgroup's other processes there at both ends of the session, and how much they grew. */
  cgroupOutsiders: "cgroup-outsiders",
  /** What the agent reported after the last sample. */
  agentLastWords: "agent-last-words",
  /** The pytest plugin's test boundaries: the event name is the mark's own type. */
  testStart: "test-start",
  testEnd: "test-end",
} as const;

/** The agent's end-of-run results are recorded as `agent-<message type>` (agent-trace, agent-trim, agent-holder). */
const AGENT_RESULT_PREFIX = "agent-";
export const agentResultEvent = (messageType: string): `agent-${string}` => `${AGENT_RESULT_PREFIX}${messageType}`;
/** Whether an event holds an agent message (its detail is the message as the agent sent it). */
export const holdsAgentMessage = (event: string) => event.startsWith(AGENT_RESULT_PREFIX);

export interface ProcessStartDetail {
  pid: number;
  ppid: number;
  comm: string;
  cmdline?: string[];
}

export interface OutsidersDetail {
  pids: number[];
  anonGrowth?: number;
}

/** One event line as written: `t` in epoch milliseconds. */
export type RecordingEvent =
  | { type: "event"; t: number; event: typeof EVENT.attach; detail: AttachRecord }
  | { type: "event"; t: number; event: typeof EVENT.processStart; detail: ProcessStartDetail }
  | { type: "event"; t: number; event: typeof EVENT.cgroupOutsiders; detail: OutsidersDetail }
  | {
      type: "event";
      t: number;
      // What the agent sent, as it sent it: its last words, an end-of-run result, a test mark.
      event: typeof EVENT.agentLastWords | typeof EVENT.testStart | typeof EVENT.testEnd | `agent-${string}`;
      detail: Record<string, unknown>;
    };

/** One event line as read: any name (a newer memleak may write events this one does not know), any detail. */
export interface ReadEvent {
  type: "event";
  t: number;
  event: string;
  detail?: Record<string, unknown>;
}

const isPid = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) > 0;

/** An attach event's detail, as far as `analyze` uses it: the pid, whether it failed and why, when it started, the pid inside. */
export function readAttach(
  detail: unknown,
): { pid: number; failedBecause?: string; startedAt?: number; pidInside?: number } | undefined {
  const a = detail as
    { pid?: unknown; status?: unknown; reason?: unknown; startedAt?: unknown; pidInside?: unknown } | undefined;
  if (!a || typeof a !== "object" || !isPid(a.pid)) return undefined;
  return {
    pid: a.pid,
    // Skipped: read from /proc only by watch's placement of its agents, which says why as a failure does.
    ...((a.status === "failed" || a.status === "skipped") && {
      failedBecause: typeof a.reason === "string" ? a.reason.slice(0, 300) : "",
    }),
    ...(typeof a.startedAt === "number" && Number.isFinite(a.startedAt) && { startedAt: a.startedAt }),
    ...(isPid(a.pidInside) && { pidInside: a.pidInside }),
  };
}

/** A process-start event's pid and command line, when it has both. */
export function readProcessStart(detail: unknown): { pid: number; cmdline: string[] } | undefined {
  const d = detail as { pid?: unknown; cmdline?: unknown } | undefined;
  if (!d || typeof d !== "object" || !isPid(d.pid) || !Array.isArray(d.cmdline)) return undefined;
  if (!d.cmdline.every((w): w is string => typeof w === "string")) return undefined;
  return { pid: d.pid, cmdline: d.cmdline };
}

/** A cgroup-outsiders event: the pids that are numbers, and the growth when it is a finite number. */
export function readOutsiders(detail: unknown): OutsidersDetail {
  const o = detail as { pids?: unknown; anonGrowth?: unknown } | undefined;
  const pids = Array.isArray(o?.pids) ? o.pids.filter((p): p is number => Number.isSafeInteger(p)) : [];
  return {
    pids,
    ...(typeof o?.anonGrowth === "number" && Number.isFinite(o.anonGrowth) && { anonGrowth: o.anonGrowth }),
  };
}
