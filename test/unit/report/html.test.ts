/**
 * The HTML report: one self-contained file, nothing from the target ever becomes markup, every recording renders,
 * and a 72-hour 1 Hz watch renders into a small page (how long it takes: `npm run bench`, sections d and f).
 */
import { describe, expect, it } from "vitest";
import { classify } from "../../../src/report/verdict.js";
import { SeriesBuilder } from "../../../src/series/series.js";
import { renderHtml } from "../../../src/report/html/index.js";
import type { ChartPayload } from "../../../src/report/html/chart-data.js";
import { markdownToHtml } from "../../../src/report/html/markdown.js";
import { scriptJson } from "../../../src/report/html/escape.js";
import { analyze, RECORDINGS, withHostileProcess } from "../../helpers/analyze.js";

const HOSTILE = `<img src=x onerror=alert(1)>`;

/** The page's chart data, as the page itself reads it. */
function payloadOf(html: string): ChartPayload {
  const m = /<script type="application\/json" id="memleak-data">([\s\S]*?)<\/script>/.exec(html);
  if (!m) throw new Error("no chart data in the page");
  return JSON.parse(m[1]!) as ChartPayload;
}

/** The page without its inlined scripts and data: what the browser parses as markup. */
function markupOf(html: string): string {
  return html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, "<script></script>");
}

