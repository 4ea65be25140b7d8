/**
 * `run`'s side of "agents only where they tell something" (issue 49). Under `run` the agent is in every Python process
 * of the launched tree: sitecustomize loads it at start, before the program forks, and each forked worker inherits it
 * and connects. That stays — the early verdict needs the agent from the first second, and it costs no injection — but
 * in a service of 64 idle workers every agent woke each interval, read its process and the allocator, and the objects
 * its reports made copied pages the worker shared with its parent: +82 MiB of Σ PSS over `--no-inject` and 1.7× its
 * CPU (BENCHMARKS.md §g⁸). So each tick the same placement as `watch`'s (agent-placement.ts) decides which agents tell
 * something; the others are told to be quiet (AgentChannel.quieten): they stay connected, send nothing and never wake
 * until memleak speaks again, and one word brings one back at once when its process grows — no debugger needed.
 *
 * A worker forked from a process whose agent installed the wake signal (memleak_lifecycle.py _install_wake, said in its
 * hello) does not even connect: a connected, quiet agent still cost each idle worker ~0.6 MiB of the pages it shared
 * with its parent (its hello, its thread, its reset state). It sleeps until the placement wants it, and then memleak
 * sends it the signal — only after /proc/PID/status says the process catches it (an exec resets a caught signal, and
 * a real-time signal not caught ends the process), read again right before the signal goes.
 */
import { agentReasonText, placeAgents, type AgentReason, type Placement } from "../analysis/agent-placement.js";
import type { AttachRecord } from "../agent/attach/attach-record.js";
import type { ConsideredProcess } from "./attacher.js";
import type { AgentChannel } from "../agent/channel.js";
import type { SamplingFacts } from "../analysis/types.js";
import type { HostFs } from "../system/host-fs.js";
import { readCmdline } from "../system/read-process.js";
import { catchesSignal } from "../probes/signal-mask.js";
import { PlacementLines } from "./placement-lines.js";
import { AgentsHeld } from "./agents-held.js";
import { FollowedProcess } from "./followed-process.js";
import { DEFAULT_MAX_AGENTS } from "../sampling/defaults.js";

/**
 * How long a sleeping agent has to say hello after its wake signal: the handler runs when the worker's main thread
 * next runs Python code, which a worker blocked in a C call with no timeout may never do; one busy on a loaded
 * machine answers within a second or two.
 */
export const WAKE_WAIT_MS = 10_000;

export interface RunAgentsOptions {
  rootPid: number;
  maxAgents?: number | undefined;
  /** One line on stderr (or above the live view). */
  say: (line: string) => void;
}

/**
 * What run's wake of a sleeping agent knows of one process: the ticks it was seen (its SigCgt is read at the second),
 * whether it catches the wake signal, when it was sent it (ms), and whether it failed to answer. A reused pid is
 * another process and starts with none of it.
 */
interface Wake {
  ticks: number;
  catches: boolean | undefined;
  signalledAt?: number;
  unwoken: boolean;
}

/** One living process of the run: what the placement follows of it, and its agent's wake. */
interface RunProcess {
  followed: FollowedProcess;
  wake: Wake;
}

const newWake = (): Wake => ({ ticks: 0, catches: undefined, unwoken: false });

