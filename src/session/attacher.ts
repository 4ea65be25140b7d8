/**
 * `watch`'s side of injection: the Python processes of the watched tree get the agent where it tells something
 * (agent-placement.ts: the watched process, one that grows or is larger than its siblings, one per group of siblings,
 * at most --max-agents at once; a tree within the limit has one in every process) — those there at the start at once,
 * those that appear later (new workers) too. A process forked from one that already has the agent brings its own (the
 * agent's at-fork hook connects it), so a newcomer is given a grace period to say hello before gdb is used; an agent no
 * longer needed (its slot taken by one that grows) is released: it stops and leaves. One injection at a time, off the
 * sampling path (the loop only calls consider()). A part of the session: it carries out analysis/agent-placement.ts's
 * decision with agent/attach/'s injection, each tick.
 *
 * Every refusal is said once, in one line, and memleak goes on without that process's agent; `missing` keeps the
 * reason for the verdict ("without the agent, memleak cannot tell …").
 */
import { PlacementLines } from "./placement-lines.js";
import { AgentsHeld } from "./agents-held.js";
import { FollowedProcess } from "./followed-process.js";
import type { HostFs } from "../system/host-fs.js";
import { readBasic } from "../system/read-process.js";
import type { AgentChannel } from "../agent/channel.js";
import type { AttachRecord } from "../agent/attach/attach-record.js";
import { identifyInterpreter, MIN_VERSION, versionAtLeast } from "../agent/attach/interpreter.js";
import { injectAgent, type InjectMethod, type InjectOutcome, type InjectRequest } from "../agent/attach/inject.js";
import { givenUpText, InjectorHealth } from "./injector-health.js";
import { Precompiler } from "../agent/attach/precompile.js";
import {
  hasCapSysPtrace,
  ptraceRefusal,
  tracerFacts,
  type OwnFacts,
  type TracerFacts,
} from "../agent/attach/permission.js";
import { insideText } from "../base/pid-inside.js";
import { ContainerViews, type TargetView } from "../agent/attach/container-view.js";
import { outsideJob, readJobFacts, type JobFacts } from "../agent/attach/job-scope.js";
import { pidInside } from "../system/namespaces.js";
import { FAILED_PREFIX } from "../agent/attach/inject.js";
import { closeSync, constants, openSync, readSync } from "node:fs";
import { join } from "node:path";
import { readCmdline } from "../system/read-process.js";
import {
  agentReasonText,
  DEFAULT_MAX_AGENTS,
  placeAgents,
  type AgentReason,
  type Placement,
  type PlacementProcess,
} from "../analysis/agent-placement.js";

export interface AttacherOptions {
  rootPid: number;
  interval: number;
  env: NodeJS.ProcessEnv;
  /** One line for the user (no trailing newline). */
  say: (line: string) => void;
  /** How long an interpreter has to run the scheduled code and say hello. */
  helloTimeoutMs?: number;
  /** How long a process that appeared after the start may take to connect by itself (forked from an agent). */
  forkGraceMs?: number;
  /** watch --trace-python: seconds of tracemalloc in each process the agent is loaded into. */
  traceSeconds?: number | undefined;
  /** The watched process's session and user: processes outside them get no agent (job-scope.ts); undefined: --all. */
  job?: JobFacts | undefined;
  /** --max-agents: agents at once (agent-placement.ts DEFAULT_MAX_AGENTS). */
  maxAgents?: number | undefined;
  /** --agent-in: pids that get an agent whatever they do. */
  named?: ReadonlySet<number> | undefined;
}

/** What consider() reads of a sampled process: ppid and anon place the agents (tests may leave them out). */
export interface ConsideredProcess {
  pid: number;
  starttime: number;
  comm: string;
  ppid?: number | undefined;
  anon?: number | undefined;
  /** From smaps_rollup, on the ticks it was read: a copying worker's USS rises while its anon stays flat. */
  uss?: number | undefined;
}

/** A Python process of the tree, followed while it lives: what the placement needs of it. */
interface Tracked {
  job: Job;
  ppid: number;
  command: string;
  anon: number | undefined;
  /** Its lows and whether it copies its parent's pages (shared with run's RunAgents). */
  followed: FollowedProcess;
  /** Queued for an injection, or being injected. */
  queued: boolean;
  /** Tried again after a failed injection, once it grew. */
  retried: boolean;
  /** What the placement is told of it, updated in place at each tick rather than built anew (issue 49: allocations). */
  placing: PlacementProcess;
}

