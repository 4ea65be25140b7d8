import { describe, expect, it } from "vitest";
import { SeriesBuilder } from "../../../src/analysis/series.js";
import { classify } from "../../../src/analysis/classify.js";
import { Column } from "../../../src/analysis/column.js";
import type { Sample } from "../../../src/sample.js";

const MiB = 2 ** 20;

describe("series stay bounded over a long watch", () => {
  it("a pool that starts a short-lived worker every 2 s keeps only the root's series, and counts the rest", () => {
    const b = new SeriesBuilder();
    for (let i = 0; i < 1000; i++) {
      const worker = 1000 + Math.floor(i / 2); // each worker lives 2 samples
      const s: Sample = {
        t: i * 1000,
        processes: [
          { pid: 1, ppid: 0, starttime: 1, comm: "python3", rss: 50 * MiB, anon: 40 * MiB },
          { pid: worker, ppid: 1, starttime: worker, comm: "python3", rss: 20 * MiB, anon: 15 * MiB },
        ],
      };
      b.add(s);
    }
    expect(b.set.processes.size).toBeLessThanOrEqual(2);
    expect(b.set.shortLivedDropped).toBeGreaterThanOrEqual(498);
    const doc = classify({ set: b.set, options: {}, target: { pid: 1 } });
    const tree = doc.findings.find((f) => f.subject.type === "tree")!;
    expect(tree.evidence.shortLivedProcesses as number).toBeGreaterThanOrEqual(498);
  });

  it("a column compacts to its capacity but keeps the exact peak", () => {
    const c = new Column(1000);
    for (let i = 0; i < 100_000; i++) c.push(i, i === 50_000 ? 1e9 : 1);
    expect(c.length).toBeLessThan(1000);
    expect(c.max()).toBe(1e9);
    expect(Math.max(...c.ys)).toBeLessThan(1e9 / 10); // the stored points averaged the spike away
  });
});

describe("the agents' last words", () => {
  it("are added to the process's agent columns after its last sample, and only to processes it knows", () => {
    const b = new SeriesBuilder();
    for (let i = 0; i < 30; i++) {
      b.add({ t: i * 1000, processes: [{ pid: 7, ppid: 1, starttime: 70, comm: "python3", anon: 900 * MiB }], agent: { "7": { malloc: { inUse: 800 * MiB } } } });
    }
    b.addLastWords(30_500, { "7": { malloc: { inUse: 12 * MiB, allocator: "glibc" } }, "8": { malloc: { inUse: 1 } } });
    const ps = [...b.set.processes.values()][0]!;
    expect(ps.agent["malloc.inUse"]!.xs.at(-1)).toBe(30.5);
    expect(ps.agent["malloc.inUse"]!.ys.at(-1)).toBe(12 * MiB);
    expect(ps.agentText["malloc.allocator"]).toBe("glibc");
    expect(b.set.processes.size).toBe(1);
  });
});
