/**
 * The agent's GPU sites room (src/agent/python/memleak_gpu_sites.py), run in a real interpreter against the STAND-IN
 * torch (test/helpers/stand-in-torch: NOT PyTorch; its tensors hold no memory, its allocator history keeps the Python
 * stack of each block made while recording, as PyTorch 2.1's does). The room is driven beat by beat with the times
 * the test gives: when it starts recording (a floor that rose RISES times in a row), what it sends (the program's
 * lines, largest first, not PyTorch's own frames), what the window cost, and what it says when PyTorch refuses.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { parseAgentMessage } from "../../../src/agent/messages.js";
import { REPO } from "../../helpers/fixtures.js";

const AGENT_DIR = `${REPO}src/agent/python`;
const STAND_IN = `${REPO}test/helpers/stand-in-torch`;

interface Run {
  sent: Record<string, unknown>[];
  started: (number | null)[];
  calls: string[];
}

/** `body` drives `room` (a GpuSites) with `beat(t)`; the messages it sent, when it was recording, torch's calls. */
function run(body: string, env: Record<string, string> = {}): Run {
  const code = `
import json, os, sys
sys.path.insert(0, ${JSON.stringify(STAND_IN)})
sys.path.insert(0, ${JSON.stringify(AGENT_DIR)})
import torch
import memleak_agent as A
sent = []
A.lifecycle._channel._send = sent.append
room = A.lifecycle._sibling_module("memleak_gpu_sites").GpuSites(A.lifecycle, A.census._own_path)
started = []
def beat(t):
    room.beat(A.readings._cuda_stats() or {}, t)
    started.append(room.started)
kept = []
t = 0.0
def leak(beats, until_recording=False):
    """A beat a second, each after a batch's 4 MiB of logits kept."""
    global t
    for _ in range(beats):
        if until_recording and room.started is not None:
            return
        kept.append(torch.randn(64, 16384, device="cuda"))
        beat(t)
        t += 1.0
${body}
print(json.dumps({"sent": sent, "started": started, "calls": [c for c in torch.cuda.calls if c.startswith("memory.")]}))`;
  return JSON.parse(
    execFileSync("python3", ["-c", code], {
      encoding: "utf8",
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    }),
  ) as Run;
}

const MiB = 2 ** 20;

describe("the agent's GPU sites room (stand-in torch)", () => {
  it("a floor that rose at two periods in a row: the history recorded, then the program's lines of what stayed", () => {
    const r = run(`
kept = []
def keep_logits():  # the program's line
    kept.append(torch.randn(64, 16384, device="cuda"))
def scratch():  # a step's temporary, freed before the window ends
    return torch.randn(1024, device="cuda")
t = 0.0
while room.started is None and t < 60:  # one beat a second, five a period
    keep_logits()
    scratch()
    beat(t)
    t += 1.0
while not room.done:  # the window (10 s): the logits alone
    keep_logits()
    beat(t)
    t += 1.0
`);
    // Periods of 5 s from the first reading at t=0: floors at t=5, 10, 15 rose twice by 20 MiB; recording from t=15.
    expect(r.started.findIndex((s) => s !== null)).toBe(15);
    expect(r.calls).toEqual([
      "memory._record_memory_history(state, state, python)",
      "memory._snapshot",
      "memory._record_memory_history(None, all, all)",
    ]);
    expect(r.sent).toHaveLength(1);
    const m = parseAgentMessage(JSON.stringify({ ...r.sent[0], pid: 42 }));
    expect(m).toMatchObject({ type: "gpu-sites", seconds: 10 });
    const [device] = (m as unknown as { devices: Record<string, unknown>[] }).devices;
    // Ten logits made in the window, each kept; the scratch tensors are gone by its end; PyTorch's frames are skipped.
    expect(device).toMatchObject({
      device: "cuda:0",
      blocks: 10,
      bytes: 40 * MiB,
      sites: [{ file: "<string>", name: "keep_logits", size: 40 * MiB, count: 10 }],
    });
    const site = (device!.sites as Record<string, unknown>[])[0]!;
    expect(site.via).toMatch(/stand-in-torch\/torch\/tensor\.py:\d+ __init__$/);
    // Two requests a second before the window (logits and scratch), one during it.
    expect(device).toMatchObject({ requestsPerSecondBefore: 2, requestsPerSecondDuring: 1 });
  });

  it("a training loop's steady floor, swinging with its steps: never recorded", () => {
    const r = run(`
model = [torch.randn(1024, 1024, device="cuda") for _ in range(4)]
t = 0.0
for step in range(60):
    activations = [torch.randn(256, 1024, device="cuda") for _ in range(step % 7)]
    beat(t)
    del activations
    t += 1.0
`);
    expect(r.started.every((s) => s === null)).toBe(true);
    expect(r.sent).toEqual([]);
    expect(r.calls).toEqual([]);
  });

  it("PyTorch without the 2.1 history API: one message saying why, nothing recorded, never asked again", () => {
    const r = run(`
torch.cuda.memory.refuse = TypeError("_record_memory_history() got an unexpected keyword argument 'context'")
leak(40)
`);
    expect(r.sent).toHaveLength(1);
    expect(parseAgentMessage(JSON.stringify({ ...r.sent[0], pid: 42 }))).toMatchObject({
      type: "gpu-sites",
      devices: [],
      why: "torch.cuda.memory._record_memory_history refused: TypeError: _record_memory_history() got an unexpected keyword argument 'context'",
    });
    expect(r.calls).toEqual(["memory._record_memory_history(state, state, python)"]);
  });

  it("a program that ends during the window: what was recorded so far is sent at its exit", () => {
    const r = run(`
leak(60, until_recording=True)
leak(3)
room.at_exit(t)
room.at_exit(t + 1)  # once
`);
    expect(r.sent).toHaveLength(1);
    expect(r.sent[0]).toMatchObject({ seconds: 4, devices: [{ device: "cuda:0", blocks: 3 }] });
  });

  it("at a CUDA out-of-memory error: the request, what was free and in what largest block, the allocator's numbers", () => {
    const r = run(`
torch.cuda.capacity = 40 * 1024 * 1024
torch.cuda.free_blocks = [3 * 1024 * 1024, 5 * 1024 * 1024]
leak(1)  # CUDA up: the room attaches its observer
try:
    leak(20)
except torch.cuda.OutOfMemoryError:
    pass
for _ in range(6):  # a program that catches it and tries again: at most MAX_OOMS messages
    try:
        torch.randn(64, 16384, device="cuda")
    except torch.cuda.OutOfMemoryError:
        pass
`);
    const ooms = r.sent.filter((m) => m.type === "gpu-oom");
    expect(ooms).toHaveLength(4);
    expect(parseAgentMessage(JSON.stringify({ ...ooms[0], pid: 42 }))).toEqual({
      type: "gpu-oom",
      pid: 42,
      t: expect.any(Number),
      device: "cuda:0",
      request: 4 * MiB,
      deviceFree: 0,
      allocated: 40 * MiB,
      reserved: 40 * MiB,
      inactiveSplit: 0,
      freeInReserve: 8 * MiB,
      largestFreeBlock: 5 * MiB,
    });
  });

  it("MEMLEAK_GPU_HISTORY_SECONDS sets the window", () => {
    const r = run("leak(30)", { MEMLEAK_GPU_HISTORY_SECONDS: "3" });
    expect(r.sent).toHaveLength(1);
    expect(r.sent[0]).toMatchObject({ seconds: 3 });
  });
});