/** A process seen, by pid: the one with this start time (a reused pid is another), and the tick it was last seen at. */
interface Seen {
  starttime: number;
  /** Null when it is no Python (nothing to place; the root is always followed). */
  tracked: Tracked | null;
  tick: number;
}

/** What the verdict's document says of the placement (doc.sampling.agents). */
export interface AgentsFacts {
  max: number;
  /** The processes with an agent at the last tick each was seen, and why each has one (agents-held.ts). */
  in: { pid: number; reason: AgentReason; siblings: number }[];
  /** Python processes read from /proc only at the end. */
  readFromProc: number;
}

interface Job {
  pid: number;
  starttime: number;
  comm: string;
  notBefore: number;
}

const NAMED_NONE: ReadonlySet<number> = new Set();

/** How long the pending call has to run before the blocked-thread path is tried. */
const PENDING_WAIT_MS = 2000;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));

export class Attacher {
  /**
   * Every process of the tree, by pid: the Python ones with what placing agents needs, the others as null. Keyed by
   * pid, with the start time checked, not by processKey: that was a new string per process at every tick.
   */
  private readonly seen = new Map<number, Seen>();
  private ticks = 0;
  /** The Python processes of the last tick, reused from tick to tick. */
  private readonly live: Tracked[] = [];
  private placement: Placement = { wanted: new Map(), passedOver: new Map() };
  private readonly held = new AgentsHeld();
  /** The wanted set last said to the user (a line when it changes in a tree past the limit). */
  private readonly placementLines: PlacementLines;
  private readonly queue: Job[] = [];
  private worker: Promise<void> | undefined;
  private stopped = false;
  private started = false;
  private sharedWith: number | undefined;
  private readonly reasonsSaid = new Set<string>();
  /** Decided since the last takeDecided(): what the recording has not been told yet. */
  private decided: AttachRecord[] = [];
  private own: OwnFacts | undefined;
  readonly records = new Map<number, AttachRecord>();
  /** Host pid → pid inside its container, for each process of the tree that is in another PID namespace (NSpid). */
  readonly pidsInside = new Map<number, number>();
  /** The tree's pids at the last tick: where an agent's pid inside a container is looked for first. */
  private current: number[] = [];
  private readonly views: ContainerViews;
  private readonly precompiler = new Precompiler();
  private readonly injector = new InjectorHealth();

  constructor(
    private readonly channel: AgentChannel,
    private readonly fs: HostFs,
    private readonly o: AttacherOptions,
  ) {
    this.views = new ContainerViews(fs, channel, () => this.current);
    this.placementLines = new PlacementLines({ verb: "in", others: "read from /proc" }, o.say);
  }

  /** Pid → why it has no agent, for the verdict. Processes that said hello late (after a timeout) count as having it. */
  missing(): Map<number, string> {
    const out = new Map<number, string>();
    for (const r of this.records.values())
      if ((r.status === "failed" || r.status === "skipped") && !this.channel.hello.has(r.pid))
        out.set(r.pid, r.reason ?? "");
    return out;
  }

  /** Where the agents are and why, for the verdict's document. */
  facts(): AgentsFacts {
    const readFromProc = [...this.records.values()].filter((r) => r.status === "skipped").length;
    return { max: this.max(), in: this.held.list(), readFromProc };
  }

  private max(): number {
    return this.o.maxAgents ?? DEFAULT_MAX_AGENTS;
  }

  /** The outcomes decided since the last call, each once (for the recording). */
  takeDecided(): AttachRecord[] {
    const out = this.decided;
    this.decided = [];
    return out;
  }

  /**
   * Called every tick with the processes of the sample: the agents are placed again (agent-placement.ts), those
   * wanted and without one are queued, those no longer wanted are released.
   */
  consider(processes: ConsideredProcess[]): void {
    if (this.stopped) return;
    const now = Date.now();
    const tick = ++this.ticks;
    this.current = processes.map((p) => p.pid);
    this.live.length = 0;
    // Indexed loops and forEach in what runs at every tick for every process: for…of's iterator results and a Map's
    // [key, value] pairs were most of what a watch with agents allocated beyond --no-inject (issue 49, §g¹⁷).
    for (let i = 0; i < processes.length; i++) {
      const p = processes[i]!;
      let s = this.seen.get(p.pid);
      if (s === undefined || s.starttime !== p.starttime) {
        s = { starttime: p.starttime, tracked: this.track(p, now), tick };
        this.seen.set(p.pid, s);
      }
      s.tick = tick;
      const t = s.tracked;
      if (!t) continue;
      t.anon = p.anon;
      t.followed.read(p);
      this.live.push(t);
    }
    this.seen.forEach((s, pid) => {
      if (s.tick !== tick) this.seen.delete(pid);
    });
    this.place(now);
    this.started = true;
    this.worker ??= this.work().finally(() => (this.worker = undefined));
  }

