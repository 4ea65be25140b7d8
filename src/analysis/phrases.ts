/**
 * What a finding says, as facts. Analysis decides and names each sentence it wants said (`say`: the subject and the
 * rule's branch) with the numbers and names that sentence needs; report/wording/ turns them into words. Analysis
 * writes no sentence and formats no number for one, so the same facts can be told in full (the verdict), short (the
 * live view's "so far" line), or in another form later, and the rules can be read without the prose in the way. What
 * stays text is a fact already: assess.ts's short reasons ("12 samples after warm-up (needs 20)"), and the evidence's
 * few strings (a layer's name, the mapped files), which the JSON document shows as they are.
 *
 * One interface holds every sentence, so that the wording module must word each one (report/wording/index.ts is
 * typed against it, and a sentence without words does not compile).
 */
import type { CopiedField, MetricName, Rate, Subject, VerdictKind } from "./types.js";

/** Which advice fits what holds a leak (signals/holder.ts), a section of src/advice/leak.md each. */
export type HolderVariant =
  | "holder"
  | "holder-dict"
  | "holder-lru"
  | "holder-graphs"
  | "holder-cuda"
  | "holder-graph-chain"
  | "holder-graph-chain-not-found"
  | "holder-tasks"
  | "holder-handlers"
  | "holder-callbacks"
  | "holder-queue"
  | "holder-frame"
  | "holder-not-found";

export interface PhraseFacts {
  // classify.ts: findings that explain each other
  /** A tree's or cgroup's leak that processes' leaks account for. */
  "reconcile.attributed": {
    of: Phrase;
    pids: string;
    /** the processes' own finding, when it is not a leak */ as?: VerdictKind;
    /** What the leaking processes grew, against the growth, where that is short of it (LEAKS_EXPLAIN_ALL). */
    part?: LeakPart;
  };
  /** Tree or cgroup growth that processes' garbage backlog accounts for: undecided until the next full collection. */
  "reconcile.backlog-waiting": { subject: "tree" | "cgroup"; growth: number; pids: string };
  /** …or given back at one. */
  "reconcile.backlog-released": { subject: "tree" | "cgroup"; growth: number; pids: string };
  /** …or by processes whose allocators are still filling to their working size (signals/live-heap.ts). */
  "reconcile.settling": { subject: "tree" | "cgroup"; growth: number; pids: string };
  "reconcile.pinning-undecided": { subject: "tree" | "cgroup"; growth: number; pids: string };
  "reconcile.kept": { subject: "tree" | "cgroup"; growth: number; pids: string };
  "reconcile.importing": { subject: "tree" | "cgroup"; growth: number; pids: string };
  "reconcile.starting": { subject: "tree" | "cgroup"; growth: number; pids: string };
  /** …or by processes judged stable, their growth and the rest each under the floor (stable-explains.ts). */
  "reconcile.stable": { subject: "tree" | "cgroup"; growth: number; grown: number; pids: string; floor: number };
  /** Tree or cgroup growth that copying after fork accounts for. */
  /** besideLeak: a process leaks too, and this is listed beside the group's leak: only the copied part is bounded. */
  "reconcile.cow": {
    subject: "tree" | "cgroup";
    growth: number;
    copiers: number;
    copied: number;
    besideLeak?: boolean;
  };
  /** A shared cgroup's growth that the watched tree does not explain; an artefact's own sentence follows. */
  "reconcile.outside": {
    growth: number;
    rate: Rate | undefined;
    tree: number;
    others: number[];
    othersAnonGrowth: number | undefined;
    artefact: Phrase | undefined;
  };
  /** The cgroup holds processes outside the watched tree. */
  "cgroup.others": { others: number[] };
  /** No sample at all. */
  "verdict.no-samples": Record<string, never>;

