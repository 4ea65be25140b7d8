/**
 * analysis/agent-placement.ts: which processes of a watched tree get an agent (issue 49), on hand-made trees —
 * a service's master with forked idle workers, one of them leaking or larger, a limit on agents — and the lows that
 * say a process grows.
 */
import { describe, expect, it } from "vitest";
import {
  DEFAULT_MAX_AGENTS,
  LOWS_BLOCK,
  LOWS_BLOCKS,
  LowsWatch,
  NOTHING_SAID,
  placeAgents,
  placementLine,
  type PlacementProcess,
  type PlacementSaid,
} from "../../../src/analysis/agent-placement.js";

const MiB = 2 ** 20;

/** A master (pid 100) and `n` workers 101… forked from it, each 8 MiB of anon; `over` changes some. */
function service(n: number, over: Record<number, Partial<PlacementProcess>> = {}): PlacementProcess[] {
  const master = { pid: 100, ppid: 1, command: "python3 serve.py", anon: 30 * MiB, hasAgent: false, grows: false };
  const workers = Array.from({ length: n }, (_, i) => ({
    pid: 101 + i,
    ppid: 100,
    command: "python3 serve.py --worker",
    anon: 8 * MiB,
    hasAgent: false,
    grows: false,
  }));
  return [master, ...workers].map((p) => ({ ...p, ...over[p.pid] }));
}

const place = (ps: PlacementProcess[], max = DEFAULT_MAX_AGENTS, named: number[] = []) =>
  placeAgents(ps, { rootPid: 100, named: new Set(named), max });
const reasons = (ps: PlacementProcess[], max?: number, named?: number[]) =>
  Object.fromEntries([...place(ps, max, named).wanted].map(([pid, w]) => [pid, w.reason]));

describe("placeAgents", () => {
  it("64 idle workers: the watched master and one worker for the group; the free slots stay free; 63 from /proc", () => {
    const p = place(service(64));
    expect(Object.fromEntries([...p.wanted])).toEqual({
      100: { reason: "watched", siblings: 1 },
      101: { reason: "represents", siblings: 64 },
    });
    expect(p.passedOver.size).toBe(63);
    expect(p.passedOver.get(102)).toBe(
      "an idle sibling of PID 101 (same parent and command), whose agent speaks for them",
    );
    expect(p.passedOver.get(164)).toBe(p.passedOver.get(102));
  });

  it("a worker that grows gets its own agent, beside the one that speaks for the rest", () => {
    expect(reasons(service(64, { 140: { grows: true } }))).toEqual({ 100: "watched", 140: "grows", 101: "represents" });
  });

  it("a worker that copies its parent's pages gets its own agent (to say which data), ranked with growth", () => {
    expect(reasons(service(64, { 140: { copies: true } }))).toEqual({
      100: "watched",
      140: "copies",
      101: "represents",
    });
    // at a limit of two, a copying worker comes before the one that would speak for the group
    expect(reasons(service(64, { 140: { copies: true } }), 2)).toEqual({ 100: "watched", 140: "copies" });
  });

  it("one process past the limit: the free slots are not filled by idle siblings", () => {
    expect(reasons(service(4))).toEqual({ 100: "watched", 101: "represents" });
    expect(place(service(4)).passedOver.size).toBe(3);
  });

  it("a tree within the limit: an agent in every process, as without one", () => {
    expect(reasons(service(3))).toEqual({ 100: "watched", 101: "represents", 102: "sibling", 103: "sibling" });
    expect(place(service(3)).passedOver.size).toBe(0);
  });

  it("a worker half as large again as its siblings' median, and clear of it by the floor, is larger", () => {
    expect(reasons(service(16, { 105: { anon: 12 * MiB } }), 2)).toEqual({ 100: "watched", 105: "larger" });
    // 11.9 MiB: under 1.5 × 8; 1.5 × 2 MiB = 3 MiB is 1 MiB above: under the 2 MiB floor
    expect(reasons(service(16, { 105: { anon: 11.9 * MiB } }), 2)).toEqual({ 100: "watched", 101: "represents" });
    const small = service(16, Object.fromEntries(Array.from({ length: 16 }, (_, i) => [101 + i, { anon: 2 * MiB }])));
    small[5]!.anon = 3 * MiB;
    expect(reasons(small, 2)).toEqual({ 100: "watched", 101: "represents" });
    // two siblings have no median to stand above: neither is larger, one speaks for both
    expect(reasons(service(2, { 102: { anon: 100 * MiB } }), 2)).toEqual({ 100: "watched", 101: "represents" });
  });

  it("at the limit, growth comes before the one that speaks for a group, and takes its slot", () => {
    const ps = service(64, { 101: { hasAgent: true }, 120: { grows: true }, 130: { grows: true } });
    const p = place(ps, 3);
    expect(Object.fromEntries([...p.wanted].map(([pid, w]) => [pid, w.reason]))).toEqual({
      100: "watched",
      120: "grows",
      130: "grows",
    });
    // the representative (which had an agent) is released, and its siblings say why they have none
    expect(p.passedOver.get(101)).toBe("over the limit of 3 agents at once (--max-agents)");
    expect(p.passedOver.get(102)).toBe(
      "an idle sibling of PID 101 (same parent and command); over the limit of 3 agents at once (--max-agents)",
    );
  });

  it("an agent keeps its slot against an equal claim: the group's speaker is the one that has an agent", () => {
    expect(reasons(service(8, { 105: { hasAgent: true } }), 2)).toEqual({ 100: "watched", 105: "represents" });
    // among growers at the limit: the one with an agent stays, then the larger
    const ps = service(8, {
      102: { grows: true, anon: 9 * MiB },
      103: { grows: true, hasAgent: true },
      104: { grows: true, anon: 10 * MiB },
    });
    expect(Object.keys(reasons(ps, 3))).toEqual(["100", "103", "104"]);
  });

  it("--agent-in names a process: watched, whatever it does", () => {
    expect(reasons(service(8), 4, [107])).toMatchObject({ 107: "watched" });
  });

  it("a process alone with its command under its parent has one (a main process, a helper)", () => {
    const ps = [
      ...service(4),
      { pid: 200, ppid: 100, command: "python3 -m tokenizer_helper", anon: 5 * MiB, hasAgent: false, grows: false },
    ];
    expect(reasons(ps, 3)).toEqual({ 100: "watched", 101: "represents", 200: "alone" });
  });

  it("the same command under two parents is two groups", () => {
    const ps = service(4).concat(
      [301, 302].map((pid) => ({
        pid,
        ppid: 300,
        command: "python3 serve.py --worker",
        anon: 8 * MiB,
        hasAgent: false,
        grows: false,
      })),
    );
    expect(reasons(ps, 3)).toEqual({ 100: "watched", 101: "represents", 301: "represents" });
  });
});

