/**
 * Pool workers that had copied their parent's pages before memleak first read them (issue 51), end to end: under
 * `watch` (deterministic: memleak comes once every worker has read the dict) each worker is stable and says how much
 * it had copied, checked against the kernel's Private_Dirty, the dict named by the look; under `run`, whether memleak
 * read the workers before or after they copied, a worker's look names the dict. Its own file, run late (test/sequencer.ts):
 * three 60 MiB processes beside the PyTorch loops of kept-alive.test.ts made the loops' fixed forms read as leaks under
 * that load (CI on 5ccc7c0).
 */
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { memleak, startReady, type Started } from "../helpers/processes.js";
import { shownFindings, verdictOf } from "../helpers/verdict-doc.js";

const targets: Started[] = [];
afterAll(async () => {
  for (const t of targets) await t.stop();
});

/**
 * fixtures/scenarios/pool_early_copy.py: a pool whose workers read the whole of their parent's dict in their first task
 * (200,000 str of 64 characters), then serve light tasks: each copies ~25 MiB through reference counts in its first
 * moments and is flat from then on. It prints `ready` once every worker has read it.
 */
const POOL_EARLY = "fixtures/scenarios/pool_early_copy.py";

/** A process's Private_Dirty now (bytes), from the kernel's own count. */
const privateDirty = (pid: number): number =>
  Number(/^Private_Dirty:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))?.[1] ?? NaN) * 1024;
const childrenOf = (pid: number): number[] =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);

describe("pool workers that copied before memleak first read them (issue 51)", { timeout: 120_000 }, () => {
  it("watch: a flat worker is stable, says how much it had copied and names the dict, the look not counted", async () => {
    const target = await startReady(["python3", POOL_EARLY, "60"], /^ready$/m);
    targets.push(target);
    // What each worker made private before memleak came: its reads of the dict (the kernel's count).
    const before = new Map(childrenOf(target.pid).map((pid) => [pid, privateDirty(pid)]));
    const r = await memleak(["watch", String(target.pid), "--duration", "20s", "--json"]);
    const doc = verdictOf(r.stdout, r.stderr);
    const trail = shownFindings(doc);
    // Nothing grows: no plateau, no leak, no copy-on-write anywhere (the looks' own memory taken out).
    expect(
      doc.findings.filter((f) => f.kind !== "stable").map((f) => f.kind),
      trail,
    ).toEqual([]);
    const workers = doc.findings.filter((f) => f.subject.type === "process" && before.has(f.subject.pid));
    expect(workers.length, trail).toBe(2);
    for (const f of workers) {
      const copied = Number(f.evidence.copiedBeforeBytes);
      const pd = before.get((f.subject as { pid: number }).pid)!;
      // USS beyond its own anon at its first reading against the kernel's Private_Dirty just before memleak came.
      expect(Math.abs(copied - pd), `${copied} vs Private_Dirty ${pd}\n${trail}`).toBeLessThan(0.2 * pd + 4 * 2 ** 20);
    }
    // The headline is a worker whose look named the dict, copied by reads, and its advice says what to do about it.
    expect(doc.verdict.copied?.objects[0], trail).toMatchObject({ name: "__main__.WORDS", how: "reads" });
    expect(doc.verdict.summary).toMatch(/had copied [\d.]+ MiB of its parent's pages before memleak first read it/);
    expect(doc.verdict.advice).toMatch(/__main__\.WORDS/);
  });

  it("run: the dict named by a worker's look, whether memleak read the workers before or after they copied", async () => {
    const r = await memleak(["run", "--json", "--", "python3", POOL_EARLY, "25"]);
    const doc = verdictOf(r.stdout, r.stderr);
    const trail = shownFindings(doc);
    expect(r.code, r.stderr).toBe(0);
    expect(
      doc.findings.filter((f) => f.kind === "leak" || f.kind === "plateau").map((f) => f.kind),
      trail,
    ).toEqual([]);
    expect(["stable", "cow"], trail).toContain(doc.verdict.kind);
    expect(doc.verdict.copied?.objects[0], trail).toMatchObject({ name: "__main__.WORDS", how: "reads" });
  });
});
