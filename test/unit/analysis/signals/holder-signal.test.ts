/**
 * signals/holder.ts on holder results built by hand: for which layers a holder is named (`holderFor`), the finding's
 * field with only the parts the search gave (`holderField`), and the advice `addHolder` puts first, with its variant
 * and the general advice it replaces — exact values. Through the whole engine: rules/holder.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { HolderResult } from "../../../../src/agent/agent-results.js";
import type { Context } from "../../../../src/analysis/context.js";
import type { JudgedFinding } from "../../../../src/analysis/judgement.js";
import { addBystanderHolder, addHolder, holderField, holderFor } from "../../../../src/analysis/signals/holder.js";
import { say } from "../../../../src/report/wording/index.js";

const found = (o: Partial<HolderResult> = {}): HolderResult => ({
  type: "holder",
  pid: 7,
  t: 100,
  container: "list of bytes",
  length: 500,
  found: true,
  path: "app.EVENTS",
  root: "module global",
  hops: [{ kind: "module global", name: "app.EVENTS" }],
  levels: 2,
  calls: 3,
  objects: 40,
  ms: 1.5,
  longestMs: 0.7,
  ...o,
});
const ctxWith = (h?: HolderResult): Context => ({
  from: 0,
  warmup: 0,
  duration: 100,
  agentSeen: true,
  agentResults: { traces: new Map(), trims: new Map(), ...(h && { holders: new Map([[h.pid, h]]) }) },
});

describe("holderFor: every holder is kept; it explains leaks of Python objects, and of tensors when it holds tensors", () => {
  it.each([
    ["Python objects", "list of bytes", true],
    ["Python objects (tracemalloc sees the growth)", "list of bytes", true],
    ["small Python objects (pymalloc)", "dict of str", true],
    ["native heap (malloc)", "list of bytes", false],
    ["PyTorch CPU tensors", "list of bytes", false],
    ["PyTorch CPU tensors", "list of Tensor", true],
    ["PyTorch autograd graphs", "dict of Parameter", true],
    ["PyTorch autograd graphs", "list of Tensors", false],
    // A graph one tensor keeps growing (memleak_graphs.py): the graphs' holder, not a Python container's.
    ["PyTorch autograd graphs", "autograd graph of a Tensor", true],
    ["Python objects", "autograd graph of a Tensor", true],
    ["native heap (malloc)", "autograd graph of a Tensor", false],
  ])("%s, %s → %s", (layer, container, named) => {
    const h = found({ container });
    expect(holderFor(7, layer, ctxWith(h))).toEqual({ holder: h, explains: named });
  });

  it("a container's holder and a graph's: the list of tensors found wins in a tensor layer, else the graph's; the container's elsewhere", () => {
    const graph = found({ container: "autograd graph of a Tensor", path: "__main__.running_loss", length: 3000 });
    const both = (container: HolderResult): Context => ({
      ...ctxWith(container),
      agentResults: { ...ctxWith(container).agentResults!, graphHolders: new Map([[7, graph]]) },
    });
    const losses = found({ container: "list of Tensor", path: "__main__.losses" });
    const strings = found({ container: "list of str", path: "__main__.names" });
    expect(holderFor(7, "PyTorch autograd graphs", both(losses))).toEqual({ holder: losses, explains: true });
    expect(holderFor(7, "PyTorch autograd graphs", both(strings))).toEqual({ holder: graph, explains: true });
    expect(holderFor(7, "PyTorch autograd graphs", both(found({ ...losses, found: false })))).toEqual({
      holder: graph,
      explains: true,
    });
    expect(holderFor(7, "Python objects", both(strings))).toEqual({ holder: strings, explains: true });
    const graphOnly: Context = {
      ...ctxWith(),
      agentResults: { traces: new Map(), trims: new Map(), graphHolders: new Map([[7, graph]]) },
    };
    expect(holderFor(7, "native heap (malloc)", graphOnly)).toEqual({ holder: graph, explains: false });
  });

  it("none without a search for this process or without the agent's results; kept, explaining nothing, without a layer", () => {
    expect(holderFor(7, undefined, ctxWith(found()))).toEqual({ holder: found(), explains: false });
    expect(holderFor(8, "Python objects", ctxWith(found()))).toBeUndefined();
    expect(holderFor(8, "PyTorch CPU tensors", ctxWith(found({ container: "list of Tensor" })))).toBeUndefined();
    expect(holderFor(7, "Python objects", ctxWith())).toBeUndefined();
    expect(holderFor(7, "Python objects", { from: 0, warmup: 0, duration: 1, agentSeen: false })).toBeUndefined();
  });
});

describe("holderField", () => {
  it("every part the search gave, and what it cost", () => {
    const h = found({ itemsPerSecond: 12.5, where: { file: "app.py", line: 3 } });
    expect(holderField(h)).toEqual({
      container: "list of bytes",
      length: 500,
      found: true,
      itemsPerSecond: 12.5,
      path: "app.EVENTS",
      root: "module global",
      hops: [{ kind: "module global", name: "app.EVENTS" }],
      where: { file: "app.py", line: 3 },
      search: { levels: 2, calls: 3, objects: 40, ms: 1.5, longestPauseMs: 0.7 },
    });
  });
  it("no keys for what it did not give", () => {
    expect(Object.keys(holderField(found()))).toEqual([
      "container",
      "length",
      "found",
      "path",
      "root",
      "hops",
      "search",
    ]);
    const h = found({ found: false, path: undefined, root: undefined, hops: undefined, why: "too deep" });
    expect(holderField(h)).toEqual({
      container: "list of bytes",
      length: 500,
      found: false,
      why: "too deep",
      search: { levels: 2, calls: 3, objects: 40, ms: 1.5, longestPauseMs: 0.7 },
    });
    expect(Object.keys(holderField(h))).toEqual(["container", "length", "found", "why", "search"]);
  });
});

describe("addBystanderHolder: a holder beside a leak it does not explain is kept, said as such", () => {
  it("the field, the evidence and a note naming the layer the growth is in; the advice untouched", () => {
    const h = found({ itemsPerSecond: 3.14159 });
    const f = {
      kind: "leak",
      evidence: { layer: "native heap (malloc)" },
      caveats: [],
      advice: [{ say: "advice.leak", facts: { variant: "process" } }],
    } as unknown as JudgedFinding;
    addBystanderHolder(f, h);
    expect(f.holder).toEqual(holderField(h));
    expect(f.evidence).toEqual({ layer: "native heap (malloc)", holder: "app.EVENTS" });
    expect(f.advice).toEqual([{ say: "advice.leak", facts: { variant: "process" } }]);
    expect(f.caveats).toEqual([
      {
        say: "layer.holder-bystander",
        facts: {
          container: "list of bytes",
          found: true,
          path: "app.EVENTS",
          itemsPerSecond: 3.14159,
          layer: "native heap (malloc)",
        },
      },
    ]);
  });
});

describe("addHolder", () => {
  const leak = (variant: string) =>
    ({
      kind: "leak",
      evidence: {},
      caveats: [],
      advice: [
        { say: "advice.leak", facts: { variant } },
        { say: "advice.leak-torch", facts: {} },
      ],
    }) as unknown as JudgedFinding;
  const adviceOf = (h: HolderResult, variantIn = "process", layer = "Python objects") => {
    const f = leak(variantIn);
    addHolder(f, h, layer);
    return f;
  };
  const holderAdvice = (variant: string, h: HolderResult) => ({
    say: "advice.holder",
    facts: {
      variant,
      path: h.path,
      container: h.container,
      length: h.length,
      itemsPerSecond: h.itemsPerSecond,
      why: h.why,
      // found()'s chain, app.EVENTS, as its module writes it.
      heldAs: "EVENTS",
    },
  });

  it("found: the path in the evidence and the field, its advice first in place of a process's general advice", () => {
    const h = found();
    const f = adviceOf(h);
    expect(f.evidence).toEqual({ holder: "app.EVENTS" });
    expect(f.holder).toEqual(holderField(h));
    expect(f.advice).toEqual([holderAdvice("holder", h), { say: "advice.leak-torch", facts: {} }]);
    // --trace-python's general advice too
    expect(adviceOf(h, "process-traced").advice).toEqual([holderAdvice("holder", h), leak("x").advice[1]]);
  });

  it("the general advice is replaced wherever it stands", () => {
    const h = found();
    const f = leak("process");
    f.advice.reverse();
    addHolder(f, h, "Python objects");
    expect(f.advice).toEqual([holderAdvice("holder", h), { say: "advice.leak-torch", facts: {} }]);
  });

  it("a worker keeps its stop-gap; a search that found nothing keeps the ways to look further", () => {
    const h = found();
    // Its "run the worker's code alone to find the line" is answered: the stop-gap alone stays (worker-held).
    expect(adviceOf(h, "worker").advice).toEqual([holderAdvice("holder", h), ...leak("worker-held").advice]);
    const lost = found({ found: false, path: undefined, why: "too deep" });
    const f = adviceOf(lost);
    expect(f.evidence).toEqual({ holder: "not found" });
    expect(f.advice).toEqual([holderAdvice("holder-not-found", lost), ...leak("process").advice]);
  });

  it("the variant: graphs to drop, a cache to bound, finished tasks to discard, a thread's local to clear", () => {
    const variantOf = (h: HolderResult, layer = "Python objects") => adviceOf(h, "worker", layer).advice[0]?.facts;
    expect(variantOf(found(), "PyTorch autograd graphs")).toMatchObject({ variant: "holder-graphs" });
    // Kept losses pinning freed memory: the layer is the Python objects, the fix the same as for growing graphs.
    expect(variantOf(found({ container: "list of Tensor" }))).toMatchObject({ variant: "holder-graphs" });
    expect(variantOf(found({ container: "set of Task" }))).toMatchObject({ variant: "holder-tasks" });
    expect(variantOf(found({ container: "dict of Future" }))).toMatchObject({ variant: "holder-tasks" });
    expect(variantOf(found({ container: "list of TaskRecord" }))).toMatchObject({ variant: "holder" });
    // A mapping is bounded by key (a helper's trial, 2026-12-06: a response cache keyed by request id was told to use
    // a deque).
    expect(variantOf(found({ container: "dict of dict" }))).toMatchObject({ variant: "holder-dict" });
    expect(variantOf(found({ container: "OrderedDict of bytes" }))).toMatchObject({ variant: "holder-dict" });
    expect(variantOf(found({ container: "dictionary_view" }))).toMatchObject({ variant: "holder" });
    // A helper's trials (2026-12-05): "bound it with a deque" fits none of these.
    expect(variantOf(found({ container: "list of StreamHandler" }))).toMatchObject({ variant: "holder-handlers" });
    expect(variantOf(found({ container: "list of RotatingFileHandler" }))).toMatchObject({
      variant: "holder-handlers",
    });
    expect(variantOf(found({ container: "list of HandlerConfig" }))).toMatchObject({ variant: "holder" });
    expect(variantOf(found({ container: "list of method" }))).toMatchObject({ variant: "holder-callbacks" });
    expect(variantOf(found({ container: "set of function" }))).toMatchObject({ variant: "holder-callbacks" });
    const queue = (name: string, container = "deque of dict") =>
      found({
        container,
        hops: [
          { kind: "module global", name: "m.q" },
          { kind: "attribute", name },
        ],
      });
    expect(variantOf(queue("_queue"))).toMatchObject({ variant: "holder-queue" });
    expect(variantOf(queue("queue"))).toMatchObject({ variant: "holder-queue" });
    expect(variantOf(queue("_history"))).toMatchObject({ variant: "holder" });
    expect(variantOf(queue("_queue", "list of dict"))).toMatchObject({ variant: "holder" });
    const lru = found({
      hops: [
        { kind: "module global", name: "m" },
        { kind: "lru_cache", name: "f" },
      ],
    });
    expect(variantOf(lru)).toMatchObject({ variant: "holder-lru" });
    expect(variantOf(found({ root: "thread frame", hops: [] }))).toMatchObject({ variant: "holder-frame" });
    expect(variantOf(found({ root: "thread frame", hops: undefined }))).toMatchObject({ variant: "holder-frame" });
    expect(variantOf(found({ found: false }), "PyTorch autograd graphs")).toMatchObject({
      variant: "holder-not-found",
    });
    // A graph a global or a local keeps growing: chains to break, whoever holds it; at least its count, when capped.
    const chain = found({ container: "autograd graph of a Tensor", root: "thread frame", lengthCapped: true });
    expect(variantOf(chain, "PyTorch autograd graphs")).toMatchObject({
      variant: "holder-graph-chain",
      lengthCapped: true,
    });
    expect(variantOf({ ...chain, found: false }, "PyTorch autograd graphs")).toMatchObject({
      variant: "holder-graph-chain-not-found",
    });
  });

  it("a graph chain's advice says nodes, and 'at least' when the agent's count stopped at its bound", () => {
    const text = (h: HolderResult) => say(adviceOf(h, "process", "PyTorch autograd graphs").advice[0]!);
    const chain = found({
      container: "autograd graph of a Tensor",
      path: "__main__.h",
      length: 20000,
      itemsPerSecond: 810,
    });
    expect(text(chain)).toMatch(
      /^\*\*`__main__\.h` holds it\*\*: a tensor there keeps an autograd graph that gains ~810 nodes a second \(20,000 nodes when/,
    );
    expect(text({ ...chain, lengthCapped: true })).toContain("(at least 20,000 nodes when");
  });

  it("finished tasks: the done-callback names the container as the program writes it, and fits its type", () => {
    const text = (h: HolderResult) => say(adviceOf(h, "process", "Python objects").advice[0]!);
    const tasks = (container: string, hops: HolderResult["hops"]) => text(found({ container, hops }));
    const global = [{ kind: "module global", name: "__main__.background_tasks" }];
    expect(tasks("set of Task", global)).toContain("(`task.add_done_callback(background_tasks.discard)`, or");
    expect(tasks("list of Task", global)).toContain("(`task.add_done_callback(background_tasks.remove)`, or");
    expect(tasks("dict of Future", global)).toContain(
      "(`task.add_done_callback(lambda task, key=key: background_tasks.pop(key, None))`, or",
    );
    const attribute = [
      { kind: "module global", name: "app.server.service" },
      { kind: "attribute", name: "_pending" },
    ];
    expect(tasks("set of Task", attribute)).toContain("add_done_callback(service._pending.discard)");
    // A chain code cannot spell (through a set member): the generic name.
    const member = [...global, { kind: "member", name: "member" }];
    expect(tasks("set of Task", member)).toContain("add_done_callback(tasks.discard)");
  });
});
