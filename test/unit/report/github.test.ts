import { describe, expect, it } from "vitest";
import { annotations, escapeData, stepSummary } from "../../../src/report/github.js";
import type { VerdictDocument } from "../../../src/analysis/types.js";

describe("GitHub Actions output", () => {
  const doc = {
    schema: "memleak.verdict/1",
    verdict: {
      kind: "leak",
      confidence: 0.9,
      subject: { type: "tree", processes: 2 },
      metric: "pss",
      summary: "grows | 100%\nfast",
      evidence: {},
      advice: "do x",
      caveats: [],
    },
    findings: [],
    target: { pid: 1, command: ["python", "a|b.py"] },
    window: { start: 0, end: 10, warmup: 0, samples: 10, interval: 1 },
    gates: [{ name: "max-growth", result: "fail", passed: false, message: "tree grew 60% of\nlimit" }],
  } as unknown as VerdictDocument;

  it("escapes %, CR and LF in workflow commands", () => {
    expect(escapeData("a%b\r\nc")).toBe("a%25b%0D%0Ac");
    expect(annotations(doc)).toBe(
      "::error title=memleak max-growth::tree grew 60% of%0Alimit\n".replace("60%", "60%25"),
    );
  });

  it("the step summary keeps table cells on one line and escapes pipes", () => {
    const md = stepSummary(doc);
    expect(md).toContain("### memleak: leak — <code>python a\\|b.py</code>");
    expect(md).toContain("| max-growth | **FAIL** | tree grew 60% of limit |");
  });

  it("an inconclusive gate is a ::warning and 'inconclusive' in the summary; under --strict, an error", () => {
    const gates = [
      { name: "fail-on", result: "inconclusive", passed: true, message: "no leak found, but nothing could be judged" },
    ];
    const warned = {
      ...doc,
      verdict: { ...doc.verdict, kind: "insufficient-data" },
      gates,
    } as unknown as VerdictDocument;
    expect(annotations(warned)).toBe(
      "::warning title=memleak fail-on inconclusive::no leak found, but nothing could be judged\n",
    );
    expect(stepSummary(warned)).toContain("| fail-on | inconclusive ⚠️ | no leak found, but nothing could be judged |");
    const strict = { ...warned, gates: [{ ...gates[0], passed: false }] } as unknown as VerdictDocument;
    expect(annotations(strict)).toMatch(/^::error title=memleak fail-on::/);
    expect(stepSummary(strict)).toContain("| fail-on | **inconclusive (strict)** |");
  });

  it("points the annotation at the allocation site when it is inside the checkout (file=, line=, escaped)", () => {
    const site = (file: string) =>
      ({
        ...doc,
        verdict: { ...doc.verdict, sites: [{ file, line: 13, sizeDiff: 1, countDiff: 1, size: 1 }] },
      }) as unknown as VerdictDocument;
    expect(annotations(site("/home/runner/work/app/app/src/cache,v2.py"), "/home/runner/work/app/app")).toMatch(
      /^::error file=src\/cache%2Cv2\.py,line=13,title=memleak max-growth::/,
    );
    // site-packages, or no workspace: no file= (GitHub would attach it to nothing)
    expect(annotations(site("/usr/lib/python3/dist-packages/x.py"), "/home/runner/work/app/app")).toMatch(
      /^::error title=/,
    );
    expect(annotations(site("/home/runner/work/app/app/a.py"))).toMatch(/^::error title=/);
  });

  it("a holder's root assigned in the checkout: the annotations point there without a site; with one, a notice names it there", () => {
    const ws = "/home/runner/work/app/app";
    const holder = {
      container: "dict of str",
      length: 644,
      found: true,
      path: "views.PAGES",
      root: "module global",
      hops: [],
      where: { file: `${ws}/app/views.py`, line: 10 },
      search: { levels: 1, calls: 1, objects: 1, ms: 1, longestPauseMs: 1 },
    };
    const held = {
      ...doc,
      gates: [],
      verdict: { ...doc.verdict, summary: "leaks", holder },
    } as unknown as VerdictDocument;
    expect(annotations(held, ws)).toBe("::warning file=app/views.py,line=10,title=memleak::leaks\n");
    const gated = { ...held, gates: doc.gates } as unknown as VerdictDocument;
    expect(annotations(gated, ws)).toMatch(/^::error file=app\/views\.py,line=10,title=memleak max-growth::/);
    const sited = {
      ...held,
      verdict: {
        ...held.verdict,
        sites: [{ file: `${ws}/app/render.py`, line: 22, sizeDiff: 1, countDiff: 1, size: 1 }],
      },
    } as unknown as VerdictDocument;
    expect(annotations(sited, ws)).toBe(
      "::warning file=app/render.py,line=22,title=memleak::leaks\n::notice file=app/views.py,line=10,title=memleak%3A what holds the leak::views.PAGES (dict of str, 644 items)\n",
    );
    // Outside the checkout, or not found: nowhere to point.
    const outside = {
      ...held,
      verdict: {
        ...held.verdict,
        holder: { ...holder, where: { file: "/usr/lib/python3/dist-packages/x.py", line: 3 } },
      },
    } as unknown as VerdictDocument;
    expect(annotations(outside, ws)).toBe("::warning title=memleak::leaks\n");
    const notFound = {
      ...held,
      verdict: { ...held.verdict, holder: { ...holder, found: false } },
    } as unknown as VerdictDocument;
    expect(annotations(notFound, ws)).toBe("::warning title=memleak::leaks\n");
  });

  it("argv and names from the target are inert in the step summary and in the stderr lines", () => {
    const hostile = {
      ...doc,
      target: {
        pid: 1,
        command: ["python", "x`<img src=x onerror=alert(1)>`[a](http://e)\u001b[31m", "y".repeat(10_000)],
      },
      verdict: { ...doc.verdict, summary: "PID 7 (evil\n::error::pwned) grows" },
    } as unknown as VerdictDocument;
    const md = stepSummary(hostile);
    const heading = md.split("\n")[0]!;
    expect(heading).not.toMatch(/[`\u001b]/);
    expect(heading).not.toContain("<img");
    expect(heading).not.toContain("](");
    expect(heading).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(heading.length).toBeLessThan(300);
    expect(md).not.toContain("\n::error::");
    expect(md).toContain("PID 7 (evil ::error::pwned) grows");
  });
});
