/**
 * One tick = one Sample: rediscover the tree, read status/stat of every process, smaps_rollup of those the budget
 * allows, and the cgroup; then what the agents and the GPU driver have to add (sample-sources.ts), so the sample is
 * complete when it is handed on. Pure of scheduling: the caller decides when to tick (session/session.ts).
 */
import type { CgroupLocation } from "../system/cgroup-locate.js";
import type { HostFs } from "../system/host-fs.js";
import { processTree } from "../system/process-tree.js";
import { AgentThreads } from "../system/agent-threads.js";
import { readCgroup } from "../system/read-cgroup.js";
import { readMachineMemory } from "../system/read-machine-memory.js";
import { addSmaps, readBasic, readCmdline, readSmaps } from "../system/read-process.js";
import type { ProcessSample, Sample } from "../system/sample.js";
import { SmapsBudget, type SmapsCandidate } from "./smaps-budget.js";
import { MappedFilesReader } from "./mapped-files.js";
import { AgeStats } from "./freshness.js";
import { processKey } from "./process-key.js";
import { DEFAULT_PSS_EVERY, DEFAULT_SMAPS_BUDGET } from "./defaults.js";
import { addFromSources, type SampleSources } from "./sample-sources.js";

/** The sources beyond /proc (sample-sources.ts) are optional: the sampler's own tests leave them out. */
export interface SamplerOptions extends SampleSources {
  fs: HostFs;
  rootPid: number;
  cgroup?: CgroupLocation | undefined;
  /** Fraction of one core smaps_rollup reads may use; default DEFAULT_SMAPS_BUDGET. */
  smapsBudget?: number;
  /** Target age of PSS/USS in seconds (--pss-every); default DEFAULT_PSS_EVERY. The budget caps it. */
  pssEvery?: number;
  now?: () => number;
}

/**
 * For the first 30 s, PSS/USS are read as often as the budget allows, whatever --pss-every says: that is when the
 * early test (and a 10 s CI step) judges copy-on-write and growth on every reading it can get. fork_cow for 10 s had
 * 5 USS readings per worker at 2 s, too few to see the copying, and its tree's Σ Pss_Anon was called a leak. Only for
 * processes that moved since their last read (they ran, or their resident memory changed): an idle worker cannot have
 * copied or kept anything, and 64 of them read every second made half of a watch's first-minute reads (BENCHMARKS.md
 * § g¹³).
 */
export const PSS_EAGER_SECONDS = 30;

export interface SamplerTotals {
  ticks: number;
  smapsReads: number;
  smapsMs: number;
  /** Reads refused with EACCES: smaps of another user's process without CAP_SYS_PTRACE. */
  smapsDenied: Set<number>;
  /** How old each process's PSS/USS was at each tick (seconds since its last smaps_rollup read). */
  pssAge: AgeStats;
  /** The oldest PSS/USS of the last tick, seconds (for the live view). */
  pssAgeNow?: number | undefined;
  /** Every process seen, with its command line as first seen. */
  seen: Map<string, { pid: number; ppid: number; comm: string; cmdline: string[] | undefined; firstSeen: number }>;
}

/** At most this many processes' command lines are remembered; the oldest exited ones are forgotten first. */
const MAX_SEEN = 10_000;

/** How long after first seeing a process its command line is still re-read (exec chains at start-up). */
const EXEC_SETTLE_MS = 3000;

export class Sampler {
  private readonly fs: HostFs;
  /** memleak's agent threads in the tree: the walk does not read their children files. */
  private readonly agentThreads: AgentThreads;
  private readonly budget: SmapsBudget;
  private readonly files: MappedFilesReader;
  private readonly now: () => number;
  readonly totals: SamplerTotals = {
    ticks: 0,
    smapsReads: 0,
    smapsMs: 0,
    smapsDenied: new Set(),
    seen: new Map(),
    pssAge: new AgeStats(),
  };
  private lastTickAt: number | undefined;
  /** Each process's CPU ticks and resident size at its last smaps_rollup read: whether it moved since (`still`). */
  private readonly atLastRead = new Map<string, string>();

  constructor(private readonly opts: SamplerOptions) {
    this.fs = opts.fs;
    this.agentThreads = new AgentThreads(opts.fs);
    const budget = opts.smapsBudget ?? DEFAULT_SMAPS_BUDGET;
    this.budget = new SmapsBudget(
      budget,
      Math.max(budget * 1000, 1),
      (opts.pssEvery ?? DEFAULT_PSS_EVERY) * 1000,
      PSS_EAGER_SECONDS * 1000,
    );
    this.files = new MappedFilesReader(this.fs, this.budget);
    this.now = opts.now ?? Date.now;
  }