describe("LowsWatch", () => {
  const feed = (ys: number[]) => {
    const w = new LowsWatch();
    for (const y of ys) w.add(y * MiB);
    return w.grows;
  };

  it("grows once a block's low stands the floor above an older block's", () => {
    // 1 MiB/s from 50 MiB: the second block's low (55) is 5 MiB above the first's (50)
    expect(feed(Array.from({ length: 2 * LOWS_BLOCK }, (_, i) => 50 + i))).toBe(true);
    // one block: nothing to compare
    expect(feed(Array.from({ length: LOWS_BLOCK }, (_, i) => 50 + i))).toBe(false);
  });

  it("the floor: 2 MiB, or 2% of the lower low", () => {
    const blocks = (a: number, b: number) => [
      ...new Array<number>(LOWS_BLOCK).fill(a),
      ...new Array<number>(LOWS_BLOCK).fill(b),
    ];
    expect(feed(blocks(50, 51.9))).toBe(false);
    expect(feed(blocks(50, 52))).toBe(true);
    expect(feed(blocks(500, 509))).toBe(false);
    expect(feed(blocks(500, 510))).toBe(true);
  });

  it("swings by big temporaries over a flat level are not growth: the lows do not move", () => {
    expect(feed(Array.from({ length: 60 }, (_, i) => (i % 3 === 0 ? 150 : 50)))).toBe(false);
  });

  it("a rise more than a minute old no longer counts: start-up long past does not make a process grow", () => {
    const startup = [
      ...new Array<number>(LOWS_BLOCK).fill(10),
      ...new Array<number>(LOWS_BLOCKS * LOWS_BLOCK).fill(40),
    ];
    expect(feed(startup)).toBe(false);
    expect(feed(startup.slice(0, LOWS_BLOCK * LOWS_BLOCKS))).toBe(true);
  });

  it("a process born while memleak watched: its first block is its start-up, not growth", () => {
    // read before it ran (the parent's 50 MiB, shared), then with its own 8 MiB
    const startup = [50, 50, 50, 58, 58, ...new Array<number>(2 * LOWS_BLOCK).fill(58)];
    const born = new LowsWatch(true);
    for (const y of startup) born.add(y * MiB);
    expect(born.grows).toBe(false);
    // one there when memleak came: its first block counts
    expect(feed(startup)).toBe(true);
    // and a born one that goes on growing after its start-up grows
    for (const y of [60, 61, 62, 63, 64]) born.add(y * MiB);
    expect(born.grows).toBe(true);
  });

  it("unread readings are skipped", () => {
    const w = new LowsWatch();
    for (let i = 0; i < 2 * LOWS_BLOCK; i++) {
      w.add(undefined);
      w.add((50 + i) * MiB);
    }
    expect(w.grows).toBe(true);
  });
});

describe("placementLine", () => {
  /** One call per tick, as run's agents and watch's attacher make it: the lines said over the ticks. */
  function say(ticks: PlacementProcess[][]): string[] {
    let last: PlacementSaid = NOTHING_SAID;
    const lines: string[] = [];
    for (const ps of ticks) {
      const r = placementLine(place(ps), last, { pythons: ps.length, max: 4, verb: "report from", others: "quiet" });
      last = r.said;
      if (r.line) lines.push(r.line);
    }
    return lines;
  }

  it("workers saying hello over several ticks: one line, once the count holds, with the count there is", () => {
    // CI beside a busy loop: 10 of 16 workers had said hello at the first placement, and the line said so for good.
    const lines = say([service(10), service(13), service(16), service(16), service(16)]);
    expect(lines).toEqual([
      expect.stringMatching(
        /^agents report from 2 of 17 Python processes: PID 100 \(watched\), PID 101 \(for 16 siblings\); the other 15 quiet \(--max-agents 4\)$/,
      ),
    ]);
  });

  it("a place that changes is said again once it holds; a tree within the limit says nothing", () => {
    const leaking = service(16, { 116: { grows: true, anon: 40 * MiB } });
    const lines = say([service(16), service(16), leaking, leaking, leaking]);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^agents report from 3 of 17 .*PID 116 \(grows\)/);
    expect(say([service(2), service(2), service(2)])).toEqual([]);
  });
});
