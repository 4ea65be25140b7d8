/**
 * What the in-process agent tells at the end of a run, as the analysis reads it: the allocation sites tracemalloc
 * found (--trace-python), and what malloc_trim gave back. The agent's messages are checked against these shapes
 * (agent/messages.ts); the analysis needs nothing else of the agent.
 */

export interface TraceSite {
  file: string;
  line: number;
  sizeDiff: number;
  countDiff: number;
  size: number;
}

export interface TraceResult {
  type: "trace";
  pid: number;
  t: number;
  sites: TraceSite[];
  traced: number;
  tracedPeak: number;
  /**
   * run --trace-python sends the sites during the run too (every 10 s or more): such a result is replaced by the next,
   * and the one sent as the process exits is final. A process that ends without it (os._exit, killed) leaves its
   * last periodic one.
   */
  interim?: boolean;
  /**
   * watch --trace-python: tracemalloc ran in the live program for a window, then was stopped. Its length, the
   * program's CPU share (cores) during it and just before it, and tracemalloc's own memory at its end.
   */
  window?: { seconds: number; cpuShare: number; cpuShareBefore: number; overheadBytes: number };
}

export interface TrimResult {
  type: "trim";
  pid: number;
  t: number;
  anonBefore: number;
  anonAfter: number;
}

/** One hop of a holder's reference chain: what kind of reference it is, and its name. */
export interface HolderHop {
  /** module global, class, class attribute, attribute, item, closure cell, default argument, lru_cache, thread frame… */
  kind: string;
  name: string;
}

/**
 * What holds the container the agent saw grow (memleak_holder.py): the chain of references from a root (a module
 * global, a class, a thread's running frame) to it, or why none was found within the search's bounds, and what the
 * search cost the program.
 */
export interface HolderResult {
  type: "holder";
  pid: number;
  t: number;
  /** The container, as the census describes it ("list of dict"), and its length when it was searched. */
  container: string;
  length: number;
  /** Items it gained a second between the two census walks that saw it grow. */
  itemsPerSecond?: number;
  /**
   * Where its newest items keep tensors off the host ("cuda:0", as PyTorch names a tensor's device) and the bytes each
   * keeps there: what ties it to a GPU's leak, which the host's readings never see (memleak_retained.py).
   */
  device?: string;
  deviceBytesPerItem?: number;
  /** The length is a floor: the agent's count of a graph's nodes stopped at its bound (memleak_graphs.py). */
  lengthCapped?: boolean;
  found: boolean;
  /** When found: the chain in one line (`app.handlers.EVENTS`), the root's kind, and each hop. */
  path?: string;
  root?: string;
  hops?: HolderHop[];
  /** A module global's or a class attribute's root: the file and line where its module assigns it (what GitHub annotates). */
  where?: { file: string; line: number };
  /** When not found: why (the bound that stopped it). */
  why?: string;
  /** The search: levels climbed, gc.get_referrers passes, objects met, wall time, longest single pause (GIL held). */
  levels: number;
  calls: number;
  objects: number;
  ms: number;
  longestMs: number;
}

/**
 * What the agent's GPU sites room (memleak_gpu_sites.py) found in one window of the caching allocator's history: per
 * device, the program's lines whose blocks were allocated in the window and still alive at its end, and the
 * program's allocation requests a second before the window and during it (what recording cost its steps). Or why no
 * window could be recorded.
 */
export interface GpuSitesResult {
  type: "gpu-sites";
  pid: number;
  t: number;
  /** How long the history was recorded. */
  seconds?: number;
  devices: GpuDeviceSites[];
  why?: string;
}

export interface GpuDeviceSites {
  /** "cuda:0", as the process numbers its devices. */
  device: string;
  sites: GpuSite[];
  /** Blocks allocated in the window and alive at its end, and their bytes, over every site (not only those sent). */
  blocks: number;
  bytes: number;
  requestsPerSecondBefore?: number;
  requestsPerSecondDuring?: number;
}

/**
 * What a process held on a device at a CUDA out-of-memory error (memleak_gpu_sites.py, PyTorch's out-of-memory
 * observer): the request that failed, what the driver said was free, the allocator's numbers, how much of its reserve
 * was free and in what largest block, and the program's lines of the blocks alive where a history window was recording.
 */
