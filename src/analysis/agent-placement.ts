/**
 * Where `watch` puts its agents (issue 49): only where an agent tells something the /proc readings do not. An agent
 * loaded into a worker forked before memleak came copies 1.3–3 MiB of the pages it shared with its parent, and the
 * kernel's smaps accounting then pays for those private pages on every read: on 64 idle workers, Σ PSS +168 MiB and
 * 1.5–1.9× the CPU of `--no-inject` (BENCHMARKS.md §g⁷). An idle worker's layer and holder are not needed to call it
 * stable; its siblings' are the same.
 *
 * Who gets one, in this order while there are slots (at most `max` agents at once):
 *   watched    the process the user asked to watch, and any named with --agent-in
 *   grows      its anonymous memory's lows rose by the growth floor within the last minute (LowsWatch): a leak, a
 *              cache filling, a step — each needs the agent's layer and holder
 *   larger     in a group of 3 or more siblings, well above the group's median: what made it larger (a fragmented
 *              heap, a cache only it filled) is what the agent reads
 *   alone      the only process of its parent with its command (a main process, a helper)
 *   represents one per group of siblings (same parent, same command): its agent speaks for the group until one of
 *              them grows or is larger, which then gets its own
 *   sibling    the other siblings, only in a tree of no more Python processes than the limit: an agent in each, as
 *              before. In a larger tree a free slot stays free: an agent in an idle sibling tells nothing its group's
 *              speaker does not, and costs ~3.7 MiB of pages copied from the parent (issue 49: 16 workers, CPython 3.11)
 * An agent keeps its slot against an equal claim (no churn); a higher claim takes the slot of the lowest one, whose
 * agent is then released. The others are read from /proc only, each with the reason.
 * Pure: the Attacher (session/attacher.ts, watch) and RunAgents (session/run-agents.ts, run) gather the facts and
 * carry the decision out.
 */
import { minGrowth } from "./growth-floor.js";
import { median } from "./stats/quantiles.js";
import type { SamplingFacts } from "./types.js";
import { DEFAULT_MAX_AGENTS } from "../sampling/defaults.js";

export { DEFAULT_MAX_AGENTS };

/** Why a process has an agent: declared once, in the verdict document's contract (doc.sampling.agents). */
export type AgentReason = NonNullable<SamplingFacts["agents"]>["in"][number]["reason"];

/** Lower is more important. */
const RANK: Record<AgentReason, number> = {
  watched: 0,
  grows: 1,
  copies: 1,
  larger: 2,
  alone: 3,
  represents: 3,
  sibling: 4,
};

/**
 * A member of a group of at least LARGER_GROUP siblings is "larger" when its anonymous memory is LARGER_RATIO times the
 * group's median and clear of it by the growth floor: one worker among idle ones that holds half as much again.
 */
export const LARGER_GROUP = 3;
export const LARGER_RATIO = 1.5;

export interface PlacementProcess {
  pid: number;
  ppid: number;
  /** Its command line as one string (the group key with the parent). */
  command: string;
  /** Anonymous memory now (bytes); undefined when unread. */
  anon: number | undefined;
  /** Its agent is in (said hello, not released). */
  hasAgent: boolean;
  /** Its lows rose by the growth floor within the last minute (LowsWatch.grows). */
  grows: boolean;
  /**
   * A forked worker copying its parent's pages (signals/cow.ts copiedSoFar): its agent can say which data
   * (memleak_cow.py), which /proc cannot.
   */
  copies?: boolean;
}

export interface PlacementOptions {
  rootPid: number;
  /** --agent-in: pids the user named. */
  named: ReadonlySet<number>;
  max: number;
}

export interface Placement {
  /** Who should have an agent, and why; `siblings` is the size of the group it represents or belongs to. */
  wanted: Map<number, { reason: AgentReason; siblings: number }>;
  /** Everyone else, with why they are read from /proc only. */
  passedOver: Map<number, string>;
}

/** Whether p stands well above its group's median (LARGER_RATIO and the growth floor). */
function isLarger(p: PlacementProcess, median: number | undefined): boolean {
  if (p.anon === undefined || median === undefined) return false;
  return p.anon >= LARGER_RATIO * median && p.anon - median >= minGrowth(median);
}