  /** A process seen for the first time: null when it is no Python (nothing to place; the root is always followed). */
  private track(p: ConsideredProcess, now: number): Tracked | null {
    const inside = pidInside(this.fs.readOptional(`/proc/${p.pid}/status`) ?? "");
    if (inside !== undefined) this.pidsInside.set(p.pid, inside);
    const isRoot = p.pid === this.o.rootPid;
    if (!isRoot && !this.pythonish(p)) return null;
    const command = (readCmdline(this.fs, p.pid) ?? [p.comm]).join(" ");
    const ppid = p.ppid ?? 0;
    return {
      // A process that appeared after the start may connect by itself (forked from one with the agent): a grace period.
      job: {
        pid: p.pid,
        starttime: p.starttime,
        comm: p.comm,
        notBefore: this.started ? now + (this.o.forkGraceMs ?? 2000) : now,
      },
      ppid,
      command,
      anon: p.anon,
      followed: new FollowedProcess(p.starttime, this.started),
      queued: false,
      retried: false,
      placing: { pid: p.pid, ppid, command, anon: p.anon, hasAgent: false, grows: false, copies: false },
    };
  }

  /** Python of any kind by its executable and libraries, or by its name when both are hidden (another user's). */
  private pythonish(p: ConsideredProcess): boolean {
    const exe = this.fs.readLink(`/proc/${p.pid}/exe`);
    const maps = this.fs.readOptional(`/proc/${p.pid}/maps`);
    if (exe === undefined && maps === undefined) return /^python/.test(p.comm);
    return identifyInterpreter(exe, maps).kind !== "not-python";
  }

  /** Places the agents on this tick's Python processes; queues the wanted, releases the unwanted. */
  private place(now: number): void {
    const live = this.live;
    const candidates: Tracked[] = [];
    const placing: PlacementProcess[] = [];
    for (let i = 0; i < live.length; i++) {
      const t = live[i]!;
      const has = this.channel.hello.has(t.job.pid);
      // A process whose injection failed holds no slot — unless its agent came later after all ("it will report if it
      // gets to it"), or it now grows: then it is tried once more (a worker idle in a read when it was first tried
      // runs Python once its requests come).
      if (this.records.get(t.job.pid)?.status === "failed" && !has) {
        if (!t.followed.grows || t.retried) continue;
        t.retried = true;
        this.records.delete(t.job.pid);
      }
      const p = t.placing;
      p.anon = t.anon;
      p.hasAgent = has;
      p.grows = t.followed.grows;
      p.copies = t.followed.copies;
      candidates.push(t);
      placing.push(p);
    }
    this.placement = placeAgents(placing, {
      rootPid: this.o.rootPid,
      named: this.o.named ?? NAMED_NONE,
      max: this.max(),
    });
    for (let i = 0; i < candidates.length; i++) {
      const t = candidates[i]!;
      const pid = t.job.pid;
      const has = this.channel.hello.has(pid);
      if (this.placement.wanted.has(pid)) {
        // A debugger given up (injector-health.ts): no more are queued; those left are read from /proc.
        if (!has && !t.queued && !this.injector.givenUp) {
          t.queued = true;
          this.queue.push({ ...t.job, notBefore: Math.max(t.job.notBefore, now) });
        }
      } else if (has) this.release(t, this.placement.passedOver.get(pid) ?? "no longer needed");
    }
    this.placementLines.update(this.placement, live.length, this.max());
    this.held.update(
      live.map((t) => t.job.pid),
      this.placement,
      (pid) => this.channel.hello.has(pid),
    );
  }

  /** Tells an agent it is no longer needed: it stops and leaves; the process is read from /proc from now on. */
  private release(t: Tracked, why: string): void {
    this.channel.release(t.job.pid);
    const record: AttachRecord = { pid: t.job.pid, status: "released", reason: why };
    this.records.set(t.job.pid, record);
    this.decided.push(record);
    this.o.say(`agent released from PID ${t.job.pid} (${t.job.comm}): ${why}`);
  }