  /** Undefined once the root process is gone. */
  tick(): Sample | undefined {
    const t = this.now();
    const tree = processTree(this.fs, this.opts.rootPid, this.agentThreads);
    if (tree.length === 0) return undefined;
    const basics: ProcessSample[] = [];
    for (const node of tree) {
      const r = readBasic(this.fs, node.pid);
      // A zombie has exited and holds no memory; it is only waiting for its parent to reap it. A process with no VmRSS
      // line has no memory either: it is exiting, its address space already released (exit_mm) while its state is not
      // yet Z. Every kernel since 2.6 gives VmRSS to a process that has one (fixtures/old-kernel).
      if (!r.ok || r.state === "Z" || r.sample.rss === undefined) {
        if (node.pid === this.opts.rootPid) return undefined;
        continue;
      }
      basics.push(r.sample);
    }
    if (basics.length === 0) return undefined;
    // Each process's key is made once a tick: it is looked up five times per process below.
    const keyList = basics.map(processKey);
    // Refused before this tick (a refusal met during it counts from the freshness loop below, as it always did).
    const denied = basics.map((p) => this.totals.smapsDenied.has(p.pid));
    const keys = new Set(keyList);
    this.budget.retain(keys);
    this.files.retain(keys);
    for (const key of this.atLastRead.keys()) if (!keys.has(key)) this.atLastRead.delete(key);
    this.noteNew(basics, keyList, keys, t);

    this.readSmapsDue(t, basics, keyList, denied);
    this.totals.ticks++;
    this.notePssAges(t, basics, keyList);
    const sample: Sample = { t, processes: basics };
    if (this.opts.cgroup) sample.cgroup = readCgroup(this.fs, this.opts.cgroup);
    const machine = readMachineMemory(this.fs);
    if (machine) sample.machine = machine;
    addFromSources(sample, this.opts);
    return sample;
  }

  /**
   * smaps_rollup (and, where file-backed memory grew, the full smaps) of the processes the budget says are due, added
   * to this tick's samples in place (readBasic made them).
   */
  private readSmapsDue(t: number, basics: ProcessSample[], keyList: string[], denied: boolean[]): void {
    // Half the time since the last tick: a read that falls due before the next tick is made at this one.
    const slack = this.lastTickAt === undefined ? 0 : (t - this.lastTickAt) / 2;
    this.lastTickAt = t;
    const readable: SmapsCandidate[] = [];
    const marks = basics.map(movementMark);
    for (let i = 0; i < basics.length; i++) {
      const key = keyList[i]!;
      const mark = marks[i];
      const still = mark !== undefined && this.atLastRead.get(key) === mark;
      if (!denied[i]) readable.push({ key, rss: basics[i]!.rss, still });
    }
    const toRead = new Set(this.budget.plan(t, readable, slack));
    for (let i = 0; i < basics.length; i++) {
      const p = basics[i]!;
      const key = keyList[i]!;
      const files = denied[i] ? undefined : this.files.read(key, p.pid, p.file);
      if (files) p.files = files;
      // The full smaps was just read (the kernel walked the page tables once already): the rollup waits a tick.
      if (!toRead.has(key) || files) continue;
      const r = readSmaps(this.fs, p.pid, this.budget.timeNext(key));
      if (!r.ok) {
        if (r.reason === "denied") this.totals.smapsDenied.add(p.pid);
        this.budget.chargeFailed(key, t, 0.05);
        continue;
      }
      this.totals.smapsReads++;
      this.totals.smapsMs += this.budget.charge(key, t, r.costMs);
      const mark = marks[i];
      if (mark !== undefined) this.atLastRead.set(key, mark);
      addSmaps(p, r.rollup);
    }
  }

  /** How old each process's PSS/USS is at this tick, for the totals and the live view. */
  private notePssAges(t: number, basics: ProcessSample[], keyList: string[]): void {
    let oldest: number | undefined;
    for (let i = 0; i < basics.length; i++) {
      const last = this.budget.lastReadAt(keyList[i]!);
      if (last === undefined || this.totals.smapsDenied.has(basics[i]!.pid)) continue;
      this.totals.pssAge.add(t - last);
      oldest = Math.max(oldest ?? 0, t - last);
    }
    this.totals.pssAgeNow = oldest === undefined ? undefined : oldest / 1000;
  }

  private noteNew(basics: ProcessSample[], keyList: string[], live: Set<string>, t: number): void {
    if (this.totals.seen.size > MAX_SEEN) {
      for (const key of this.totals.seen.keys()) {
        if (this.totals.seen.size <= MAX_SEEN * 0.9) break;
        if (!live.has(key)) this.totals.seen.delete(key); // Map order: oldest first
      }
    }
    for (let i = 0; i < basics.length; i++) {
      const p = basics[i]!;
      const key = keyList[i]!;
      const known = this.totals.seen.get(key);
      // Exec chains happen right after start (a pyenv shim → bash → python, all named "python3"), so the command
      // line is re-read during a process's first seconds, and whenever its comm changes (an exec).
      if (known && known.comm === p.comm && t - known.firstSeen > EXEC_SETTLE_MS) continue;
      const cmdline = readCmdline(this.fs, p.pid);
      if (known && known.comm === p.comm && String(known.cmdline) === String(cmdline)) continue;
      this.totals.seen.set(key, { pid: p.pid, ppid: p.ppid, comm: p.comm, cmdline, firstSeen: known?.firstSeen ?? t });
    }
  }
}

/**
 * What says a process moved between two reads: its CPU time and its resident size (stat and status, every tick).
 * Undefined where either is unknown: such a process counts as moving.
 */
function movementMark(p: ProcessSample): string | undefined {
  return p.cpuTicks === undefined || p.rss === undefined ? undefined : `${p.cpuTicks}:${p.rss}`;
}
