/**
 * When memleak asks a worker's agent what it copied (session/cow-ask.ts): once its USS has risen by copy-on-write's
 * floor beyond its own growth, again only after ASK_GAP_S and markedly more copied, at most ASKS_PER_PROCESS
 * times; never for a process whose own memory grows alike (that is not copying), nor one without an agent; a pid reused by a
 * new process starts over.
 */
import { describe, expect, it } from "vitest";
import { COW_MIN_BYTES } from "../../../src/analysis/signals/cow.js";
import { ASK_GAP_S, ASKS_PER_PROCESS, CowAsk } from "../../../src/session/cow-ask.js";
import type { ProcessSample } from "../../../src/system/sample.js";

const MiB = 2 ** 20;
const p = (uss: number, anon = 50 * MiB, starttime = 1): ProcessSample => ({
  pid: 7,
  ppid: 1,
  starttime,
  comm: "python3",
  uss,
  anon,
});
/** The worker's parent, flat: the tree the worker is asked in. */
const PARENT: ProcessSample = { pid: 1, ppid: 0, starttime: 1, comm: "python3", uss: 100 * MiB, anon: 200 * MiB };

function asker() {
  const c = new CowAsk();
  return { at: (t: number, s: ProcessSample, agent = true) => c.consider([PARENT, s], t, () => agent).length > 0 };
}

describe("asking a copying worker what it copied", () => {
  it("at the floor, not below it", () => {
    const { at } = asker();
    expect(at(0, p(10 * MiB))).toBe(false); // the first reading is the start
    expect(at(1, p(10 * MiB + COW_MIN_BYTES - 1))).toBe(false);
    expect(at(2, p(10 * MiB + COW_MIN_BYTES))).toBe(true);
  });

  it("for what it copied beyond its own growth: resident memory growing alike is not copying", () => {
    const { at } = asker();
    at(0, p(10 * MiB, 50 * MiB));
    expect(at(1, p(30 * MiB, 50 * MiB + 18 * MiB))).toBe(false); // USS +20, anon +18: 2 MiB copied at most
    expect(at(2, p(30 * MiB, 50 * MiB + 12.01 * MiB))).toBe(false); // just under the floor beyond its own growth
    expect(at(3, p(30 * MiB, 50 * MiB + 12 * MiB))).toBe(true); // +20 − 12 own: the floor copied
  });

  it("a worker that allocates while it copies is asked (a frozen dataset's worker: 20.6 MiB copied, +3.3 MiB own)", () => {
    // its first USS reading came after its first half second's copying: 14.9 MiB more USS beside 3.3 MiB more anon
    // (12.4 MiB at that first reading is itself past the floor: it is asked then, as a worker that copied before it
    // was first read is; here its first reading held less.)
    const { at } = asker();
    expect(at(0, p(5 * MiB, 191.3 * MiB))).toBe(false);
    expect(at(1, p(19.9 * MiB, 194.6 * MiB))).toBe(true);
  });

  it("again only after the gap and a quarter more copied; at most ASKS_PER_PROCESS times", () => {
    const { at } = asker();
    at(0, p(0));
    expect(at(1, p(40 * MiB))).toBe(true);
    expect(at(1 + ASK_GAP_S - 1, p(80 * MiB))).toBe(false); // too soon
    expect(at(1 + ASK_GAP_S, p(48 * MiB))).toBe(false); // +8 MiB of 40: under a quarter
    expect(at(1 + ASK_GAP_S, p(50 * MiB))).toBe(true);
    let asks = 2;
    for (let t = 100, uss = 100 * MiB; t < 1000; t += ASK_GAP_S, uss *= 2) if (at(t, p(uss))) asks++;
    expect(asks).toBe(ASKS_PER_PROCESS);
  });

  // watch --duration ends with the workers alive: one writing its copy of an array was named at 93.6 MiB from a look
  // 10 s old while it held 122 MiB.
  it("at the session's end: asked once more if it copied the floor more since, whatever the gap, count and share", () => {
    const c = new CowAsk();
    c.consider([PARENT, p(0)], 0, () => true);
    expect(c.consider([PARENT, p(40 * MiB)], 1, () => true)).toEqual([7]);
    // at the end 2 s later: under the floor more, not asked; the floor more (under a quarter), asked though the gap
    // is not over (93.6 → 115 MiB was 23% more, and the report kept the older look)
    expect(c.atEnd([PARENT, p(40 * MiB + COW_MIN_BYTES - 1)], () => true)).toEqual([]);
    expect(c.atEnd([PARENT, p(40 * MiB + COW_MIN_BYTES)], () => true)).toEqual([7]);
    // never one that was not asked before (not copying past the floor), nor a reused pid
    const fresh = new CowAsk();
    fresh.consider([PARENT, p(0)], 0, () => true);
    expect(fresh.atEnd([PARENT, p(COW_MIN_BYTES - 1)], () => true)).toEqual([]);
    expect(c.atEnd([PARENT, p(90 * MiB, 50 * MiB, 2)], () => true)).toEqual([]);
    // without an agent connected: not counted as asked
    expect(c.atEnd([PARENT, p(90 * MiB)], () => false)).toEqual([]);
    // a worker that has forked children of its own since: its pages turn private as they copy them, not asked
    const grandchild: ProcessSample = { pid: 8, ppid: 7, starttime: 1, comm: "python3", uss: MiB, anon: 50 * MiB };
    expect(c.atEnd([PARENT, p(90 * MiB), grandchild], () => true)).toEqual([]);
  });

  it("a process without an agent is asked at its next reading; a reused pid starts over", () => {
    const { at } = asker();
    at(0, p(0));
    expect(at(1, p(20 * MiB), false)).toBe(false);
    expect(at(2, p(20 * MiB))).toBe(true);
    expect(at(3, p(100 * MiB, 50 * MiB, 2))).toBe(false); // a new process with the same pid: its first reading
    expect(at(4, p(100 * MiB + COW_MIN_BYTES, 50 * MiB, 2))).toBe(true);
  });

  it("only forked workers: not a process without its parent in the tree, nor a parent (its children's copying)", () => {
    const c = new CowAsk();
    const ask = (ps: ProcessSample[]) => c.consider(ps, 0, () => true);
    ask([p(10 * MiB)]);
    expect(ask([p(40 * MiB)])).toEqual([]); // its parent is not in the tree
    // PID 7 forked PID 8: its USS rises as 8 copies, but it is a parent
    const child = { ...p(20 * MiB), pid: 8, ppid: 7 };
    ask([PARENT, p(10 * MiB), child]);
    expect(ask([PARENT, p(40 * MiB), child])).toEqual([]);
  });

  it("readings without USS (a tick without smaps_rollup) are skipped, not taken for zero", () => {
    const { at } = asker();
    at(0, p(10 * MiB));
    expect(at(1, { ...p(0), uss: undefined })).toBe(false);
    expect(at(2, p(30 * MiB))).toBe(true);
  });
});