/**
 * The groups of siblings: same parent, same command. Keyed by parent, then by the command string itself, not by a key
 * built of the two: the placement runs at every tick, and 64 workers' keys were 64 new strings a second (issue 49).
 */
function siblingGroups(processes: readonly PlacementProcess[]): PlacementProcess[][] {
  const byParent = new Map<number, Map<string, PlacementProcess[]>>();
  const groups: PlacementProcess[][] = [];
  for (let i = 0; i < processes.length; i++) {
    const p = processes[i]!;
    let byCommand = byParent.get(p.ppid);
    if (!byCommand) byParent.set(p.ppid, (byCommand = new Map()));
    const g = byCommand.get(p.command);
    if (g) g.push(p);
    else {
      const fresh = [p];
      byCommand.set(p.command, fresh);
      groups.push(fresh);
    }
  }
  return groups;
}

export function placeAgents(processes: readonly PlacementProcess[], o: PlacementOptions): Placement {
  const claims: { p: PlacementProcess; reason: AgentReason; siblings: number }[] = [];
  const idle = new Map<number, number>(); // pid → the representative whose agent speaks for it
  const fits = processes.length <= o.max;
  // Indexed loops and forEach: this runs at every tick, and for…of's iterator results and a Map's [key, value] pairs
  // were most of what it allocated (issue 49, BENCHMARKS §g¹⁷).
  const groups = siblingGroups(processes);
  for (let g = 0; g < groups.length; g++) {
    const members = groups[g]!;
    const middle = members.length >= LARGER_GROUP ? median(members.flatMap((m) => m.anon ?? [])) : undefined;
    const own = (p: PlacementProcess): AgentReason | undefined => {
      if (p.pid === o.rootPid || o.named.has(p.pid)) return "watched";
      if (p.grows) return "grows";
      if (p.copies) return "copies";
      if (isLarger(p, middle)) return "larger";
      return members.length === 1 ? "alone" : undefined;
    };
    const rest: PlacementProcess[] = [];
    for (let i = 0; i < members.length; i++) {
      const p = members[i]!;
      const reason = own(p);
      if (reason) claims.push({ p, reason, siblings: members.length });
      else rest.push(p);
    }
    if (rest.length === 0) continue;
    // One of the others speaks for them: one that has an agent already (no churn), else the oldest pid.
    rest.sort((a, b) => Number(b.hasAgent) - Number(a.hasAgent) || a.pid - b.pid);
    const rep = rest[0]!;
    claims.push({ p: rep, reason: "represents", siblings: members.length });
    for (let i = 1; i < rest.length; i++) {
      const p = rest[i]!;
      if (fits) claims.push({ p, reason: "sibling", siblings: members.length });
      idle.set(p.pid, rep.pid);
    }
  }
  claims.sort(
    (a, b) =>
      RANK[a.reason] - RANK[b.reason] ||
      Number(b.p.hasAgent) - Number(a.p.hasAgent) ||
      (b.p.anon ?? 0) - (a.p.anon ?? 0) ||
      a.p.pid - b.p.pid,
  );
  const wanted = new Map<number, { reason: AgentReason; siblings: number }>();
  const passedOver = new Map<number, string>();
  const limit = `over the limit of ${o.max} agents at once (--max-agents)`;
  for (let i = 0; i < claims.length; i++) {
    const c = claims[i]!;
    if (wanted.size < o.max) wanted.set(c.p.pid, { reason: c.reason, siblings: c.siblings });
    else if (!idle.has(c.p.pid)) passedOver.set(c.p.pid, limit);
  }
  // One text per representative, shared by its idle siblings (62 of them in a tree of 64 workers, at every tick).
  const said = new Map<number, string>();
  idle.forEach((rep, pid) => {
    if (wanted.has(pid)) return;
    let why = said.get(rep);
    if (why === undefined) {
      why = wanted.has(rep)
        ? `an idle sibling of PID ${rep} (same parent and command), whose agent speaks for them`
        : `an idle sibling of PID ${rep} (same parent and command); ${limit}`;
      said.set(rep, why);
    }
    passedOver.set(pid, why);
  });
  return { wanted, passedOver };
}

