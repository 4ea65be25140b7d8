/**
 * `memleak watch PID --trace-python`: tracemalloc started in a running program for a bounded window, the sites whose
 * allocations grew reported with what the window cost the program, then tracemalloc stopped — the program itself
 * says when it saw tracemalloc on and off. The program is a view memoising 6 KB pages in a module-level dict: Python
 * objects held by that dict (named as its holder), not the native heap, though strings that size live in malloc.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { VerdictDocument } from "../../src/analysis/types.js";
import { memleak, startReady, type Started } from "../helpers/processes.js";

const started: Started[] = [];
afterAll(async () => {
  for (const s of started) await s.stop();
});

// The two watches run side by side (two programs of their own, ~20 s saved): the window's cost is only checked to be
// reported, not measured against a bound another program could push it over.
describe.concurrent("watch --trace-python", { timeout: 150_000 }, () => {
  it("traces a running program for the window, reports the line that grew and the cost, and stops tracemalloc", async () => {
    const target = await startReady(["python3", "-u", "fixtures/holder/memo_pages.py", "120"], /^ready$/m);
    started.push(target);
    const r = await memleak([
      "watch",
      String(target.pid),
      "--duration",
      "30",
      "--interval",
      "0.5",
      "--trace-python",
      "--trace-window",
      "15s",
      "--json",
    ]);
    expect(r.stdout, r.stderr).not.toBe("");
    const doc = JSON.parse(r.stdout) as VerdictDocument;
    const v = doc.verdict;
    expect(v.kind, JSON.stringify(v)).toBe("leak");
    // The line that stores each rendered page in the dict (memo_pages.py:17).
    expect(v.sites?.[0], JSON.stringify(v.sites)).toMatchObject({
      file: expect.stringMatching(/fixtures\/holder\/memo_pages\.py$/),
      line: 17,
    });
    expect(v.sites![0]!.sizeDiff).toBeGreaterThan(2 * 2 ** 20);
    // The window's length as asked (the agent's clock; a loaded machine stretches it a little), and what it cost.
    expect(v.evidence.traceWindowSeconds as number).toBeGreaterThanOrEqual(15);
    expect(v.evidence.traceWindowSeconds as number).toBeLessThan(20);
    expect(v.evidence.tracemallocBytes as number).toBeGreaterThan(0);
    expect(typeof v.evidence.traceCpuShare).toBe("number");
    expect(typeof v.evidence.traceCpuShareBefore).toBe("number");
    expect(v.evidence.layer).toMatch(/^Python objects/);
    expect(v.holder, JSON.stringify(v.holder)).toMatchObject({
      found: true,
      path: "__main__.PAGES",
      container: "dict of str",
    });
    // Started and stopped, as the program saw it; still running after memleak left.
    expect(target.output()).toBe("ready\ntracing on\ntracing off\n");
    expect(target.child.exitCode).toBeNull();
  });

  it("without --trace-python a watch never starts tracemalloc; the dict of pages is still Python objects, not the native heap", async () => {
    const target = await startReady(["python3", "-u", "fixtures/holder/memo_pages.py", "120"], /^ready$/m);
    started.push(target);
    const r = await memleak(["watch", String(target.pid), "--duration", "20", "--interval", "0.5", "--json"]);
    const doc = JSON.parse(r.stdout) as VerdictDocument;
    expect(doc.verdict, JSON.stringify(doc.verdict)).toMatchObject({
      kind: "leak",
      evidence: { layer: "Python objects", holder: "__main__.PAGES" },
    });
    expect(doc.verdict.sites).toBeUndefined();
    expect(target.output()).toBe("ready\n");
  });
});
