/**
 * `watch`'s side of injection: every Python process of the watched tree gets the agent — those there at the start at
 * once, those that appear later (new workers) too. A process forked from one that already has the agent brings its
 * own (the agent's at-fork hook connects it), so a newcomer is given a grace period to say hello before gdb is used.
 * One injection at a time, off the sampling path (the loop only calls consider()).
 *
 * Every refusal is said once, in one line, and memleak goes on without that process's agent; `missing` keeps the
 * reason for the verdict ("without the agent, memleak cannot tell …").
 */
import type { HostFs } from "../../system/host-fs.js";
import { readBasic } from "../../system/read-process.js";
import type { AgentChannel } from "../channel.js";
import { identifyInterpreter, MIN_VERSION, versionAtLeast } from "./interpreter.js";
import { injectAgent, type InjectOutcome } from "./inject.js";
import { hasCapSysPtrace, ptraceRefusal, tracerFacts, type OwnFacts } from "./permission.js";
import { processKey } from "../../sampling/process-key.js";
import { insideText } from "../../base/pid-inside.js";
import { ContainerViews } from "./container-view.js";
import { outsideJob, readJobFacts, type JobFacts } from "./job-scope.js";
import { pidInside } from "../../system/namespaces.js";
import { FAILED_PREFIX } from "./inject.js";
import { closeSync, constants, openSync, readSync } from "node:fs";
import { join } from "node:path";

export interface AttachRecord {
  pid: number;
  /** attached: injected and said hello; inherited: forked from a process with the agent; failed: see reason. */
  status: "attached" | "inherited" | "failed";
  reason?: string;
  method?: string;
  /** From the start of the injection to the agent's hello. */
  ms?: number;
  /** When the injection started (epoch ms): the agent's memory arrives from then on, before its first report. */
  startedAt?: number;
  /** In a container (another PID namespace): the pid the process has there; `pid` is the host's. */
  pidInside?: number;
}

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
}

interface Job {
  pid: number;
  starttime: number;
  comm: string;
  notBefore: number;
}

/** How long the pending call has to run before the blocked-thread path is tried. */
const PENDING_WAIT_MS = 2000;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));

export class Attacher {
  private readonly seen = new Set<string>();
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

  constructor(
    private readonly channel: AgentChannel,
    private readonly fs: HostFs,
    private readonly o: AttacherOptions,
  ) {
    this.views = new ContainerViews(fs, channel, () => this.current);
  }

  /** Pid → why it has no agent, for the verdict. Processes that said hello late (after a timeout) count as having it. */
  missing(): Map<number, string> {
    const out = new Map<number, string>();
    for (const r of this.records.values())
      if (r.status === "failed" && !this.channel.hello.has(r.pid)) out.set(r.pid, r.reason ?? "");
    return out;
  }

  /** The outcomes decided since the last call, each once (for the recording). */
  takeDecided(): AttachRecord[] {
    const out = this.decided;
    this.decided = [];
    return out;
  }

  /** Called every tick with the processes of the sample: new ones are queued. */
  consider(processes: { pid: number; starttime: number; comm: string }[]): void {
    const now = Date.now();
    this.current = processes.map((p) => p.pid);
    for (const p of processes) {
      const key = processKey(p);
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      const inside = pidInside(this.fs.readOptional(`/proc/${p.pid}/status`) ?? "");
      if (inside !== undefined) this.pidsInside.set(p.pid, inside);
      this.queue.push({ ...p, notBefore: this.started ? now + (this.o.forkGraceMs ?? 2000) : now });
    }
    this.started = true;
    this.worker ??= this.work().finally(() => (this.worker = undefined));
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
      const attached = await this.attach(job);
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
    if (r.status === "attached")
      this.o.say(`agent attached to ${who} in ${((r.ms ?? 0) / 1000).toFixed(1)} s (${r.method})`);
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
    if (!this.alive(job)) return undefined;
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
    const own = this.ownFacts().euid;
    // Timed from here: placing the files and listening in a container is part of what attaching there costs.
    const started = Date.now();
    const seen = await this.views.viewFor(pid, target.fsUid ?? target.uid ?? own, target.fsGid ?? target.gid ?? own);
    if (!seen.ok) return { pid, status: "failed", reason: seen.reason };
    const view = seen.view;
    const shared = view ? undefined : this.shareSocket(target.uid, target.gid);
    if (shared) return { pid, status: "failed", reason: shared };

    const request = {
      pid,
      version: interp.version,
      socketPath: view?.socketPath ?? this.channel.socketPath,
      interval: this.o.interval,
      privateDir: this.channel.dir,
      placed: view?.placed,
      env: this.o.env,
      traceSeconds: this.o.traceSeconds,
    };
    const outcome: InjectOutcome = await injectAgent(request);
    if (!outcome.ok) {
      if (this.channel.hello.has(pid)) return { pid, status: "inherited" };
      return { pid, status: "failed", reason: outcome.reason, ...(outcome.method && { method: outcome.method }) };
    }
    if (await this.channel.waitForHello(pid, PENDING_WAIT_MS))
      return { pid, status: "attached", method: outcome.method, ms: Date.now() - started, startedAt: started };
    // The main thread has not reached a check between bytecodes: it may be asleep or idle in a system call.
    const blocked = await injectAgent({ ...request, mode: "blocked" });
    const timeout = this.o.helloTimeoutMs ?? 5000;
    // Even when the blocked path refuses, gdb's attach interrupted the main thread's wait: a Python lock wait that
    // returns early runs the pending calls (acquire_timed → Py_MakePendingCalls), so the first code may run now.
    if (await this.channel.waitForHello(pid, blocked.ok ? timeout : Math.min(timeout, PENDING_WAIT_MS))) {
      return {
        pid,
        status: "attached",
        method: blocked.ok ? blocked.method : outcome.method,
        ms: Date.now() - started,
        startedAt: started,
      };
    }
    const failedNote = this.failedNote(pid, status, view?.placed?.hostDir ?? this.channel.dir);
    return {
      pid,
      status: "failed",
      method: outcome.method,
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
