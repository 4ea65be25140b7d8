/**
 * The agent's GPU readings (src/agent/python/memleak_readings.py `_cuda_stats`), run in a real interpreter against a
 * STAND-IN torch.cuda (test/helpers/stand-in-torch: NOT PyTorch; the real one on a GPU made fixtures/gpu/recordings,
 * judged in test/unit/analysis/gpu-recordings.test.ts). What is
 * under test is the agent: which calls it makes (never one that initialises CUDA), which devices it reports, and
 * that what it sends is what memleak's parser (src/agent/messages.ts) keeps.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { parseAgentMessage } from "../../../src/agent/messages.js";
import { REPO } from "../../helpers/fixtures.js";

const AGENT_DIR = `${REPO}src/agent/python`;
const STAND_IN = `${REPO}test/helpers/stand-in-torch`;

interface Read {
  gpu: Record<string, number> | null;
  torch: Record<string, number | string> | null;
  calls: string[];
}

/** `setup` runs after `import torch` (the stand-in) and before the agent reads. */
function read(setup: string, importTorch = true): Read {
  const code = `
import json, sys
sys.path.insert(0, ${JSON.stringify(STAND_IN)})
sys.path.insert(0, ${JSON.stringify(AGENT_DIR)})
import memleak_agent as agent
${importTorch ? "import torch\ncuda = torch.cuda" : ""}
${setup}
gpu = agent.readings._cuda_stats()
tstats = agent.readings._torch_stats()
print(json.dumps({"gpu": gpu, "torch": tstats, "calls": sys.modules["torch"].cuda.calls if "torch" in sys.modules else []}))`;
  return JSON.parse(
    execFileSync("python3", ["-c", code], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }),
  ) as Read;
}

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