  /**
   * Stops taking jobs and waits (at most `ms`) for the one in flight: gdb is never left attached to a target. The
   * Pythons still waiting for their turn are said, each in one line and in the verdict's missing agents: a short
   * watch of many workers (one injection at a time, ~3 s each) ended with some of them silently without an agent.
   */
  async stop(ms: number): Promise<void> {
    this.stopped = true;
    const waiting = this.queue.splice(0);
    if (this.worker) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.worker, new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
      clearTimeout(timer); // a pending timer would keep memleak from exiting
    }
    for (const job of waiting) this.leftWaiting(job);
    this.passedOverAtEnd();
    this.notTriedAtEnd();
  }

  /** The Python processes the placement left to /proc and that never had an agent: skipped, each with why. */
  private passedOverAtEnd(): void {
    for (const [pid, why] of this.placement.passedOver) {
      if (this.channel.hello.has(pid) || this.records.has(pid)) continue;
      const record: AttachRecord = { pid, status: "skipped", reason: `read from /proc only: ${why}` };
      const inside = this.pidsInside.get(pid);
      const told = inside === undefined ? record : { ...record, pidInside: inside };
      this.records.set(pid, told);
      this.decided.push(told);
    }
  }

  /** The Python processes placed for an agent but not tried once the debugger was given up: failed, each with why. */
  private notTriedAtEnd(): void {
    const given = this.injector.givenUp;
    if (!given) return;
    for (const pid of this.placement.wanted.keys()) {
      if (this.channel.hello.has(pid) || this.records.has(pid)) continue;
      const record: AttachRecord = {
        pid,
        status: "failed",
        reason: `not tried: ${givenUpText(given)} (${given.reason})`,
      };
      const inside = this.pidsInside.get(pid);
      const told = inside === undefined ? record : { ...record, pidInside: inside };
      this.records.set(pid, told);
      this.decided.push(told);
    }
  }

  /** A queued CPython that never got its turn: failed, with that reason. Not one that connected by itself meanwhile. */
  private leftWaiting(job: Job): void {
    if (this.channel.hello.has(job.pid) || this.records.has(job.pid) || !this.alive(job)) return;
    const interp = identifyInterpreter(
      this.fs.readLink(`/proc/${job.pid}/exe`),
      this.fs.readOptional(`/proc/${job.pid}/maps`),
    );
    if (interp.kind !== "cpython") return;
    const record: AttachRecord = {
      pid: job.pid,
      status: "failed",
      reason: "the watch ended before its turn (one injection at a time)",
    };
    const inside = this.pidsInside.get(job.pid);
    const told = inside === undefined ? record : { ...record, pidInside: inside };
    this.records.set(job.pid, told);
    this.decided.push(told);
    this.tell(job, told);
  }

  private async work(): Promise<void> {
    while (!this.stopped && this.queue.length > 0) {
      this.queue.sort((a, b) => a.notBefore - b.notBefore);
      const job = this.queue[0]!;
      if (job.notBefore > Date.now()) {
        await sleep(job.notBefore - Date.now());
        continue;
      }
      this.queue.shift();
      const s = this.seen.get(job.pid);
      const t = s?.starttime === job.starttime ? s.tracked : undefined;
      // No longer wanted while it waited (a slot taken by one that grows, or it exited): not injected.
      const wanted = this.placement.wanted.has(job.pid);
      const attached = wanted ? await this.attach(job) : undefined;
      if (t) t.queued = false;
      if (!attached) continue;
      const inside = this.pidsInside.get(job.pid);
      const record = inside === undefined ? attached : { ...attached, pidInside: inside };
      this.records.set(job.pid, record);
      this.decided.push(record);
      this.tell(job, record);
    }
  }

  private tell(job: Job, r: AttachRecord): void {
    const who = `PID ${job.pid} (${job.comm})${insideText(r.pidInside)}`;
    const placed = this.placement.wanted.get(job.pid);
    const why =
      placed && this.placement.passedOver.size > 0 ? `: ${agentReasonText(placed.reason, placed.siblings)}` : "";
    if (r.status === "attached")
      this.o.say(`agent attached to ${who} in ${((r.ms ?? 0) / 1000).toFixed(1)} s (${r.method})${why}`);
    else if (r.status === "failed") {
      const again = this.reasonsSaid.has(r.reason ?? "");
      this.reasonsSaid.add(r.reason ?? "");
      // After the watch ended (a process left waiting) its readings were all from outside: said in the past.
      const outside = this.stopped ? "it was watched from outside" : "watching it from outside";
      this.o.say(`no agent in ${who}: ${again ? "same reason as above" : r.reason}; ${outside}`);
    }
  }

  private alive(job: Job): boolean {
    const r = readBasic(this.fs, job.pid);
    return r.ok && r.sample.starttime === job.starttime;
  }

  /** Undefined: nothing to say (not a Python process other than the root, gone, or already connected). */
  private async attach(job: Job): Promise<AttachRecord | undefined> {
    const { pid } = job;
    if (this.channel.hello.has(pid)) return { pid, status: "inherited" };
    if (!this.alive(job) || this.injector.givenUp) return undefined; // given up: said once, recorded at the end
    const exe = this.fs.readLink(`/proc/${pid}/exe`);
    const maps = this.fs.readOptional(`/proc/${pid}/maps`);
    const isRoot = pid === this.o.rootPid;
    // exe and maps need ptrace-read rights: when both are hidden, the name (stat, world-readable) must do, and the
    // permission check below says why memleak cannot look closer.
    const interp =
      exe === undefined && maps === undefined && (isRoot || /^python/.test(job.comm))
        ? ({ kind: "cpython", version: undefined } as const)
        : identifyInterpreter(exe, maps);
    if (interp.kind === "not-python")
      return isRoot ? { pid, status: "failed", reason: "not a Python process" } : undefined;
    if (interp.kind === "other-python")
      return { pid, status: "failed", reason: `${interp.name}, not CPython: the agent needs CPython` };
    if (interp.version && !versionAtLeast(interp.version, MIN_VERSION)) {
      return {
        pid,
        status: "failed",
        reason: `Python ${interp.version.join(".")} is older than the agent supports (3.8)`,
      };
    }
    const status = this.fs.readOptional(`/proc/${pid}/status`);
    if (!status) return undefined;
    // A process of another session or user that joined the tree later: another job's, like those refused at the start.
    const member = this.o.job && pid !== this.o.rootPid ? readJobFacts(this.fs, pid) : undefined;
    const outside = member && outsideJob(this.o.job!, member);
    if (outside)
      return { pid, status: "failed", reason: `${outside}, another job's (--all loads the agent there too)` };
    const target = tracerFacts(status);
    const refusal = ptraceRefusal(pid, target, this.ownFacts());
    if (refusal) return { pid, status: "failed", reason: refusal };
    return this.load(job, exe, interp.version, status, target);
  }

  /**
   * A CPython process memleak may trace: the agent's files placed where it can reach them, its loader injected, and
   * its hello waited for.
   */
  private async load(
    job: Job,
    exe: string | undefined,
    version: InjectRequest["version"],
    status: string,
    target: TracerFacts,
  ): Promise<AttachRecord> {
    const { pid } = job;
    const own = this.ownFacts().euid;
    // Timed from here: placing the files and listening in a container is part of what attaching there costs.
    const started = Date.now();
    const seen = await this.views.viewFor(pid, target.fsUid ?? target.uid ?? own, target.fsGid ?? target.gid ?? own);
    if (!seen.ok) return { pid, status: "failed", reason: seen.reason };
    const view = seen.view;
    const shared = view ? undefined : this.shareSocket(target.uid, target.gid);
    if (shared) return { pid, status: "failed", reason: shared };
    // The agent's code compiled by the program's interpreter outside it (precompile.ts: ~3.5 MiB less in the program).
    if (!view && exe)
      await this.precompiler.ensure({ exe, cacheDir: this.channel.dir, uid: target.uid, gid: target.gid });

    const request: InjectRequest = {
      pid,
      version,
      socketPath: view?.socketPath ?? this.channel.socketPath,
      interval: this.o.interval,
      privateDir: this.channel.dir,
      placed: view?.placed,
      env: this.o.env,
      traceSeconds: this.o.traceSeconds,
    };
    const outcome: InjectOutcome = await injectAgent(request);
    if (!outcome.ok) return this.injectionFailed(job, outcome);
    this.injector.succeeded();
    if (await this.channel.waitForHello(pid, PENDING_WAIT_MS))
      return { pid, status: "attached", method: outcome.method, ms: Date.now() - started, startedAt: started };
    return this.loadWhenBlocked(request, outcome.method, started, status, view);
  }

  /** The injection failed: said once for all the processes when the same failure gives the debugger up. */
  private injectionFailed(job: Job, outcome: Extract<InjectOutcome, { ok: false }>): AttachRecord {
    const { pid } = job;
    if (this.channel.hello.has(pid)) return { pid, status: "inherited" };
    // A process that exited meanwhile says nothing of the debugger.
    if (this.alive(job) && this.injector.failed(pid, outcome.method ?? "the debugger", outcome.reason))
      this.o.say(
        `no agent in the other Python processes: ${givenUpText(this.injector.givenUp!)}; watching them from outside`,
      );
    return { pid, status: "failed", reason: outcome.reason, ...(outcome.method && { method: outcome.method }) };
  }

  /**
   * The main thread has not reached a check between bytecodes: it may be asleep or idle in a system call. `method`:
   * the one that scheduled the pending call.
   */
  private async loadWhenBlocked(
    request: InjectRequest,
    method: InjectMethod,
    started: number,
    status: string,
    view: TargetView | undefined,
  ): Promise<AttachRecord> {
    const { pid } = request;
    const blocked = await injectAgent({ ...request, mode: "blocked" });
    const timeout = this.o.helloTimeoutMs ?? 5000;
    // Even when the blocked path refuses, gdb's attach interrupted the main thread's wait: a Python lock wait that
    // returns early runs the pending calls (acquire_timed → Py_MakePendingCalls), so the first code may run now.
    if (await this.channel.waitForHello(pid, blocked.ok ? timeout : Math.min(timeout, PENDING_WAIT_MS))) {
      return {
        pid,
        status: "attached",
        method: blocked.ok ? blocked.method : method,
        ms: Date.now() - started,
        startedAt: started,
      };
    }
    const failedNote = this.failedNote(pid, status, view?.placed?.hostDir ?? this.channel.dir);
    return {
      pid,
      status: "failed",
      method,
      // It may still report later ("it will report if it gets to it"): its memory then dates from here too.
      startedAt: started,
      reason: failedNote
        ? `the agent's loader ran in PID ${pid} but failed: ${failedNote}`
        : blocked.ok
          ? `the interpreter did not run the agent within ${((Date.now() - started) / 1000).toFixed(0)} s; it will report if it gets to it`
          : `${blocked.reason} (busy in a long C call?); it will report if it gets to it`,
    };
  }

  /** What the loading code wrote when it ran and failed (inject.ts injectedCode), by the pid it knows itself by. */
  private failedNote(pid: number, status: string, dir: string): string | undefined {
    try {
      // O_NOFOLLOW: the target writes this file, and a link it put there would be followed from memleak's root.
      const fd = openSync(
        join(dir, `${FAILED_PREFIX}${pidInside(status) ?? pid}`),
        constants.O_RDONLY | constants.O_NOFOLLOW,
      );
      let text: string;
      try {
        const buf = Buffer.alloc(300);
        text = buf.subarray(0, readSync(fd, buf, 0, 300, 0)).toString("utf8");
      } finally {
        closeSync(fd);
      }
      return text.replace(/[^\x20-\x7e]/g, "?").slice(0, 300) || "no message";
    } catch {
      return undefined;
    }
  }

  /** Who this memleak is to the kernel's ptrace rules: the same for every process of the watch, so read once. */
  private ownFacts(): OwnFacts {
    if (!this.own) {
      const yama = this.fs.readOptional("/proc/sys/kernel/yama/ptrace_scope");
      this.own = {
        euid: process.geteuid?.() ?? -1,
        capSysPtrace: hasCapSysPtrace(this.fs.readOptional("/proc/self/status") ?? ""),
        yamaScope: yama === undefined ? undefined : Number(yama.trim()),
      };
    }
    return this.own;
  }

  /** As root, a process of another user can only connect if the socket is theirs too (one user per watch). */
  private shareSocket(uid: number | undefined, gid: number | undefined): string | undefined {
    if (uid === undefined || uid === this.ownFacts().euid) return undefined;
    if (this.sharedWith === undefined) {
      try {
        this.channel.shareWith(uid, gid ?? uid);
        this.sharedWith = uid;
      } catch (err) {
        return `cannot share the agent's socket with uid ${uid}: ${(err as Error).message}`;
      }
    }
    return this.sharedWith === uid
      ? undefined
      : `runs as uid ${uid}, but the agent's socket is already shared with uid ${this.sharedWith}`;
  }
}