  // signals/process.ts: each sentence starts with the process (PID and command), which the live view leaves out
  "process.insufficient": ProcessFacts & {
    reason: string | undefined;
    waiting?: GcWaitingFacts;
    settling?: Settling;
    kept?: KeptTemporaries;
  };
  "process.retention": ProcessFacts & {
    anon: number;
    live: number;
    mallocInUse: number;
    mallocFree: number;
    trimmed: number | undefined;
  };
  "process.leak": ProcessFacts & LeakFacts;
  "process.hidden-leak": ProcessFacts & {
    start: number;
    end: number;
    rate: Rate;
    seconds: number;
    anon: number;
    free: number;
    layer: string | undefined;
    /** Set when anon rose too, mostly by freed memory malloc keeps (signals/kept-temporaries.ts). */
    kept?: KeptTemporaries;
  };
  "process.cow": ProcessFacts & {
    ussStart: number;
    ussEnd: number;
    bound: number | undefined;
    isRoot: boolean;
    /** Set when resident memory grew too (its own allocations): what of the USS growth was copied, and the shared drop. */
    copied?: number;
    sharedDrop?: number | undefined;
  };
  "process.plateau": ProcessFacts & { step: boolean; growth: number; end: number };
  "process.stable": ProcessFacts & { metric: MetricName; start: number; end: number };
  /** A leak called early (stats/sequential.ts): what that cannot know. */
  "leak.early": { seconds: number; alpha: string };
  /** signals/mapped.ts: resident file pages that grew, as a note, or after a stable or plateau finding's sentence. */
  "mapped.file-pages": { growth: number; files: string | undefined };
  "mapped.in-summary": { of: Phrase; growth: number; files: string | undefined };
  /** signals/copied.ts: a forked worker's data read without being copied, after its stable or plateau sentence. */
  "copied.in-summary": Omit<CopiedField["objects"][number], "sampled"> & { of: Phrase };
  /**
   * signals/copied.ts: a forked worker that had copied its parent's pages before memleak's first reading, after its
   * stable or plateau sentence; with the container its look found copied most, when it looked.
   */
  "copied.before-summary": {
    of: Phrase;
    copied: number;
    uss: number;
    anon: number;
    parentAnon: number;
    object?: Omit<CopiedField["objects"][number], "sampled">;
  };
  /** signals/own-footprint.ts: memleak's agent's own arrival, taken out. */
  /** `at`: the agents' injections (their first reports); `looks`: the looks at what a forked worker copied. */
  "own.step": { at: number[]; added: number; looks?: number[] };
  /** signals/gc-off.ts: the program turned the collector off; `count0`: allocations since its last collection. */
  "gc.off": { pid: number; count0?: number };
  /** signals/gc-backlog.ts: memory a full collection gave back. */
  "gc.released": GcFreedFacts & { growth: number; at: number; lowBefore: number; lowAfter: number };
  /** signals/unseen.ts: no agent inside the process. */
  "agent.missing": { why: string; level: number };
  /** signals/layer.ts: which layer a leak grows in, and what the agent measured. */
  /** seconds: between the census walks the change was measured at; share: of the growth, at that rate (census-span.ts). */
  "layer.tensors": { bytes: number; count: number; seconds?: number; share?: number };
  "layer.container": {
    what: string;
    length: number;
    itemBytes: number;
    bytes: number;
    growth?: number;
    /** What each new item keeps alive, its own bytes included (the agent's bounded look, memleak_retained.py). */
    retained?: number;
  };
  "layer.small-objects": { blocks: number };
  "layer.pinning": {
    what: string;
    items: number;
    perSecond: number;
    unit?: "nodes";
    atLeast?: boolean;
    /** The seconds the items were counted over, where fewer than the window's. */
    seconds?: number;
    inUse: number;
    free: number;
  };
  /** signals/holder.ts: a holder the agent found beside a leak it does not explain (the layer is elsewhere). */
  "layer.holder-bystander": {
    container: string;
    found: boolean;
    path: string | undefined;
    itemsPerSecond: number | undefined;
    layer: string;
  };
  "layer.graphs": { graphs: number };
  "layer.graph-nodes": { nodes: number };
  "layer.malloc": { native: number; growth: number; nearlyAll: boolean };
  "layer.torch-tensors-grew": { bytes: number; seconds?: number; share?: number };
  "layer.torch-tensors-flat": Record<string, never>;
  "layer.torch-no-census": Record<string, never>;
  "layer.torch-one-walk": Record<string, never>;
  "layer.trace-hint": Record<string, never>;
  "layer.other-allocator": { name: string };

