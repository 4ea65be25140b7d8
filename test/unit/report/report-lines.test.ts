/**
 * Sentences of the report that must fit their subject, on real recordings (fixtures/recordings): copy-on-write advice
 * worded for the parent or for a worker, no hourly rate for a bounded change, PyTorch's usual leaks only where the
 * agent saw torch imported.
 */
import { describe, expect, it } from "vitest";
import { renderVerdict } from "../../../src/report/terminal/verdict-text.js";
import { renderHtml } from "../../../src/report/html/index.js";
import { analyze, docOf } from "../../helpers/analyze.js";
import { formatBytes } from "../../../src/base/units.js";

describe("report lines right for their subject", () => {
  it("copy-on-write advice: the forking parent is not called a worker copying from its parent", async () => {
    const doc = await docOf("fork_cow.jsonl");
    const cow = doc.findings.filter((f) => f.kind === "cow" && f.subject.type === "process");
    const root = cow.find((f) => f.pid === doc.target.pid)!;
    const workers = cow.filter((f) => f.pid !== doc.target.pid);
    expect(root.advice).toMatch(/^Parent PID \d+/);
    expect(root.advice).not.toMatch(/Forked worker|shares with its parent/);
    expect(workers.length).toBeGreaterThan(0);
    for (const w of workers) expect(w.advice).toMatch(/^Forked worker PID \d+[\s\S]*shares with its parent/);
  });

  it.each(["fork_cow.jsonl", "bounded_cache.jsonl"])(
    "%s: a bounded change (copy-on-write, plateau) has no hourly rate",
    async (name) => {
      const { doc, set, commands } = await analyze(name);
      expect(["cow", "plateau"]).toContain(doc.verdict.kind);
      const text = renderVerdict(doc, false, set, 80);
      expect(text).not.toMatch(/^rate: /m);
      expect(text).not.toMatch(/%\/h/);
      // The subjects table's "per hour" column shows a dash for each row judged bounded.
      expect(text).not.toMatch(/ [+-][\d.]+ [KMG]iB +[▁-█]/);
      expect(renderHtml(doc, set, { commands })).not.toMatch(/class="rate"/);
    },
  );

  it("torch advice only where torch was loaded: a leak in a PyTorch program gets it, a plain Python leak does not", async () => {
    const torch = await docOf("torch_losses_leak.jsonl");
    expect(torch.verdict.kind).toBe("leak");
    expect(torch.verdict.advice).toMatch(/PyTorch is loaded in this process[\s\S]*losses\.append\(loss\)/);
    for (const name of ["leak_main.jsonl", "dict_cache_leak.jsonl", "leak_worker.jsonl"]) {
      const doc = await docOf(name);
      expect(doc.verdict.kind).toBe("leak");
      for (const f of [doc.verdict, ...doc.findings])
        expect(f.advice ?? "", `${name}: ${f.summary}`).not.toMatch(/torch|losses\.append|autograd/);
    }
  });

  it("the list-census note says how its bytes stand against the headline growth", async () => {
    const doc = await docOf("bytes_leak_torch.jsonl");
    const note = doc.verdict.caveats.find((c) => c.includes("added over the window"));
    const growth = doc.verdict.evidence.growth as number;
    // The list's items account for 93% of it (its first walk that saw it grow came inside the window: from 0 there).
    expect(note).toMatch(/added over the window, 9\d% of the [\d.]+ [KMG]iB growth$/);
    expect(note).toContain(`of the ${formatBytes(growth)} growth`);
  });
});
