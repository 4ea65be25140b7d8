/**
 * When a leak's finding names what holds it (signals/holder.ts): the agent's holder search is the answer on a leak of
 * Python objects, or of tensors when the container holds tensors, and the advice then starts from the path. Beside a
 * native-heap leak it is kept (issue 45: a holder the agent found is never dropped) as a possible bystander: in the
 * field and the evidence, said in a note, never in the summary or the advice. A finding that is no leak names none.
 */
import { describe, expect, it } from "vitest";
import type { HolderResult } from "../../../../src/agent/agent-results.js";
import type { AgentResults } from "../../../../src/analysis/context.js";
import { alone, judge, linear, MB, processFinding } from "./judge.js";

/** A 1 MiB/s leak over 300 s whose agent sees the growth in a list of 4 KiB bytes, or in malloc, or in tensors. */
function leaking(layer: "objects" | "native" | "tensors" | "flat") {
  const rate = layer === "flat" ? 0 : 1 * MB;
  return alone({
    anon: linear(200 * MB, rate),
    agent: (t) => ({
      malloc: { inUse: 50 * MB + (layer === "native" ? t * MB : 0), free: 5 * MB, arenas: 1, allocator: "glibc" },
      py: { allocatedBlocks: 100_000 },
      ...(layer === "tensors" && { torch: { version: "1.13.1", threads: 2 } }),
      census: {
        containerItems: 5000,
        growingLen: 1000 + (layer === "objects" ? (t * MB) / 4096 : 0),
        growingAdded: layer === "objects" ? (t * MB) / 4096 : 0,
        growingAddedBytes: layer === "objects" ? t * MB : 0,
        growing: "list of bytes",
        growingItemBytes: 4096,
        ...(layer === "tensors" && { cpuTensorBytes: 20 * MB + t * MB, cpuTensors: 100, graphTensors: 3 }),
      },
    }),
  });
}

/** What the agent found: the chain, as the finding's field shows it too. */
const CHAIN = {
  container: "list of bytes",
  length: 70_000,
  found: true,
  path: "app.handlers.EVENTS",
  root: "module global",
  hops: [{ kind: "module global", name: "app.handlers.EVENTS" }],
};

function holder(o: Partial<HolderResult> = {}): AgentResults {
  const h: HolderResult = {
    type: "holder",
    pid: 100,
    t: 200,
    ...CHAIN,
    levels: 1,
    calls: 1,
    objects: 1,
    ms: 1.5,
    longestMs: 1.2,
    ...o,
  };
  return { traces: new Map(), trims: new Map(), holders: new Map([[100, h]]) };
}

const finding = (layer: Parameters<typeof leaking>[0], results: AgentResults) =>
  processFinding(judge(leaking(layer), { warmup: 0, agentResults: results }), 100);

describe("the holder on a leak's finding", () => {
  it("a leak of Python objects: the path in the evidence, the summary, the field and first in the advice", () => {
    const f = finding("objects", holder());
    expect(f.kind).toBe("leak");
    expect(f.evidence).toMatchObject({ layer: "Python objects", holder: "app.handlers.EVENTS" });
    expect(f.summary).toMatch(/ — in Python objects, held by app\.handlers\.EVENTS$/);
    expect(f.holder).toEqual({ ...CHAIN, search: { levels: 1, calls: 1, objects: 1, ms: 1.5, longestPauseMs: 1.2 } });
    expect(f.advice).toMatch(
      /^\*\*`app\.handlers\.EVENTS` holds it\*\*: the list of bytes there keeps growing \(70,000 items/,
    );
    // The general advice's "run again with --trace-python to find what holds it" is answered: left out.
    expect(f.advice).not.toMatch(/run again with `memleak run --trace-python/);
  });

  it("says how fast it gains items, as the agent measured between the two walks that saw it grow", () => {
    expect(finding("objects", holder({ itemsPerSecond: 412.5 })).advice).toMatch(
      /^\*\*`app\.handlers\.EVENTS` holds it\*\*: the list of bytes there gains ~410 items a second \(70,000 items/,
    );
    expect(finding("objects", holder({ itemsPerSecond: 0.45 })).advice).toMatch(/gains ~0\.45 items a second/);
    expect(finding("objects", holder({ itemsPerSecond: 412.5 })).holder!.itemsPerSecond).toBe(412.5);
  });

  it("a leak of the native heap makes no holder claim, and keeps what the agent found as a possible bystander", () => {
    const f = finding("native", holder());
    expect(f.evidence.layer).toBe("native heap (malloc)");
    expect(f.holder).toMatchObject({ found: true, path: CHAIN.path, container: CHAIN.container });
    expect(f.evidence.holder).toBe(CHAIN.path);
    expect(f.summary).not.toMatch(/held by/);
    expect(f.advice).not.toContain(CHAIN.path);
    expect(f.caveats).toContainEqual(
      "the agent saw a list of bytes grow, held by app.handlers.EVENTS; what its items keep alive is not enough of the growth to explain it (the growth is in the native heap (malloc)), so it may be a bystander",
    );
  });

  it("no leak, no holder: a flat process's finding names none", () => {
    const f = finding("flat", holder());
    expect(f.kind).toBe("stable");
    expect(f.holder).toBeUndefined();
  });

  it("tensors: only a container of tensors is their holder; another is kept as a possible bystander", () => {
    const other = finding("tensors", holder());
    expect(other.holder).toMatchObject({ path: CHAIN.path });
    expect(other.summary).not.toMatch(/held by/);
    expect(other.caveats).toContainEqual(expect.stringMatching(/may be a bystander$/));
    const f = finding(
      "tensors",
      holder({
        container: "list of Tensor",
        path: "__main__.cache",
        hops: [{ kind: "module global", name: "__main__.cache" }],
      }),
    );
    expect(f.evidence).toMatchObject({ layer: "PyTorch CPU tensors", holder: "__main__.cache" });
  });

  it("a search that found no root says so, and keeps the ways to look further", () => {
    const f = finding(
      "objects",
      holder({ found: false, path: undefined, root: undefined, hops: undefined, why: "no root within 12 references" }),
    );
    expect(f.evidence.holder).toBe("not found");
    expect(f.holder).toMatchObject({ found: false, why: "no root within 12 references" });
    expect(f.summary).not.toMatch(/held by/);
    expect(f.advice).toMatch(
      /found no module global, class or\s+running frame leading to it within its search's bounds \(no root within 12 references\)/,
    );
    // No command in this session: a watched process, traced again by watch (a launched one: run, in the goldens).
    expect(f.advice).toMatch(/watch it again with `memleak watch --trace-python 100`/);
  });

  it("a path with a backtick (a dict key from the program) cannot close the advice's code span", () => {
    const f = finding("objects", holder({ path: "app.CACHE['a`<img src=x>']" }));
    expect(f.advice).toContain("`app.CACHE['a'<img src=x>']` holds it");
  });
});