describe("a worker that copied before its first reading (a pool worker reading its dataset in its first second)", () => {
  // The parent at 91 MiB of anon; each worker at its first reading: anon 91 MiB (inherited), USS 51 MiB (copied).
  const parent: ProcessSample = { ...PARENT, anon: 91 * MiB, uss: 53 * MiB };
  const worker = (uss: number, anon = 91 * MiB, starttime = 1): ProcessSample => ({ ...p(uss, anon, starttime) });
  const ask = () => {
    const c = new CowAsk();
    return (t: number, s: ProcessSample, agent = true) => c.consider([parent, s], t, () => agent).length > 0;
  };

  it("is asked at its first reading, and again at its next one when its agent was not connected yet", () => {
    expect(ask()(0, worker(51 * MiB))).toBe(true);
    const at = ask();
    expect(at(0, worker(51 * MiB), false)).toBe(false);
    expect(at(1, worker(51 * MiB))).toBe(true);
  });

  it("not when what it holds privately is its own: anon grown past its parent's by as much, or an exec'd program", () => {
    expect(ask()(0, worker(51 * MiB, 91 * MiB + 45 * MiB))).toBe(false); // 51 − 45 own: 6 MiB, under the floor
    expect(ask()(0, worker(60 * MiB, 61 * MiB))).toBe(false); // shares nothing: its USS is all of its anon
    expect(ask()(0, worker(20 * MiB, 40 * MiB))).toBe(false); // holds under half its parent's anon: freed it
  });

  it("asked again at its end only when it copied the floor more since; the figure counts both", () => {
    const c = new CowAsk();
    const asked: number[] = [];
    c.consider([parent, worker(51 * MiB)], 0, (pid) => (asked.push(pid), true));
    expect(c.atEnd([parent, worker(51 * MiB + COW_MIN_BYTES - 1)], () => true)).toEqual([]);
    expect(c.atEnd([parent, worker(51 * MiB + COW_MIN_BYTES)], () => true)).toEqual([7]);
    expect(asked).toEqual([7]);
  });
});