  // signals/tree.ts
  "tree.insufficient": { reason: string | undefined };
  "tree.leak": { metric: MetricName; start: number; end: number; rate: Rate };
  "tree.plateau": { metric: MetricName; end: number };
  "tree.stable": { metric: MetricName; start: number; end: number };

  // signals/cgroup.ts
  "cgroup.insufficient": { path: string; reason: string | undefined };
  "cgroup.stable": CgroupUsageFacts;
  "cgroup.leak": CgroupUsageFacts & { rate: Rate };
  "cgroup.plateau": CgroupUsageFacts & { growth: number };
  "cgroup.shmem": { shmem: number | undefined };
  "cgroup.artefact": ArtefactFacts;
  /** memleak's agents' memory, taken out of the usage judged. */
  /** `looks`: how many of the processes were looked at (what they copied), not injected. */
  "cgroup.agents": { bytes: number; processes: number; looks?: number };

  // signals/gpu.ts, gpu-driver.ts: each sentence starts with the process and its device
  "gpu.insufficient": GpuFacts & { reason: string | undefined };
  "gpu.leak": GpuFacts & { start: number; end: number; rate: Rate; reserved: number | undefined };
  "gpu.retention": GpuFacts & GpuHeldFacts;
  "gpu.fragmentation": GpuFacts & GpuHeldFacts;
  "gpu.plateau": GpuFacts & { growth: number; end: number };
  "gpu.stable": GpuFacts & { start: number; end: number; reserved: number | undefined };
  /** The driver's number counts the CUDA context and the allocator's cache with the tensors. */
  "gpu.driver-counts-all": Record<string, never>;
  /** Live tensors grow too, under a reserve that grows much faster (a fragmentation finding's caveat). */
  "gpu.tensors-grow-too": { start: number; end: number; rate: Rate };
  /** What a process held on the device at a CUDA out-of-memory error (signals/gpu-oom.ts). */
  "gpu.oom": {
    request: number;
    deviceFree: number;
    allocated: number | undefined;
    reserved: number | undefined;
    freeInReserve: number;
    largestFreeBlock: number;
    cause: "fragmented" | "full";
  };
  /** A device that ran out of memory with more free in its reserve than was asked for (signals/gpu-oom.ts). */
  "gpu.oom-fragmentation": GpuFacts & PhraseFacts["gpu.oom"];
  /** What the driver counts beyond the caching allocator's reserve grows (signals/gpu-outside.ts). */
  "gpu.outside-grows": GpuFacts & { start: number; end: number; rate: Rate; driverGpu: string };
  /** The agent's window of the allocator's history (signals/gpu-sites.ts) found no block alive on the device. */
  "gpu.sites-none": { device: string; seconds: number };
  /** …or could not be recorded (PyTorch older than 2.1, or it refused). */
  "gpu.sites-not-recorded": { why: string };

