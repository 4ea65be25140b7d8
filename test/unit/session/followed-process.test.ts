/**
 * What the agent placement follows of a process (session/followed-process.ts), shared by watch's Attacher and run's
 * RunAgents: its lows (grows), whether it copies its parent's pages, and its command line read once.
 */
import { describe, expect, it } from "vitest";
import { LOWS_BLOCK } from "../../../src/analysis/agent-placement.js";
import { COW_MIN_BYTES } from "../../../src/analysis/signals/cow.js";
import { FollowedProcess } from "../../../src/session/followed-process.js";

const MiB = 2 ** 20;

describe("a followed process", () => {
  it("grows when a later block's low rises past the floor; a born one's first block is its start-up", () => {
    const readBlocks = (f: FollowedProcess, lows: number[]) => {
      for (const low of lows) for (let i = 0; i < LOWS_BLOCK; i++) f.read({ anon: low });
    };
    const old = new FollowedProcess(1, false);
    readBlocks(old, [100 * MiB, 100 * MiB]);
    expect(old.grows).toBe(false);
    readBlocks(old, [200 * MiB]);
    expect(old.grows).toBe(true);
    // born: its first block (read before it took its own memory) is not a low
    const born = new FollowedProcess(1, true);
    readBlocks(born, [10 * MiB, 100 * MiB, 100 * MiB]);
    expect(born.grows).toBe(false);
  });

  it("copies its parent's pages: USS up by the floor beyond its anon's own growth, only with a parent", () => {
    const f = new FollowedProcess(1, false);
    f.read({ uss: 10 * MiB, anon: 50 * MiB, ppid: 1 });
    f.read({ uss: 10 * MiB + COW_MIN_BYTES - 1, anon: 50 * MiB, ppid: 1 });
    expect(f.copies).toBe(false);
    f.read({ uss: 10 * MiB + COW_MIN_BYTES, anon: 50 * MiB, ppid: 1 });
    expect(f.copies).toBe(true);
    // a reading without USS is skipped, not taken for zero (a start of 0 would make the next reading a copy)
    const gap = new FollowedProcess(1, false);
    gap.read({ anon: 50 * MiB, ppid: 1 });
    gap.read({ uss: 10 * MiB, anon: 50 * MiB, ppid: 1 });
    expect(gap.copies).toBe(false);
    // without a parent, no copying
    const orphan = new FollowedProcess(1, false);
    orphan.read({ uss: 10 * MiB, anon: 50 * MiB });
    orphan.read({ uss: 100 * MiB, anon: 50 * MiB });
    expect(orphan.copies).toBe(false);
  });

  it("reads its command line once, when first asked", () => {
    const f = new FollowedProcess(1, false);
    let reads = 0;
    const read = () => `python3 app.py ${++reads}`;
    expect(f.command(read)).toBe("python3 app.py 1");
    expect(f.command(read)).toBe("python3 app.py 1");
    expect(reads).toBe(1);
  });
});
