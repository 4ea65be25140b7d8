/**
 * Graphs one tensor keeps growing (src/agent/python/memleak_graphs.py), in Debian's PyTorch: the nodes reachable from
 * tensors' grad_fn counted once each and within their bounds; the global or running function's local holding the
 * largest graph named as the holder search names one; and the census suspecting such a graph only once its nodes grew
 * at two walks in a row, then sending one holder message.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { REPO } from "../../helpers/fixtures.js";

const AGENT_DIR = `${REPO}src/agent/python`;
const TORCH = existsSync("/usr/lib/python3/dist-packages/torch");

/** Runs `body` (a script of its own: its globals are __main__'s) with the module imported as G; prints `out`. */
function run(body: string): Record<string, unknown> {
  const program = `
import json, sys
sys.path.insert(0, ${JSON.stringify(AGENT_DIR)})
import memleak_graphs as G
import torch
out = {}
${body}
print(json.dumps(out))
`;
  return JSON.parse(execFileSync("/usr/bin/python3", ["-c", program], { encoding: "utf8" })) as Record<string, unknown>;
}

/** The census's agent with its messages kept in `sent`, and a running total `grow(steps)` chains 3 nodes a step onto. */
const CHAIN = `
import memleak_agent as A
sent = []
A.channel._send = sent.append
w = torch.ones(4, requires_grad=True)
total = 0.0
def grow(steps):
    global total
    for _ in range(steps):
        total = total + (w * 2).sum()
`;

describe.runIf(TORCH)("Debian's PyTorch", () => {
  it("counts a running total's chain once per node, shared nodes once, and stops at its bound", () => {
    const out = run(`
w = torch.ones(4, requires_grad=True)
total = 0.0
for _ in range(300):
    total = total + (w * 2).sum()   # AddBackward0 + SumBackward0 + MulBackward0 a step; w's AccumulateGrad shared
out["chain"] = G.count_nodes([total])
out["twice"] = G.count_nodes([total, total])
out["bounded"] = G.count_nodes([total], limit=100)
out["none"] = G.count_nodes([torch.ones(3)])
`);
    // 3 nodes a step (Add, Sum, Mul: 900) and w's AccumulateGrad, shared by every step.
    expect(out.chain).toEqual([901, false]);
    expect(out.twice).toEqual([901, false]);
    expect(out.bounded).toEqual([100, true]);
    expect(out.none).toEqual([0, false]);
  });

  it("names the global holding the largest graph once, under the name the program knows its module by", () => {
    const out = run(`
import multiprocessing  # as torch's own imports may: __main__ is in sys.modules twice, the second as __mp_main__
sys.modules["__mp_main__"] = sys.modules["__main__"]
w = torch.ones(4, requires_grad=True)
small = (w * 2).sum()
h = torch.zeros(4)
for _ in range(50):
    h = torch.tanh(h + w)
import memleak_holder as H
own = lambda m: getattr(m, "__name__", "") in ("__main__", "__mp_main__")
out["held"] = G.held_graph(torch.Tensor, own, lambda m: False, lambda p: True, None, H, None, 101)
`);
    expect(out.held).toMatchObject({
      found: true,
      path: "__main__.h",
      root: "module global",
      hops: [{ kind: "module global", name: "__main__.h" }],
      nodes: 101, // 50 x (Tanh, Add) + w's AccumulateGrad
      objects: 2, // small and h: one look each, __mp_main__'s the same dict
    });
  });

  it("names a running function's local, and says so when nothing of the program's holds a graph", () => {
    const out = run(`
import memleak_holder as H, _thread
def train():
    w = torch.ones(4, requires_grad=True)
    running = 0.0
    for _ in range(20):
        running = running + (w * 3).sum()
    out["held"] = G.held_graph(torch.Tensor, lambda m: False, lambda m: False, lambda p: True, None, H, _thread.get_ident(), 61)
    # The step's own loss, while the census counted the graphs of a thousand kept ones: not what holds them.
    out["small"] = G.held_graph(torch.Tensor, lambda m: False, lambda m: False, lambda p: True, None, H, None, 3000)
train()
out["none"] = G.held_graph(torch.Tensor, lambda m: False, lambda m: False, lambda p: True, None, H, None, 3000)
`);
    expect(out.held).toMatchObject({
      found: true,
      root: "thread frame",
      path: 'thread "MainThread": train() local running',
    });
    expect(out.small).toMatchObject({
      found: false,
      why: `the largest graph a global or a running function's local holds (thread "MainThread": train() local running, 61 nodes) is under half of the 3000 counted`,
    });
    expect(out.none).toMatchObject({
      found: false,
      why: "no module global or running function of the program holds a tensor with a graph",
    });
  });

  it("graphs that grow because a list gains kept losses: the list is the holder, no graph chain suspected", () => {
    const out = run(`
import memleak_agent as A
sent = []
A.channel._send = sent.append
w = torch.ones(64, requires_grad=True)
losses = []
def walk():
    A.census._census_stats(0.5, force=True)
    return A.census._state.cached.get("graphNodes")
out["nodes"] = []
for _ in range(4):
    for _ in range(200):
        loss = (w * 2).sum()
        loss.backward()
        losses.append(loss)
    out["nodes"].append(walk())
out["holders"] = [{k: m[k] for k in ("container", "found", "path")} for m in sent if m.get("type") == "holder"]
`);
    // The graphs' nodes grew at every walk (two a loss), and the list of Tensor was the one searched for.
    expect(out.nodes).toEqual([401, 801, 1201, 1601]);
    expect(out.holders).toEqual([{ container: "list of Tensor", found: true, path: "__main__.losses" }]);
  });

  it("a graph the census's first walk finds has grown from nothing: named at the second walk if it grew again", () => {
    const out = run(`${CHAIN}grow(300)
A.census._census_stats(0.5, force=True)
grow(100)
A.census._census_stats(0.5, force=True)
out["holders"] = [m["length"] for m in sent if m.get("type") == "holder"]
`);
    expect(out.holders).toEqual([1201]);
  });

  it("the census suspects a graph growing at two walks in a row, not at one, and sends one holder message", () => {
    const out = run(`${CHAIN}def walk():
    A.census._census_stats(0.5, force=True)
    return A.census._state.cached.get("graphNodes")
out["nodes"] = [walk()]
grow(100); out["nodes"].append(walk())
out["afterOneRise"] = len(sent)
grow(100); out["nodes"].append(walk())
grow(100); out["nodes"].append(walk())
out["holders"] = [{k: m[k] for k in ("container", "length", "found", "path")} for m in sent if m.get("type") == "holder"]
`);
    // No tensor keeps a graph at the first walk: no count.
    expect(out.nodes).toEqual([null, 301, 601, 901]);
    expect(out.afterOneRise).toBe(0);
    // Sent at the second rise (601 nodes), not again at the third: the graphs kept growing, already searched.
    expect(out.holders).toEqual([
      { container: "autograd graph of a Tensor", length: 601, found: true, path: "__main__.total" },
    ]);
  });
});