export interface GpuOomResult {
  type: "gpu-oom";
  pid: number;
  t: number;
  /** "cuda:0". */
  device: string;
  request: number;
  deviceFree: number;
  allocated?: number;
  reserved?: number;
  inactiveSplit?: number;
  freeInReserve: number;
  largestFreeBlock: number;
  sites?: GpuSite[];
}

export interface GpuSite {
  file: string;
  line: number;
  /** The function the line is in. */
  name: string;
  /** The innermost frame, where it is a library's and not this line ("…/torch/nn/modules/linear.py:114 forward"). */
  via?: string;
  size: number;
  count: number;
}

/**
 * A holder of a graph one tensor keeps growing (memleak_graphs.py), not of a growing container: a process may send both,
 * and each explains a different layer (signals/holder.ts), so they are kept apart.
 */
export const isGraphHolder = (h: { container: string }): boolean => /^autograd graph of a Tensor\b/.test(h.container);

/** One container of the parent's data, and how much of it a forked worker holds private copies of (memleak_cow.py). */
export interface CopiedObject {
  /** Where the program holds it: `__main__.SAMPLES`, `the DataLoader's dataset (TextDataset).samples`. */
  name: string;
  /** "list of str", "dict of tuple", "ndarray". */
  what: string;
  length: number;
  /** Its items' bytes (scaled up from a sample on big ones) and the resident pages of its own buffer. */
  bytes: number;
  /** Of its items' bytes, those on pages now private to the worker: copied as the worker reads them (reference counts). */
  itemsPrivate: number;
  /** Of those, the objects the garbage collector tracks and has not frozen: the collector's writes copy them too. */
  trackedPrivate: number;
  /** Private pages of its own buffer (a list's item array, an array's data): only writes change those. */
  storagePrivate: number;
  /** Read on a sample of its items (every k-th), scaled up. */
  sampled: boolean;
  /**
   * Most of its items are objects a larger container of the look holds too (`keys = list(TABLE)`): counted there, not
   * twice; this one's private part leaves them out.
   */
  sharedWith?: string;
}

/**
 * What memleak asked a forked worker's agent with its word "cow" (session/cow-ask.ts): the program's containers by the
 * bytes of theirs the worker now holds privately, and what the walk cost. `why` when it could not look.
 */
export interface CowResult {
  type: "cow";
  pid: number;
  t: number;
  objects: CopiedObject[];
  /** gc.get_freeze_count() in the worker: objects the program froze before forking. */
  frozen?: number;
  /** The worker's Private_Dirty when it looked, and what the walk itself made private (measured apart). */
  privateDirty?: number;
  walkBytes?: number;
  ms?: number;
  cpuMs?: number;
  why?: string;
  /**
   * When this process's first look began (epoch seconds; set by memleak as answers arrive, not by the agent): that look
   * loaded the look's module, whose pages are the look's own memory step (signals/own-footprint.ts).
   */
  firstT?: number;
}

/** The latest answer, remembering when the first began (CowResult.firstT). */
export function latestLook(had: CowResult | undefined, answer: CowResult): CowResult {
  return { ...answer, firstT: had ? (had.firstT ?? had.t) : answer.t };
}

/** What the agent reports once, at the end of a process's life. */
export interface AgentResults {
  traces: Map<number, TraceResult>;
  trims: Map<number, TrimResult>;
  /** What holds the container each process's agent saw grow (the latest search). */
  holders?: Map<number, HolderResult>;
  /** What holds the graph each process's agent saw one tensor keep growing (the latest look, memleak_graphs.py). */
  graphHolders?: Map<number, HolderResult>;
  /** Which of its parent's objects each forked worker had copied when memleak last asked (memleak_cow.py). */
  copied?: Map<number, CowResult>;
  /** Where each process's GPU leak was allocated: its window of the caching allocator's history (memleak_gpu_sites.py). */
  gpuSites?: Map<number, GpuSitesResult>;
  /** What each process held at its last CUDA out-of-memory error (memleak_gpu_sites.py's observer). */
  gpuOoms?: Map<number, GpuOomResult>;
}

/** The agent's results that a recording keeps as events (`agent-<type>`), for `analyze` to find again. */
export type AgentResultMessage = TraceResult | TrimResult | HolderResult | CowResult | GpuSitesResult | GpuOomResult;