export class RunAgents {
  /** run launches in memleak's own PID namespace: nothing to map (the session's interface with watch's Attacher). */
  readonly pidsInside = new Map<number, number>();
  /**
   * Each living process: its lows, command line and copying (FollowedProcess, as watch's Attacher keeps them) and its
   * sleeping agent's wake, by pid.
   */
  private readonly processes = new Map<number, RunProcess>();
  private placement: Placement = { wanted: new Map(), passedOver: new Map() };
  private readonly held = new AgentsHeld();
  private readonly placementLines: PlacementLines;
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
  ) {
    this.placementLines = new PlacementLines({ verb: "report from", others: "quiet, read from /proc" }, o.say);
  }

  /** Every tick: the agents that said hello are placed; the unwanted are quietened, the wanted woken. */
  consider(processes: ConsideredProcess[]): void {
    const live = new Set<number>();
    for (const p of processes) {
      live.add(p.pid);
      let r = this.processes.get(p.pid);
      // a new process (or a pid reused): nothing of the old one's lows or wake carries over
      if (!r || r.followed.starttime !== p.starttime)
        this.processes.set(p.pid, (r = { followed: new FollowedProcess(p.starttime, false), wake: newWake() }));
      r.followed.read(p);
    }
    for (const pid of this.processes.keys()) if (!live.has(pid)) this.processes.delete(pid);
    const withAgent = processes.filter((p) => this.channel.hello.has(p.pid) && this.channel.connected(p.pid));
    const sleeping = this.sleepingAgents(processes);
    this.placement = placeAgents(
      [...withAgent, ...sleeping].map((p) => ({
        pid: p.pid,
        ppid: p.ppid ?? 0,
        command: this.command(p),
        anon: p.anon,
        hasAgent: this.channel.hello.has(p.pid) && !this.channel.quiet.has(p.pid),
        grows: this.of(p).followed.grows,
        // A worker copying its parent's pages gets its agent, asleep or quiet: it says which objects it copied
        // (session.ts CowAsk), which only an agent can.
        copies: this.of(p).followed.copies,
      })),
      { rootPid: this.o.rootPid, named: new Set(), max: this.max() },
    );
    for (const p of sleeping) {
      const wanted = this.placement.wanted.get(p.pid);
      if (wanted) this.wakeSleeping(p, wanted);
      else this.quiet.set(p.pid, this.placement.passedOver.get(p.pid) ?? "no longer needed");
    }
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
    this.placementLines.update(this.placement, withAgent.length + sleeping.length, this.max());
    this.held.update(live, this.placement, (pid) => this.channel.hello.has(pid) && !this.quiet.has(pid));
  }

  /**
   * The processes whose agent sleeps: no hello yet, not the root, forked from a process whose agent installed the wake
   * signal, and catching it by their status — read once a process has been seen at two ticks (a fork that execs does
   * so within them), then kept. Given up on when a signal went unanswered.
   */
  private sleepingAgents(processes: ConsideredProcess[]): ConsideredProcess[] {
    const signo = this.wakeSignal();
    if (signo === undefined) return [];
    return processes.filter((p) => {
      const wake = this.of(p).wake;
      if (p.pid === this.o.rootPid || this.channel.hello.has(p.pid) || wake.unwoken) return false;
      wake.ticks++;
      if (wake.ticks >= 2 && wake.catches === undefined) wake.catches = this.catches(p.pid, signo) ?? false;
      return wake.catches === true;
    });
  }

  /** The wake signal, as the agents that installed it said in their hello (one number for the run). */
  private wakeSignal(): number | undefined {
    for (const signo of this.channel.wakeSignals.values()) return signo;
    return undefined;
  }

  private catches(pid: number, signo: number): boolean | undefined {
    const status = this.fs.readOptional(`/proc/${pid}/status`);
    return status === undefined ? undefined : catchesSignal(status, signo);
  }

  /**
   * Sends a wanted sleeping agent the wake signal, once; its hello makes it an agent like any other at a later tick.
   * Said when one has not answered within WAKE_WAIT_MS: it stays read from /proc.
   */
  private wakeSleeping(p: ConsideredProcess, wanted: { reason: AgentReason; siblings: number }): void {
    const signo = this.wakeSignal()!;
    const wake = this.of(p).wake;
    if (wake.signalledAt !== undefined) {
      if (Date.now() - wake.signalledAt < WAKE_WAIT_MS) return;
      wake.unwoken = true;
      this.quiet.set(p.pid, "its agent did not wake");
      this.o.say(`agent in PID ${p.pid} (${p.comm}) did not wake: read from /proc only`);
      return;
    }
    // Read again right before: a worker that exec'd since would be ended by a signal it no longer catches.
    if (this.catches(p.pid, signo) !== true) {
      wake.catches = false;
      return;
    }
    try {
      process.kill(p.pid, signo);
    } catch {
      return; // gone meanwhile
    }
    wake.signalledAt = Date.now();
    if (this.quiet.delete(p.pid))
      this.o.say(`agent in PID ${p.pid} (${p.comm}) reports: ${agentReasonText(wanted.reason, wanted.siblings)}`);
  }

  /** The command line that groups siblings, read once per process. */
  private command(p: ConsideredProcess): string {
    return this.of(p).followed.command(() => (readCmdline(this.fs, p.pid) ?? [p.comm]).join(" "));
  }

  /** The record of a process this tick's consider() has seen. */
  private of(p: ConsideredProcess): RunProcess {
    return this.processes.get(p.pid)!;
  }

  private max(): number {
    return this.o.maxAgents ?? DEFAULT_MAX_AGENTS;
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
    return { max: this.max(), in: this.held.list(), readFromProc: this.quiet.size };
  }
}