/** What the placement line last said, and the placement it saw at the call before (placementLine). */
export interface PlacementSaid {
  said: string;
  seen: string;
}
export const NOTHING_SAID: PlacementSaid = { said: "", seen: "" };

/**
 * The one line said when the agents' places change in a tree past the limit (watch's Attacher, run's RunAgents), or
 * none: no one passed over, the same places and counts as last said, or places not yet held for two calls in a row.
 * Held, because a service's workers say hello over several ticks: said at the first, the line told "2 of 11 Python
 * processes; the other 9 quiet" and, its agents' places unchanged, never the 17 there were (run beside a busy loop,
 * CI 2026-12-03).
 */
export function placementLine(
  placement: Placement,
  last: PlacementSaid,
  o: { pythons: number; max: number; verb: string; others: string },
): { said: PlacementSaid; line?: string } {
  const { wanted, passedOver } = placement;
  const key = `${[...wanted.keys()].sort((a, b) => a - b).join(",")}|${o.pythons}|${passedOver.size}`;
  if (passedOver.size === 0 || key === last.said || key !== last.seen) return { said: { said: last.said, seen: key } };
  const where = [...wanted].map(([pid, w]) => `PID ${pid} (${agentReasonText(w.reason, w.siblings)})`).join(", ");
  return {
    said: { said: key, seen: key },
    line: `agents ${o.verb} ${wanted.size} of ${o.pythons} Python processes: ${where}; the other ${passedOver.size} ${o.others} (--max-agents ${o.max})`,
  };
}

/** How many readings make one block of lows, and how many blocks (a minute at 1 Hz) the growth is looked for over. */
export const LOWS_BLOCK = 5;
export const LOWS_BLOCKS = 12;

/**
 * A process's anonymous memory, as the lows of blocks of LOWS_BLOCK readings over the last LOWS_BLOCKS blocks: it
 * grows when the newest block's low stands the growth floor (2 MiB or 2%) above the lowest of the older ones. Lows, so
 * that a program swinging by big temporaries is not growing; a sliding minute, so that start-up (imports) long
 * past does not make a process grow for ever. A 1 MiB/s leak is seen within one or two blocks of passing the floor.
 */
export class LowsWatch {
  private readonly lows: number[] = [];
  private block = Infinity;
  private inBlock = 0;
  /** Worked out when a block ends, not at each ask: the placement asks of every process at every tick. */
  private growing = false;

  /**
   * @param born the process appeared while memleak watched: its first block is its start-up and is not kept. A forked
   *        worker read before it ran (its anon still the parent's shared pages) and again after it took its own 8 MB
   *        was `grows` and given an agent, 10 s into a run of 16 idle workers on a loaded CI machine (CI on c7d9618).
   */
  constructor(private born = false) {}

  add(anon: number | undefined): void {
    if (anon === undefined) return;
    this.block = Math.min(this.block, anon);
    if (++this.inBlock < LOWS_BLOCK) return;
    const low = this.block;
    this.block = Infinity;
    this.inBlock = 0;
    if (this.born) {
      this.born = false;
      return;
    }
    this.lows.push(low);
    if (this.lows.length > LOWS_BLOCKS) this.lows.shift();
    this.growing = this.risen();
  }

  get grows(): boolean {
    return this.growing;
  }

  private risen(): boolean {
    const n = this.lows.length;
    if (n < 2) return false;
    let lowest = Infinity;
    for (let i = 0; i < n - 1; i++) lowest = Math.min(lowest, this.lows[i]!);
    return this.lows[n - 1]! - lowest >= minGrowth(lowest);
  }
}

/** Why a process has its agent, in a few words (the watch's lines and the report's sampling line). */
export function agentReasonText(reason: AgentReason, siblings: number): string {
  switch (reason) {
    case "watched":
      return "watched";
    case "grows":
      return "grows";
    case "copies":
      return "copies its parent's pages";
    case "larger":
      return `larger than its ${siblings - 1} siblings`;
    case "alone":
      return "its own command";
    case "represents":
      return `for ${siblings} siblings`;
    case "sibling":
      return "a free slot";
  }
}
