/**
 * The other end of the Python agent: a Unix socket in a fresh 0700 temporary directory. Each agent connects and
 * writes JSON lines. memleak only parses them — nothing received is ever executed or used as a path — and a line
 * longer than MAX_LINE closes that connection. Reports are kept per pid: the latest one, plus the end-of-run
 * trace and trim results.
 */
import { chmodSync, chownSync, mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { deadOwnersDirs } from "../system/stale-dirs.js";
import { join } from "node:path";
import { parseAgentMessage, type AgentMessage, type AgentReport } from "./messages.js";
import type {
  CowResult,
  GpuOomResult,
  GpuSitesResult,
  HolderResult,
  TraceResult,
  TrimResult,
} from "./agent-results.js";
import type { TestMark } from "./pytest-results.js";
import { isGraphHolder, latestLook } from "./agent-results.js";

/** Test marks kept (the pytest plugin's, two per test): a suite of 50,000 tests, and no unbounded growth past it. */
export const MAX_TEST_MARKS = 100_000;

/**
 * Connections taken at once: one per agent, so one per Python process of the watched tree (a DataLoader with 64
 * workers is 65). Unbounded, 10,000 connections to the socket held 10,000 descriptors and 54 MB of memleak's memory.
 */
export const MAX_AGENTS = 1024;
export const MAX_LINE = 64 * 1024;

export class AgentChannel {
  readonly dir: string;
  readonly socketPath: string;
  private server: Server | undefined;
  /** Sockets placed in containers' views (listenInside), each with what to remove when memleak ends. */
  private readonly inside: { server: Server; cleanup: () => void }[] = [];
  /** Host pid → its pid inside its container's PID namespace, for agents that connected from one. */
  readonly pidsInside = new Map<number, number>();
  private readonly sockets = new Set<Socket>();
  /** Each agent's connection, by the pid it speaks for: what release() ends. */
  private readonly connections = new Map<number, Socket>();
  readonly latest = new Map<number, AgentReport>();
  /** The report of each pid a sample last carried (snapshot), so the ones that came after are known. */
  private readonly sampled = new Map<number, AgentReport>();
  readonly traces = new Map<number, TraceResult>();
  readonly trims = new Map<number, TrimResult>();
  /** What holds the container each pid's agent saw grow: its latest search. */
  readonly holders = new Map<number, HolderResult>();
  /** What each forked worker copied from its parent, when memleak asked (askCopied): the latest answer. */
  readonly copied = new Map<number, CowResult>();
  /** When each pid was last asked what it copied (epoch ms): its answer carries when its look began. */
  private readonly askedCopiedAt = new Map<number, number>();
  /** What holds the graph each pid's agent saw one tensor keep growing: its latest look. */
  readonly graphHolders = new Map<number, HolderResult>();
  /** Where each pid's GPU leak was allocated: its one window of the caching allocator's history (memleak_gpu_sites.py). */
  readonly gpuSites = new Map<number, GpuSitesResult>();
  /** What each pid held at its last CUDA out-of-memory error (memleak_gpu_sites.py's observer). */
  readonly gpuOoms = new Map<number, GpuOomResult>();
  /** Pids that said hello: the agent runs in them. */
  readonly hello = new Set<number>();
  /** The pytest plugin's test-start and test-end marks, in the order they came. */
  readonly testMarks: TestMark[] = [];
  /** How many of testMarks have been handed to the recording (takeTestMarks). */
  private marksTaken = 0;
  private readonly helloWaiters = new Map<number, Set<() => void>>();
  dropped = 0;

  private constructor() {
    // The pid in the name lets a later memleak remove it if this one is killed before it can (SIGKILL).
    this.dir = mkdtempSync(join(tmpdir(), `memleak-agent-${process.pid}-`));
    chmodSync(this.dir, 0o700); // only memleak's user may connect, or read what is sent
    this.socketPath = join(this.dir, "agent.sock");
  }

  static async open(): Promise<AgentChannel> {
    await removeStaleAgentDirs(tmpdir());
    const ch = new AgentChannel();
    ch.server = createServer((socket) => ch.accept(socket, undefined));
    await new Promise<void>((resolve, reject) => {
      ch.server!.once("error", reject);
      ch.server!.listen(ch.socketPath, () => resolve());
    });
    // The reports must not keep memleak alive on their own.
    ch.server.unref();
    ch.server.maxConnections = MAX_AGENTS;
    return ch;
  }

  /**
   * Listens on a socket file placed in a container's view as well (agent/attach/placement.ts). Its agents say their
   * pid inside the container; `toHost` turns it into the host pid everything else of memleak uses (undefined: no
   * such process, the message is dropped). `cleanup` runs at close, after the socket is closed.
   */
  async listenInside(
    hostSocketPath: string,
    toHost: (pidInside: number) => number | undefined,
    cleanup: () => void,
    /** Who binds the socket (placement.ts asOwner): listen() creates the socket file before it returns. */
    bindAs: (bind: () => void) => void = (bind) => bind(),
  ): Promise<void> {
    const server = createServer((socket) => this.accept(socket, toHost));
    this.inside.push({ server, cleanup });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      bindAs(() => server.listen(hostSocketPath, () => resolve()));
    });
    server.unref();
    server.maxConnections = MAX_AGENTS;
  }

  private accept(socket: Socket, toHost: ((pidInside: number) => number | undefined) | undefined): void {
    this.sockets.add(socket);
    socket.unref();
    let buffer = "";
    /** The pid this connection speaks for: the first message's. An agent connects once per process (a forked child
     *  opens its own connection), so a connection that claims a second pid is not an agent. */
    let pid: number | undefined;
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const had = pid;
        pid = this.handle(buffer.slice(0, nl), pid, toHost);
        if (had === undefined && pid !== undefined) this.connections.set(pid, socket);
        buffer = buffer.slice(nl + 1);
      }
      if (buffer.length > MAX_LINE) {
        this.dropped++;
        socket.destroy();
      }
    });
    socket.on("error", () => socket.destroy());
    socket.on("close", () => {
      this.sockets.delete(socket);
      if (pid !== undefined && this.connections.get(pid) === socket) {
        this.connections.delete(pid);
        this.quiet.delete(pid);
      }
    });
  }

  /** @returns the pid the connection speaks for, once known */
  private handle(
    line: string,
    bound: number | undefined,
    toHost: ((pidInside: number) => number | undefined) | undefined,
  ): number | undefined {
    if (line.length > MAX_LINE) {
      this.dropped++;
      return bound;
    }
    const msg = toHost ? this.fromInside(parseAgentMessage(line), toHost) : parseAgentMessage(line);
    if (!msg || (bound !== undefined && msg.pid !== bound)) {
      this.dropped++;
      return bound;
    }
    if (msg.type === "hello") {
      this.hello.add(msg.pid);
      if (msg.quiet) this.quiet.add(msg.pid);
      if (msg.wake !== undefined) this.wakeSignals.set(msg.pid, msg.wake);
      for (const wake of this.helloWaiters.get(msg.pid) ?? []) wake();
    } else if (msg.type === "report") this.latest.set(msg.pid, msg);
    // A periodic trace never replaces the final one (the agent's thread can send one while the process exits).
    else if (msg.type === "trace") {
      const had = this.traces.get(msg.pid);
      if (!msg.interim || !had || had.interim) this.traces.set(msg.pid, msg);
    } else if (msg.type === "trim") this.trims.set(msg.pid, msg);
    else if (msg.type === "holder") (isGraphHolder(msg) ? this.graphHolders : this.holders).set(msg.pid, msg);
    else if (msg.type === "cow") this.copied.set(msg.pid, latestLook(this.copied.get(msg.pid), msg));
    else if (msg.type === "gpu-sites") this.gpuSites.set(msg.pid, msg);
    else if (msg.type === "gpu-oom") this.gpuOoms.set(msg.pid, msg);
    else if (msg.type === "test-start" || msg.type === "test-end") {
      if (this.testMarks.length < MAX_TEST_MARKS) this.testMarks.push(msg);
      else this.dropped++;
    }
    return msg.pid;
  }

  /** The message with its pid inside a container replaced by the host pid (mapped once per connection's pid). */
  private fromInside(
    msg: AgentMessage | undefined,
    toHost: (pidInside: number) => number | undefined,
  ): AgentMessage | undefined {
    if (!msg) return undefined;
    const host = toHost(msg.pid);
    if (host === undefined) return undefined;
    this.pidsInside.set(host, msg.pid);
    return { ...msg, pid: host };
  }

  /** The test marks that came since the last call: the recording writes them as they come. */
  takeTestMarks(): TestMark[] {
    const fresh = this.testMarks.slice(this.marksTaken);
    this.marksTaken = this.testMarks.length;
    return fresh;
  }

  /** The agent part of a Sample: each pid's latest report and any trim result, as recorded. */
  snapshot(pids: Iterable<number>): Record<string, unknown> | undefined {
    const out: Record<string, unknown> = {};
    for (const pid of pids) {
      const r = this.latest.get(pid);
      if (!r) continue;
      this.sampled.set(pid, r);
      const trim = this.trims.get(pid);
      // The report's own data, not a copy, unless a trim result joins it: 64 copies a tick were garbage to collect.
      // Nothing writes to a sample's agent data (the recording serialises it, the series read it).
      out[String(pid)] = trim
        ? { ...r.data, trim: { anonBefore: trim.anonBefore, anonAfter: trim.anonAfter } }
        : r.data;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }

  /**
   * Reports no sample has carried yet, from these pids: the last words an agent sends as its interpreter exits (a
   * forced, fresh reading of malloc and the census), which arrive after the last sample was taken.
   */
  unsampled(
    pids: Iterable<number>,
    exited: (pid: number) => boolean = () => false,
  ): Record<string, unknown> | undefined {
    const fresh = [...pids].filter((pid) => this.latest.has(pid) && this.latest.get(pid) !== this.sampled.get(pid));
    const words = fresh.length > 0 ? this.snapshot(fresh) : undefined;
    // When each process that has exited sent them (the agent's clock, epoch seconds): from atexit, before the
    // interpreter's teardown, whose samples the series then leave out (series.ts endProgramAt). Not for one still
    // running (a watch that ended first): its report is no last word.
    for (const pid of words ? fresh : [])
      if (exited(pid)) words![String(pid)] = { ...(words![String(pid)] as object), sentAt: this.latest.get(pid)!.t };
    return words;
  }

  /** Resolves true when `pid`'s agent says hello (or already has), false after `ms`. */
  waitForHello(pid: number, ms: number): Promise<boolean> {
    if (this.hello.has(pid)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiters = this.helloWaiters.get(pid) ?? new Set();
      this.helloWaiters.set(pid, waiters);
      const done = (said: boolean) => {
        clearTimeout(timer);
        waiters.delete(wake);
        if (waiters.size === 0) this.helloWaiters.delete(pid);
        resolve(said);
      };
      const wake = () => done(true);
      const timer = setTimeout(() => done(false), ms);
      timer.unref();
      waiters.add(wake);
    });
  }

  /**
   * Tells one agent that it is no longer needed (watch's placement, agent-placement.ts): the goodbye it gets when a
   * session ends, so its thread ends and it closes its connection, and the program runs on with nothing of ours
   * running in it. Its last report is forgotten, so no later sample carries it as if fresh; what it measured before
   * (holders, traces) is kept. False when it has no connection.
   */
  release(pid: number): boolean {
    const socket = this.connections.get(pid);
    this.hello.delete(pid);
    this.latest.delete(pid);
    this.sampled.delete(pid);
    if (!socket) return false;
    this.connections.delete(pid);
    socket.end("bye\n");
    return true;
  }

  /**
   * Under `run`: the processes whose agent installed the wake signal's handler, and its number. A worker they fork
   * inherits the handler and sleeps, unconnected, until memleak sends it (run-agents.ts).
   */
  readonly wakeSignals = new Map<number, number>();

  /** Agents told to be quiet (run's placement): connected, sending nothing and never waking until told to report. */
  readonly quiet = new Set<number>();

  /**
   * Tells one agent to stop reporting and waking (`run`'s placement, agent-placement.ts): an idle worker's agent says
   * nothing its /proc readings and its group's agent do not. Unlike watch's release, it stays connected, so one word
   * brings it back at once when its process grows (no debugger needed under run). Its last report is forgotten, so no
   * later sample carries it as if fresh. False when it has no connection or is quiet already.
   */
  quieten(pid: number): boolean {
    const socket = this.connections.get(pid);
    if (!socket || this.quiet.has(pid)) return false;
    socket.write("quiet\n");
    this.quiet.add(pid);
    this.latest.delete(pid);
    this.sampled.delete(pid);
    return true;
  }

  /** Tells a quiet agent to report again, at once (a fresh report: the last one was forgotten). */
  wake(pid: number): boolean {
    const socket = this.connections.get(pid);
    if (!socket || !this.quiet.delete(pid)) return false;
    socket.write("report\n");
    return true;
  }

  /**
   * Asks a forked worker's agent which of its parent's objects it has copied (memleak_cow.py): one walk on the agent's
   * thread, answered by a 'cow' message, quiet or not. False when it has no connection.
   */
  askCopied(pid: number): boolean {
    const socket = this.connections.get(pid);
    if (!socket) return false;
    this.askedCopiedAt.set(pid, Date.now());
    socket.write("cow\n");
    return true;
  }

  /** Waits (at most `ms`) until each of `pids` answered its last askCopied, or its connection ended. */
  async answered(pids: readonly number[], ms: number): Promise<void> {
    const end = Date.now() + ms;
    const waiting = () =>
      pids.some(
        (pid) => this.connections.has(pid) && (this.copied.get(pid)?.t ?? 0) * 1000 < this.askedCopiedAt.get(pid)! - 50,
      );
    while (waiting() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  }

  /** Whether this pid's agent is connected now. */
  connected(pid: number): boolean {
    return this.connections.has(pid);
  }

  /**
   * Lets processes of another user connect (memleak as root watching a service's process): the directory becomes
   * theirs, still 0700, so only they and root can reach the socket.
   */
  shareWith(uid: number, gid: number): void {
    chownSync(this.dir, uid, gid);
    chownSync(this.socketPath, uid, gid);
  }

  /** Waits until every agent connection has closed (they close at interpreter exit), at most `ms`. */
  async drain(ms: number): Promise<void> {
    const end = Date.now() + ms;
    while (this.sockets.size > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  }

  /**
   * Says goodbye to every agent and stops listening. The goodbye is what tells an agent that memleak ended its
   * session: a connection that ends without one, from a memleak that is gone, means memleak was killed, and an agent
   * in a program `run` launched then stops that program (memleak_lifecycle.py `_die_with_memleak`).
   */
  close(): void {
    for (const s of this.sockets) s.end("bye\n");
    this.server?.close();
    rmSync(this.dir, { recursive: true, force: true });
    for (const { server, cleanup } of this.inside.splice(0)) {
      server.close();
      try {
        cleanup();
      } catch {
        /* the container is gone, and its files with it */
      }
    }
  }
}

/**
 * Directories (with their socket) of memleaks that were killed before they could remove them: named by their pid,
 * removed once that pid is gone — only this user's, and only when nothing answers on the socket: a memleak in another
 * container sharing this /tmp has a pid this one cannot see. A pid reused since is taken as alive: the directory waits.
 */
export async function removeStaleAgentDirs(dir: string): Promise<void> {
  for (const path of deadOwnersDirs(dir, "memleak-agent-")) {
    try {
      if (await answers(join(path, "agent.sock"))) continue;
      rmSync(path, { recursive: true, force: true });
    } catch {
      /* gone, or not ours to remove */
    }
  }
}

/** Whether a server listens on this Unix socket (a live memleak), within 200 ms. */
export function answers(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection(socketPath);
    const done = (ok: boolean) => {
      clearTimeout(timer);
      s.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), 200);
    s.once("connect", () => done(true));
    s.once("error", () => done(false));
  });
}
