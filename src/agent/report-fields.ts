/**
 * Every field the in-process agent reports (memleak_lifecycle.py `_report_locked`), declared once: its name as the series
 * keep it (the report flattened one level: "malloc.inUse"), its unit, what it means, and which function of the agent
 * writes it. The series type their agent columns by these names (series.ts), so a rule that reads a field nobody
 * declared does not compile; test/unit/agent/report-fields.test.ts reads the agent's Python (its syntax tree) and fails
 * where the agent writes a field not declared here, or where one declared here is written nowhere.
 *
 * The GPU's fields are declared per device in sampling/gpu-fields.ts (GPU_FIELDS, "gpu.cuda0Allocated").
 */
import type { GpuField } from "../sampling/gpu-fields.js";

export type FieldUnit = "bytes" | "count" | "ms" | "flag" | "text";

export interface FieldDeclaration {
  unit: FieldUnit;
  meaning: string;
  /**
   * The agent's functions that write it, comma-separated (the test reads those functions' keys), or "trim message": memleak's channel
   * folds the agent's `trim` message into the sample (agent/channel.ts snapshot) under "trim.".
   */
  writer: string;
}

export const AGENT_FIELDS = {
  threads: { unit: "count", meaning: "the process's OS threads (/proc/self/task)", writer: "_report_locked" },

  "py.allocatedBlocks": {
    unit: "count",
    meaning: "sys.getallocatedblocks(): pymalloc's and the object allocator's live blocks",
    writer: "_python_stats",
  },
  "py.pythonThreads": {
    unit: "count",
    meaning: "threads threading knows, and the agent's own (threading.active_count() as it was)",
    writer: "_python_stats",
  },
  "py.gcCount0": {
    unit: "count",
    meaning: "gc.get_count()[0]: allocations since generation 0's last collection",
    writer: "_python_stats",
  },
  "py.gcCount1": {
    unit: "count",
    meaning: "gc.get_count()[1]: generation-0 collections since generation 1's",
    writer: "_python_stats",
  },
  "py.gcCount2": {
    unit: "count",
    meaning: "gc.get_count()[2]: generation-1 collections since the last full one (a full one runs past gcThreshold2)",
    writer: "_python_stats",
  },
  "py.gcCollections": {
    unit: "count",
    meaning: "collections of every generation since the start",
    writer: "_python_stats",
  },
  "py.gcRuns2": {
    unit: "count",
    meaning: "full (generation 2) collections since the start; CPython's generational collector only (3.8-3.13)",
    writer: "_python_stats",
  },
  "py.gcCollected1": {
    unit: "count",
    meaning: "objects generation 1's collections freed since the start",
    writer: "_python_stats",
  },
  "py.gcCollected2": {
    unit: "count",
    meaning: "objects the full collections freed since the start",
    writer: "_python_stats",
  },
  "py.gcThreshold2": { unit: "count", meaning: "gc.get_threshold()[2]", writer: "_python_stats" },
  "py.modules": { unit: "count", meaning: "len(sys.modules): an import burst shows here", writer: "_python_stats" },
  "py.gcEnabled": {
    unit: "flag",
    meaning: "gc.isenabled(): 0 where the program turned the collector off (gc.disable())",
    writer: "_python_stats",
  },

  "malloc.inUse": {
    unit: "bytes",
    meaning: "mallinfo2 uordblks + hblkhd: bytes malloc has handed out (glibc only: absent under another allocator)",
    writer: "_malloc_stats",
  },
  "malloc.free": {
    unit: "bytes",
    meaning: "mallinfo2 fordblks: free bytes malloc keeps in its arenas",
    writer: "_malloc_stats",
  },
  "malloc.arena": {
    unit: "bytes",
    meaning: "mallinfo2 arena: bytes of the arenas (sbrk and mmapped heaps)",
    writer: "_malloc_stats",
  },
  "malloc.mmapped": {
    unit: "bytes",
    meaning: "mallinfo2 hblkhd: bytes of blocks mmapped on their own",
    writer: "_malloc_stats",
  },
  "malloc.allocator": {
    unit: "text",
    meaning: "the allocator mapped in the process: glibc, jemalloc, mimalloc, tcmalloc",
    writer: "_malloc_stats",
  },
  "malloc.arenas": { unit: "count", meaning: "glibc's arenas (main and threads')", writer: "_malloc_stats" },
  "malloc.note": {
    unit: "text",
    meaning: "why the malloc numbers do not see the memory (another allocator)",
    writer: "_malloc_stats",
  },
  "malloc.trims": {
    unit: "count",
    meaning: "malloc_trim calls the agent made under run --try trim: the proof the setting was in effect",
    writer: "_report_locked",
  },

  "torch.version": {
    unit: "text",
    meaning: "torch.__version__, where the program imported torch",
    writer: "_torch_stats",
  },
  "torch.threads": { unit: "count", meaning: "torch.get_num_threads()", writer: "_torch_stats" },
  "torch.interopThreads": { unit: "count", meaning: "torch.get_num_interop_threads()", writer: "_torch_stats" },
  "torch.cudaAllocated": {
    unit: "bytes",
    meaning: "torch.cuda.memory_allocated(), CUDA initialised",
    writer: "_torch_stats",
  },
  "torch.cudaReserved": { unit: "bytes", meaning: "torch.cuda.memory_reserved()", writer: "_torch_stats" },
  "torch.cudaMaxAllocated": { unit: "bytes", meaning: "torch.cuda.max_memory_allocated()", writer: "_torch_stats" },
  "torch.cudaMaxReserved": { unit: "bytes", meaning: "torch.cuda.max_memory_reserved()", writer: "_torch_stats" },

  "census.containerItems": {
    unit: "count",
    meaning: "items in the Python containers the walk reached (near the globals only where census.scope says so)",
    writer: "_census_walk",
  },
  "census.scope": {
    unit: "text",
    meaning:
      '"near globals" where the walk keeps to what the modules hold (a process sharing pages with forked relatives)',
    writer: "_census_walk",
  },
  "census.growing": {
    unit: "text",
    meaning: 'the container that gained most bytes, described ("list of bytes")',
    writer: "_census_walk",
  },
  "census.growingLen": { unit: "count", meaning: "its length", writer: "_census_walk" },
  "census.growingAdded": {
    unit: "count",
    meaning: "items it gained since the walks began following it",
    writer: "_census_walk",
  },
  "census.growingAddedBytes": {
    unit: "bytes",
    meaning: "those items times their sampled size",
    writer: "_census_walk",
  },
  "census.growingItemBytes": { unit: "bytes", meaning: "the sampled size of one of its items", writer: "_census_walk" },
  "census.growingRetainedBytes": {
    unit: "bytes",
    meaning: "what one of its items keeps alive (memleak_retained.py), or its own size where a look found no more",
    writer: "_census_walk",
  },
  "census.growingGraphs": {
    unit: "text",
    meaning: '"yes" where its items keep autograd graphs (torch loaded)',
    writer: "_census_walk",
  },
  "census.cpuTensors": {
    unit: "count",
    meaning: "live CPU tensors (a walk of the whole heap, torch loaded)",
    writer: "_census_walk",
  },
  "census.cpuTensorBytes": {
    unit: "bytes",
    meaning: "their storages' bytes, each storage once",
    writer: "_census_walk",
  },
  "census.graphTensors": {
    unit: "count",
    meaning: "tensors with a grad_fn: each keeps an autograd graph",
    writer: "_census_walk",
  },
  "census.graphNodes": { unit: "count", meaning: "nodes of those graphs (memleak_graphs.py)", writer: "_census_walk" },
  "census.graphNodesCapped": { unit: "flag", meaning: "the node count stopped at its bound", writer: "_census_walk" },
  "census.costMs": { unit: "ms", meaning: "the walk's own CPU time", writer: "_census_walk" },
  "census.skipped": {
    unit: "flag",
    meaning: "no walk this time (census.why says why)",
    writer: "_census_walk,_census_stats",
  },
  "census.why": { unit: "text", meaning: "why the walk was skipped", writer: "_census_walk,_census_stats" },

  "trim.anonBefore": {
    unit: "bytes",
    meaning: "anon before the agent's malloc_trim (its trim message)",
    writer: "trim message",
  },
  "trim.anonAfter": { unit: "bytes", meaning: "anon after it", writer: "trim message" },
} as const satisfies Record<string, FieldDeclaration>;

type Declared = typeof AGENT_FIELDS;

/** A declared field the agent sends as text ("malloc.allocator"): the series keep its last value (agentText). */
export type AgentTextField = { [K in keyof Declared]: Declared[K]["unit"] extends "text" ? K : never }[keyof Declared];

/** A GPU field of one device as a series names it ("gpu.cuda0Allocated"). */
export type AgentGpuField = `gpu.cuda${number}${GpuField}`;

/** A declared numeric field: a column of the series (agent). */
export type AgentNumberField = Exclude<keyof Declared, AgentTextField> | AgentGpuField;

/** The agent's numeric columns of one process, by field. */
export type AgentColumns<C> = Partial<Record<AgentNumberField, C>>;

/** The agent's text fields of one process, by field: the last value said. */
export type AgentTexts = Partial<Record<AgentTextField, string>>;

/** A field's place in a report as the agent sends it: "malloc.inUse" is report.malloc.inUse, "threads" report.threads. */
export function fieldPath(name: AgentNumberField | AgentTextField): [group: string | undefined, key: string] {
  const dot = name.indexOf(".");
  return dot < 0 ? [undefined, name] : [name.slice(0, dot), name.slice(dot + 1)];
}