  // advice: src/advice/<kind>.md, one section per variant, filled with these facts
  "advice.insufficient-data": (
    | { reason: string | undefined; waiting?: GcWaitingFacts; settling?: Settling; kept?: KeptTemporaries }
    | { backlogPids: string }
    | { settlingPids: string }
  ) & {
    /**
     * Whether memleak launched the command (run, pytest) or watched one running (false): "watch for longer
     * (--duration)" only fits watch, where --duration lengthens the watch; under run it only stops the command sooner.
     * Set by classify.ts for every finding.
     */
    launched?: boolean;
  };
  "advice.fragmentation": {
    variant: "process" | "trim";
    pid: number;
    anon: number;
    live: number;
    held: number;
    trimmed: number | undefined;
  };
  "advice.fragmentation-actions": {
    arenas: number | undefined;
    /** The process's command line and how long it was watched: the `run --try` that measures the remedies. */
    command: string;
    seconds: number;
  };
  /** signals/copied.ts: a forked worker that had copied before memleak first read it, its containers not named. */
  "advice.cow-before": { pid: number; command: string; copied: number; uss: number; anon: number };
  "advice.cow-process": {
    pid: number;
    command: string;
    ussStart: number;
    ussEnd: number;
    bound: number | undefined;
    isRoot?: boolean;
  };
  /** One container a copying process copied (signals/copied.ts), advised on by how its pages came to be copied. */
  "advice.cow-object": Omit<CopiedField["objects"][number], "sampled"> & {
    pid: number;
    /** The program froze objects before forking (gc.freeze). */
    frozen: boolean;
  };
  "advice.gc-off": { pid: number; count0?: number };
  /** `launched`: under `run`, where the agent was offered at the process's start and did not load. */
  "advice.no-agent": { pid: number; why: string; level: number; launched?: boolean };
  "advice.leak": LeakAdviceFacts;
  /** Appended to a process's leak advice only where the agent saw torch imported. */
  "advice.leak-torch": Record<string, never>;
  "advice.cgroup-artefact": Omit<ArtefactFacts, "cache" | "processesMetric"> & {
    /** Page cache growth, when memory.stat reports it; the processes' mapped files' growth; dirty pages at the end. */
    cache: number | undefined;
    mapped: number | undefined;
    dirty: number | undefined;
    treeMetric: MetricName;
  };
  "advice.plateau": { growth: number; level: number; levelFrom: number | undefined };
  "advice.stable": {
    subject: Subject["type"];
    metric: MetricName;
    growth: number;
    seconds: number;
    noise: number | undefined;
    /** The trend test's p-value: under 0.01, a real trend that stayed under the floor. */
    p: number;
    /** The growth floor at the level it started from (growth-floor.ts). */
    floor: number;
    /** Bytes of `growth` that were memleak's own agent arriving, taken out before judging (own-footprint.ts). */
    own?: number;
    confidence: number;
  };
  "advice.cow-tree": { subject: "tree" | "cgroup"; growth: number; copiers: number; copied: number };
  "advice.gpu": GpuFacts & {
    variant:
      | "leak"
      | "leak-sites"
      | "retention"
      | "reserve-grows"
      | "fragmentation"
      | "driver-leak"
      | "outside"
      | "oom-fragmented";
    held?: number;
    split?: number | undefined;
  };
  /** signals/holder.ts: what holds the growing container, as leak.md's holder sections say it. */
  "advice.holder": {
    variant: HolderVariant;
    path: string | undefined;
    container: string;
    length: number;
    /** The length is a floor: the graph's nodes were counted up to the agent's bound. */
    lengthCapped?: true;
    itemsPerSecond?: number | undefined;
    why: string | undefined;
    /** The container as the program's code writes it (`background_tasks`), where its chain can be spelled. */
    heldAs?: string | undefined;
    /** holder-cuda: the device its items keep tensors on, the bytes each keeps there, and the device's growth. */
    device?: string;
    deviceBytesPerItem?: number | undefined;
    rate?: Rate | undefined;
  };
}

/** The process and device a GPU sentence is about. */
export interface GpuFacts extends ProcessFacts {
  /** "cuda:0", as the process numbers its devices (torch), or the driver's index (driver). */
  device: string;
  source: "torch" | "driver";
}

/** What the caching allocator holds beyond live tensors at the end (gpu-state.ts), and why it is more than slack. */
export interface GpuHeldFacts {
  allocated: number;
  reserved: number;
  held: number;
  split: number | undefined;
  /** Allocated's highest level over the watch: its readings', or the allocator's own peak (why "peak"). */
  highest: number;
  why: "fell" | "peak" | "reserve-grows" | "reserve-outgrows" | "retries";
  /** Over the window, for "reserve-outgrows": how much the reserve grew, and allocated. */
  reserveGrowth?: number;
  allocatedGrowth?: number;
  retries: number | undefined;
  ooms: number | undefined;
}

/** Whether the reserve is held because it keeps growing (requests larger than any cached block): advice and wording. */
export const heldForGrowingRequests = (why: GpuHeldFacts["why"]) =>
  why === "reserve-grows" || why === "reserve-outgrows";

/** The process a sentence is about. */
export interface ProcessFacts {
  pid: number;
  /** As the subject shows it (safe text, shortened). */
  command: string;
}

export interface LeakFacts {
  metric: MetricName;
  start: number;
  end: number;
  rate: Rate;
  peak: number;
  seconds: number;
  /** Growth seen in the lows only (stats/envelope.ts). */
  swings: boolean;
  /** Called by the early test (stats/sequential.ts). */
  early: boolean;
  /** The layer that grew (layer.ts), when one is named. */
  layer: string | undefined;
  /** What holds the growing container (signals/holder.ts), when the agent found it. */
  holder?: string;
}