describe("renderHtml", () => {
  it("shows a hostile process name, command line and summary as text, never as markup", async () => {
    const base = await analyze("leak_worker.jsonl");
    const pid = base.doc.verdict.pid!;
    const a = withHostileProcess(base, pid, HOSTILE);
    const html = renderHtml(a.doc, a.set, { commands: a.commands, title: HOSTILE });
    expect(html).not.toContain("<img");
    expect(markupOf(html)).toContain("&lt;img src=x onerror=alert(1)&gt;");
    // In the data block the name is there, but with `<` escaped, so it cannot close the <script> element.
    const data = /id="memleak-data">([\s\S]*?)<\/script>/.exec(html)![1]!;
    expect(data).not.toContain("<");
    expect(data).toContain("\\u003cimg src=x onerror=alert(1)\\u003e");
    const chart = payloadOf(html).charts.find((c) => c.id.startsWith(`process-${pid}-`))!;
    expect(chart.detail).toBe(`${HOSTILE} ${HOSTILE}`);
  });

  it("cannot be closed early by a name containing </script>", async () => {
    const base = await analyze("leak_worker.jsonl");
    const a = withHostileProcess(base, base.doc.verdict.pid!, "</script><script>alert(1)</script>");
    const html = renderHtml(a.doc, a.set, { commands: a.commands });
    // Exactly our three scripts (data, uPlot, the page's own), each closed once.
    expect(html.match(/<script\b/g)).toHaveLength(3);
    expect(html.match(/<\/script>/g)).toHaveLength(3);
    expect(payloadOf(html).charts.some((c) => c.detail?.includes("</script>"))).toBe(true);
  });

  it("is self-contained: no external scripts, styles, images or links, and a policy that forbids the network", async () => {
    const a = await analyze("fork_cow.jsonl");
    const html = renderHtml(a.doc, a.set, { commands: a.commands });
    expect(html).not.toMatch(/\b(src|href)\s*=\s*["']?\s*(https?:|\/\/)/i);
    expect(html).not.toMatch(/url\(\s*["']?\s*(https?:|\/\/)/i);
    expect(html).not.toMatch(/<link\b|@import/i);
    expect(html).toMatch(
      /<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; script-src &#39;sha256-/,
    );
    expect(html).toContain("uPlot");
  });

  it.each(RECORDINGS)("renders %s with the verdict, its evidence and a chart per subject", async (file) => {
    const a = await analyze(file);
    const html = renderHtml(a.doc, a.set, { commands: a.commands, settledAt: 12 });
    expect(html).toContain(`class="banner kind-${a.doc.verdict.kind}"`);
    expect(html).toContain("<h2>Evidence</h2>");
    const p = payloadOf(html);
    expect(p.settledAt).toBe(12);
    expect(p.warmup).toBe(a.doc.window.warmup);
    const read = [...a.set.processes.values()].filter((ps) =>
      Object.values(ps.metrics).some((c) => c !== undefined && c.length > 0),
    );
    expect(p.charts.filter((c) => c.group === "process")).toHaveLength(read.length);
    expect(p.charts.some((c) => c.group === "cgroup")).toBe(true);
    for (const c of p.charts) {
      expect(c.series.length).toBeGreaterThan(0);
      for (const s of c.series) if (s.values) expect(s.values).toHaveLength(c.xs.length);
    }
    // The chart of the verdict's subject is marked and comes first.
    expect(p.charts[0]!.finding?.isVerdict).toBe(true);
  });

  it("draws the cgroup as a stack of running totals under its usage", async () => {
    const a = await analyze("log_page_cache.jsonl");
    const cg = payloadOf(renderHtml(a.doc, a.set, {})).charts.find((c) => c.group === "cgroup")!;
    const labels = cg.series.map((s) => s.label);
    expect(labels).toEqual(expect.arrayContaining(["anon", "inactive file", "usage", "working set"]));
    const stacked = cg.series.filter((s) => s.fillTo !== undefined);
    const last = cg.xs.length - 1;
    for (let i = 1; i < stacked.length; i++)
      expect(stacked[i]!.values![last]!).toBeGreaterThanOrEqual(stacked[i - 1]!.values![last]!);
  });

  it("renders a 72-hour 1 Hz watch (260k samples) into a page under 1 MB, at most ~2000 points per chart", () => {
    const b = new SeriesBuilder();
    const t0 = 1_700_000_000_000;
    const N = 72 * 3600;
    for (let i = 0; i < N; i++) {
      const spike = i % 9973 === 0 ? 200e6 : 0;
      const anon = 300e6 + i * 100 + spike;
      b.add({
        t: t0 + i * 1000,
        processes: [
          {
            pid: 100,
            ppid: 1,
            starttime: 5,
            comm: "python3",
            rss: anon + 40e6,
            anon,
            ...(i % 30 === 0 && { pss: anon + 20e6, uss: anon }),
          },
          {
            pid: 101,
            ppid: 100,
            starttime: 6,
            comm: "python3",
            rss: 120e6,
            anon: 80e6,
            ...(i % 30 === 15 && { pss: 90e6, uss: 70e6 }),
          },
        ],
        cgroup: {
          usage: anon + 300e6,
          workingSet: anon + 250e6,
          limit: 4 * 2 ** 30,
          kernel: 10e6,
          stat: { anon: anon + 80e6, activeFile: 100e6, inactiveFile: 50e6, shmem: 1e6 },
        },
      });
    }
    const doc = classify({ set: b.set, options: {}, cgroup: { path: "/test", version: 2 }, target: { pid: 100 } });
    const html = renderHtml(doc, b.set, { settledAt: 3600 });
    const p = payloadOf(html);
    for (const c of p.charts) expect(c.xs.length).toBeLessThanOrEqual(2000);
    // Thinning for drawing loses no peak the series holds (the Column has already averaged 260k samples down to
    // ≤ 20k points for the analysis; the chart shows exactly those extremes).
    const proc = p.charts.find((c) => c.id === "process-100-5")!;
    const drawn = proc.series.find((s) => s.label === "anon")!.values!.filter((v) => v !== null) as number[];
    const held = b.set.processes.get("100:5")!.metrics.anon!;
    expect(drawn.reduce((m, v) => Math.max(m, v), 0)).toBe(Math.round(held.ys.reduce((m, v) => Math.max(m, v), 0)));
    expect(drawn.reduce((m, v) => Math.min(m, v), Infinity)).toBe(
      Math.round(held.ys.reduce((m, v) => Math.min(m, v), Infinity)),
    );
    expect(html.length).toBeLessThan(1_000_000);
  });
});

describe("the page reads as prose, not identifiers", () => {
  it("labels evidence keys for people, with the raw key (the JSON's) on hover", async () => {
    const a = await analyze("leak_main.jsonl");
    const html = renderHtml(a.doc, a.set);
    expect(html).toContain('<th scope="row" title="slopeBytesPerSecond">trend (robust slope)</th>');
    expect(html).toContain('<th scope="row" title="pValue">p-value of the trend test</th>');
    expect(html).not.toMatch(/<th scope="row"[^>]*>[a-z]+[A-Z]/); // no camelCase shown
  });

  it("the verdict's process with its whole command line, which the finding cuts at 80 characters", async () => {
    const a = await analyze("leak_main.jsonl");
    const pid = a.doc.verdict.subject.type === "process" ? a.doc.verdict.subject.pid : -1;
    const argv = ["/usr/bin/python3", "train.py", ...Array.from({ length: 12 }, (_, i) => `--option-${i}=value`)];
    const cut = `${"python3 train.py --option-0=value --option-1=value --option-2=value --option-3=val"}…`;
    const doc = { ...a.doc, verdict: { ...a.doc.verdict, subject: { ...a.doc.verdict.subject, command: cut } } };
    const html = renderHtml(doc as typeof a.doc, a.set, { commands: new Map([[pid, argv]]) });
    expect(html).toContain(`<code>${["python3", ...argv.slice(1)].join(" ")}</code></div>`);
    expect(html).not.toContain(cut);
  });

  it("heads the caveats of a verdict it reached 'Caveats', and only those of no verdict 'Could not decide'", async () => {
    const a = await analyze("leak_main.jsonl");
    const decided = { ...a.doc, verdict: { ...a.doc.verdict, confidence: 0.91, caveats: ["called early"] } };
    expect(renderHtml(decided, a.set)).toContain("<h3>Caveats</h3>");
    expect(renderHtml(decided, a.set)).not.toContain("Could not decide");
    const undecided = {
      ...a.doc,
      verdict: { ...a.doc.verdict, kind: "insufficient-data" as const, caveats: ["12 samples"] },
    };
    expect(renderHtml(undecided, a.set)).toContain("<h3>Could not decide</h3>");
  });

  it("lists the allocation sites --trace-python found, escaped", async () => {
    const a = await analyze("leak_main.jsonl");
    const sites = [{ file: "app/<cache>.py", line: 42, sizeDiff: 12 * 2 ** 20, countDiff: 2400, size: 13 * 2 ** 20 }];
    const html = renderHtml({ ...a.doc, verdict: { ...a.doc.verdict, sites } }, a.set);
    expect(html).toContain('<section class="sites" id="sites">');
    expect(html).toContain("<code>app/&lt;cache&gt;.py:42</code>");
    expect(html).toContain("+12.0 MiB");
    expect(renderHtml(a.doc, a.set)).not.toContain('class="sites"');
  });

  it("ends with which memleak wrote it, when, and where the readings were taken", async () => {
    const a = await analyze("leak_main.jsonl");
    const html = renderHtml(a.doc, a.set, {
      about: {
        hostname: "gpu-<7>",
        kernel: "6.1.0",
        startedAt: Date.UTC(2026, 10, 24, 7, 0, 0),
        recordedBy: "0.0.9",
        writtenAt: Date.UTC(2026, 10, 24, 8, 0, 0),
      },
    });
    expect(html).toMatch(
      /<footer class="about">memleak \d+\.\d+\.\d+ · written 2026-11-24T08:00:00Z · readings from 2026-11-24T07:00:00Z · on gpu-&lt;7&gt; \(Linux 6\.1\.0\) · recorded by memleak 0\.0\.9<\/footer>/,
    );
  });

  it("and, for a session's own report, how fresh PSS/USS were and what memleak took", async () => {
    const a = await analyze("leak_main.jsonl");
    const sampling = {
      interval: 1,
      ticks: 60,
      lateTicks: 2,
      pssEvery: 2,
      pssAge: { median: 0.9, max: 2 },
      cpuShare: 0.034,
    };
    const html = renderHtml({ ...a.doc, sampling }, a.set, { about: { writtenAt: Date.UTC(2026, 10, 24, 8, 0, 0) } });
    expect(html).toMatch(
      / · sampling: 60 ticks, 2 late; PSS\/USS at most 2\.0 s old \(median 0\.9 s; --pss-every 2\.0 s\); memleak itself 3\.4% of a core<\/footer>/,
    );
  });
});

describe("the advice's markdown", () => {
  it("renders paragraphs, bullets, code and bold, with everything escaped first", () => {
    const html = markdownToHtml("Run `a<b>` **now**, *really*.\nSame paragraph.\n\n- one <i>\n  continued\n- `x` two");
    expect(html).toBe(
      "<p>Run <code>a&lt;b&gt;</code> <strong>now</strong>, <em>really</em>. Same paragraph.</p>\n<ul><li>one &lt;i&gt; continued</li><li><code>x</code> two</li></ul>",
    );
  });

  it("turns no markdown into a link, an image or raw HTML", () => {
    const html = markdownToHtml(
      '[x](javascript:alert(1)) ![i](http://e/x.png) <script>alert(1)</script> <a href="http://e">',
    );
    expect(html).not.toMatch(/<(a|img|script)\b/);
    expect(html).toContain("&lt;script&gt;");
  });
});

describe("scriptJson", () => {
  it("round-trips through JSON.parse with no < > & or line separators left raw", () => {
    const value = { s: "</script><!-- & \u2028 \u2029 >" };
    const text = scriptJson(value);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual(value);
  });
});

describe("renderHtml with nothing to chart", () => {
  it("renders the verdict of a target that exited before the first sample", () => {
    const set = new SeriesBuilder().set;
    const doc = classify({ set, options: {}, target: { pid: 1 } });
    const html = renderHtml(doc, set, {});
    expect(html).toContain("kind-insufficient-data");
    expect(payloadOf(html).charts).toEqual([]);
  });
});