describe("the agent's CUDA readings (stand-in torch.cuda)", () => {
  it("reads nothing, and asks nothing but is_initialized(), while the program has not initialised CUDA", () => {
    const r = read(`cuda.devices[0] = {"allocated": ${GiB}, "reserved": ${2 * GiB}}`);
    expect(r.gpu).toBeNull();
    // is_available() and device_count() ask the driver: on a real machine they would load it into the program.
    expect(r.calls.filter((c) => c !== "is_initialized")).toEqual([]);
    expect(r.torch).not.toHaveProperty("cudaAllocated");
  });

  it("reads nothing without torch imported, and does not import it", () => {
    const r = read(`assert "torch" not in sys.modules`, false);
    expect(r.gpu).toBeNull();
    expect(r.torch).toBeNull();
  });

  it("reads allocated and its peak, reserved, active, inactive split and the allocator's counters of every device used", () => {
    const r = read(`cuda.initialized = True
cuda.devices[0] = {"allocated": ${GiB}, "allocated_peak": ${3 * GiB}, "reserved": ${3 * GiB}, "active": ${GiB + MiB}, "inactive_split": ${GiB}, "alloc_retries": 2, "ooms": 1}
cuda.devices[1] = {"allocated": 0, "reserved": 0}
cuda.devices[2] = {"allocated": ${5 * MiB}, "reserved": ${20 * MiB}}`);
    expect(r.gpu).toEqual({
      cuda0Allocated: GiB,
      cuda0AllocatedPeak: 3 * GiB,
      cuda0Reserved: 3 * GiB,
      cuda0Active: GiB + MiB,
      cuda0InactiveSplit: GiB,
      cuda0AllocRetries: 2,
      cuda0Ooms: 1,
      // device 1's allocator never reserved a byte: the program does not use it
      cuda2Allocated: 5 * MiB,
      cuda2AllocatedPeak: 5 * MiB,
      cuda2Reserved: 20 * MiB,
      cuda2Active: 5 * MiB,
      cuda2InactiveSplit: 0,
      cuda2AllocRetries: 0,
      cuda2Ooms: 0,
    });
    expect(r.calls.some((c) => c.startsWith("unexpected:"))).toBe(false);
  });

  it("keeps a device whose allocator has emptied its cache since (reserved now 0, its peak not)", () => {
    const r = read(`cuda.initialized = True
cuda.devices[0] = {"allocated": 0, "reserved": 0, "reserved_peak": ${GiB}}`);
    expect(r.gpu).toMatchObject({ cuda0Allocated: 0, cuda0Reserved: 0 });
  });

  it("sends nothing for a process with CUDA up whose allocator has used no device", () => {
    const r = read(`cuda.initialized = True
cuda.devices[0] = {"allocated": 0, "reserved": 0}`);
    expect(r.gpu).toBeNull();
  });

  it("survives a torch.cuda that raises: no readings, no exception in the program", () => {
    const r = read(`cuda.initialized = True
cuda.devices[0] = {"allocated": 1, "reserved": 2}
def broken(device=None):
    raise RuntimeError("CUDA error: an illegal memory access was encountered")
cuda.memory_stats = broken`);
    expect(r.gpu).toBeNull();
  });

  it("what the agent sends for 16 devices is what memleak's parser keeps, every field of every device", () => {
    const r = read(`cuda.initialized = True
for i in range(17):
    cuda.devices[i] = {"allocated": (i + 1) * ${MiB}, "reserved": (i + 2) * ${MiB}}`);
    expect(Object.keys(r.gpu!)).toHaveLength(16 * 7);
    const parsed = parseAgentMessage(JSON.stringify({ type: "report", pid: 7, t: 1, gpu: r.gpu }));
    expect(parsed?.type === "report" && parsed.data.gpu).toEqual(r.gpu);
  });

  it("against the real PyTorch (Debian's, a CPU build): every call the agent makes exists, and nothing initialises CUDA", () => {
    // The stand-in's names are PyTorch's: were one renamed, the agent would read nothing on a real GPU, silently.
    const code = `
import json, sys
sys.path.insert(0, ${JSON.stringify(AGENT_DIR)})
import memleak_agent as agent
import torch
names = [n for n in ("is_initialized", "is_available", "device_count", "memory_stats", "memory_allocated", "memory_reserved", "max_memory_allocated", "max_memory_reserved") if not callable(getattr(torch.cuda, n, None))]
gpu = agent.readings._cuda_stats()
t = agent.readings._torch_stats()
print(json.dumps({"missing": names, "gpu": gpu, "cuda": [k for k in t if k.startswith("cuda")], "initialized": torch.cuda.is_initialized()}))`;
    const r = JSON.parse(
      execFileSync("/usr/bin/python3", ["-c", code], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }),
    ) as Record<string, unknown>;
    expect(r).toEqual({ missing: [], gpu: null, cuda: [], initialized: false });
  });

  it("against the real PyTorch 1.13 (Debian's): the GPU sites room loads without the out-of-memory observer (2.0+), and its history window is refused with why, CUDA never initialised", () => {
    const code = `
import json, sys
sys.path.insert(0, ${JSON.stringify(AGENT_DIR)})
import memleak_agent as agent
import torch
sent = []
agent.lifecycle._channel._send = sent.append
room = agent.lifecycle._sibling_module("memleak_gpu_sites").GpuSites(agent.lifecycle, agent.census._own_path)
room.start(0.0)
print(json.dumps({"version": torch.__version__, "observer": hasattr(torch._C, "_cuda_attach_out_of_memory_observer"), "sent": sent, "done": room.done, "initialized": torch.cuda.is_initialized()}))`;
    const r = JSON.parse(
      execFileSync("/usr/bin/python3", ["-c", code], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }),
    ) as { version: string; observer: boolean; sent: Record<string, unknown>[]; done: boolean; initialized: boolean };
    expect(r.version).toMatch(/^1\.13/);
    expect(r).toMatchObject({ observer: false, done: true, initialized: false });
    expect(r.sent).toEqual([
      expect.objectContaining({
        type: "gpu-sites",
        why: "torch.cuda.memory._record_memory_history refused: TypeError: _record_memory_history() got an unexpected keyword argument 'context'",
      }),
    ]);
  });
});