/** What the older generations' collections freed in the window (signals/gc-backlog.ts). */
export interface GcFreedFacts {
  olderFreed: number;
  releases: number;
  largestRelease: number;
}

/** Growth that may be garbage waiting for a full collection, and how far off the next one is. */
export interface GcWaitingFacts extends GcFreedFacts {
  growth: number;
  /** Generation-1 runs until a full collection is due. */
  dueIn: number;
}

/** The cgroup's usage as judged (memleak's agents taken out, when they were). */
export interface CgroupUsageFacts {
  start: number;
  end: number;
  agentsTakenOut: boolean;
}

/** Cgroup growth that page cache or kernel memory explains, and what the processes did meanwhile. */
export interface ArtefactFacts {
  variant: "kernel" | "mapped-file" | "page-cache";
  usage: number;
  processes: number | undefined;
  /** What the processes' growth was measured in (the tree's metric), when they were measured. */
  processesMetric: MetricName | undefined;
  kernel: number | undefined;
  cache: number;
  /** The mapped files, as the evidence lists them (signals/mapped.ts), for a mapped-file artefact. */
  files: string | undefined;
  wsStart: number | undefined;
  wsEnd: number | undefined;
}

/** What leak.md's sections fill in: the rate, and the process or the tree's process count as the variant needs. */
export type LeakAdviceFacts =
  | {
      /** worker-held: a worker whose holder the agent found (signals/holder.ts): no search left to advise. */
      variant: "process" | "process-traced" | "worker" | "worker-traced" | "worker-held";
      rate: Rate;
      pid: number;
      ppid: number;
      command: string;
      /** Whether memleak launched the command (run, pytest) or watched it: how to trace it again (classify.ts). */
      launched?: boolean;
    }
  | { variant: "tree" | "tree-spread"; rate: Rate; processesStart: number; processesEnd: number }
  | { variant: "cgroup" | "cgroup-shmem"; rate: Rate }
  /** A tree's or cgroup's growth that processes' own growth explains (classify.ts attributeLeaks): their findings say why. */
  | {
      variant: "attributed";
      rate: Rate;
      subject: "tree" | "cgroup";
      pids: string;
      /** What the leaking processes grew against the growth, where short of it (reconcile.attributed's part). */
      part?: LeakPart;
    }
  /** A cgroup's growth mostly outside the watched tree (classify.ts markOutside): the other processes to watch. */
  | { variant: "outside"; rate: Rate; others: number[]; tree: number };

/** The part of a tree's or cgroup's growth its leaking processes grew (classify.ts attributeLeaks), in bytes. */
export interface LeakPart {
  grown: number;
  growth: number;
}

export type PhraseName = keyof PhraseFacts;

/** One sentence to be worded: its name and its facts. */
export type Phrase = { [K in PhraseName]: { say: K; facts: PhraseFacts[K] } }[PhraseName];

/** A phrase, typed by its name. */
export const phrase = <K extends PhraseName>(say: K, facts: PhraseFacts[K]): Phrase => ({ say, facts }) as Phrase;

/**
 * Anon that rose mostly by freed memory malloc keeps (big temporaries), while the live heap rises steadily under it
 * (signals/kept-temporaries.ts).
 */
export interface KeptTemporaries {
  /** Anon's rise, and how much of it is the growth of malloc's free bytes. */
  anonGrowth: number;
  freedKept: number;
  /** The live heap's levels and rate over the judged window. */
  liveStart: number;
  liveEnd: number;
  rate: Rate;
  seconds: number;
  /** The growth floor at the live heap's level (2 MiB, or 2% of it): what its rise must pass to be a leak. */
  floor: number;
}

/** Anon that grows while the live heap does not: the allocators settling (signals/live-heap.ts allocatorSettling). */
export interface Settling {
  /** Growth of resident anon memory over the window. */
  growth: number;
  /** …and of the live heap's lows (10th percentile, last third against first third). */
  liveGrowth: number;
  /** The live heap's 90th − 10th percentile over the window. */
  swing: number;
  /**
   * How much the memory malloc keeps free grew over the window, where that (not the swing) is what covers anon's growth:
   * the program frees between readings what it used within them, so the swing stays small while malloc keeps the holes.
   */
  freedKept?: number;
}
