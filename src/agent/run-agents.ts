/**
 * `run`'s side of "agents only where they tell something" (issue 49). Under `run` the agent is in every Python process
 * of the launched tree: sitecustomize loads it at start, before the program forks, and each forked worker inherits it
 * and connects. That stays — the early verdict needs the agent from the first second, and it costs no injection — but
 * in a service of 64 idle workers every agent woke each interval, read its process and the allocator, and the objects
 * its reports made copied pages the worker shared with its parent: +82 MiB of Σ PSS over `--no-inject` and 1.7× its
 * CPU (BENCHMARKS.md §g⁸). So each tick the same placement as `watch`'s (agent-placement.ts) decides which agents tell
 * something; the others are told to be quiet (AgentChannel.quieten): they stay connected, send nothing and never wake
 * until memleak speaks again, and one word brings one back at once when its process grows — no debugger needed.
 */
import {
  agentReasonText,
  LowsWatch,
  placeAgents,
  placementLine,
  NOTHING_SAID,
  type Placement,
} from "./attach/agent-placement.js";
import type { AttachRecord, ConsideredProcess } from "./attach/attacher.js";
import type { AgentChannel } from "./channel.js";
import type { SamplingFacts } from "../analysis/types.js";
import type { HostFs } from "../system/host-fs.js";
import { readCmdline } from "../system/read-process.js";
import { DEFAULT_MAX_AGENTS } from "../sampling/defaults.js";

export interface RunAgentsOptions {
  rootPid: number;
  maxAgents?: number | undefined;
  /** One line on stderr (or above the live view). */
  say: (line: string) => void;
}

export class RunAgents {
  /** run launches in memleak's own PID namespace: nothing to map (the session's interface with watch's Attacher). */
  readonly pidsInside = new Map<number, number>();
  private readonly lows = new Map<number, LowsWatch>();
  private readonly commands = new Map<number, string>();
  private placement: Placement = { wanted: new Map(), passedOver: new Map() };
  private placementSaid = NOTHING_SAID;
  private decided: AttachRecord[] = [];
  /**
   * The processes whose agent is quiet now, with why: memleak's own account, kept when their connections close as the
   * program exits (the channel forgets them then), so the end's report can still say why each had no agent.
   */
  private readonly quiet = new Map<number, string>();

  constructor(
    private readonly channel: AgentChannel,
    private readonly fs: HostFs,
    private readonly o: RunAgentsOptions,
  ) {}

  /** Every tick: the agents that said hello are placed; the unwanted are quietened, the wanted woken. */
  consider(processes: ConsideredProcess[]): void {
    const live = new Set<number>();
    for (const p of processes) {
      live.add(p.pid);
      let lows = this.lows.get(p.pid);
      if (!lows) this.lows.set(p.pid, (lows = new LowsWatch()));
      lows.add(p.anon);
    }
    for (const pid of this.lows.keys()) {
      if (live.has(pid)) continue;
      this.lows.delete(pid);
      this.commands.delete(pid);
    }
    const withAgent = processes.filter((p) => this.channel.hello.has(p.pid) && this.channel.connected(p.pid));
    this.placement = placeAgents(
      withAgent.map((p) => ({
        pid: p.pid,
        ppid: p.ppid ?? 0,
        command: this.command(p),
        anon: p.anon,
        hasAgent: !this.channel.quiet.has(p.pid),
        grows: this.lows.get(p.pid)!.grows,
      })),
      { rootPid: this.o.rootPid, named: new Set(), max: this.max() },
    );
    for (const p of withAgent) {
      const wanted = this.placement.wanted.get(p.pid);
      if (wanted) {
        // A worker's agent waits, quiet, from its fork (memleak_agent.py): woken without a word when it is wanted
        // at once; said when memleak had quietened it and its process now needs it.
        const had = this.quiet.delete(p.pid);
        if (this.channel.wake(p.pid) && had)
          this.o.say(
            `agent in PID ${p.pid} (${p.comm}) reports again: ${agentReasonText(wanted.reason, wanted.siblings)}`,
          );
      } else {
        this.channel.quieten(p.pid);
        this.quiet.set(p.pid, this.placement.passedOver.get(p.pid) ?? "no longer needed");
      }
    }
    this.sayPlacement(withAgent.length);
  }

  /** The command line that groups siblings, read once per process. */
  private command(p: ConsideredProcess): string {
    let c = this.commands.get(p.pid);
    if (c === undefined) this.commands.set(p.pid, (c = (readCmdline(this.fs, p.pid) ?? [p.comm]).join(" ")));
    return c;
  }

  private max(): number {
    return this.o.maxAgents ?? DEFAULT_MAX_AGENTS;
  }

  /** One line when the agents' places change in a tree past the limit (as watch's Attacher says it). */
  private sayPlacement(pythons: number): void {
    const { said, line } = placementLine(this.placement, this.placementSaid, {
      pythons,
      max: this.max(),
      verb: "report from",
      others: "quiet, read from /proc",
    });
    this.placementSaid = said;
    if (line) this.o.say(line);
  }

  /** At the end: each agent still quiet is a process read from /proc only, with why (the recording keeps it). */
  async stop(): Promise<void> {
    for (const [pid, why] of this.quiet)
      this.decided.push({ pid, status: "skipped", reason: `read from /proc only: ${why}` });
  }

  /** The outcomes decided since the last call, each once (for the recording). */
  takeDecided(): AttachRecord[] {
    const out = this.decided;
    this.decided = [];
    return out;
  }

  /** The processes read from /proc only, with why (the findings' agentMissingReason). */
  missing(): Map<number, string> {
    return new Map([...this.quiet].map(([pid, why]) => [pid, `read from /proc only: ${why}`]));
  }

  /** Where the agents report from and why, for the verdict's document. */
  facts(): NonNullable<SamplingFacts["agents"]> {
    const inNow = [...this.placement.wanted]
      .filter(([pid]) => this.channel.hello.has(pid) && !this.quiet.has(pid))
      .map(([pid, w]) => ({ pid, reason: w.reason, siblings: w.siblings }));
    return { max: this.max(), in: inNow, readFromProc: this.quiet.size };
  }
}
