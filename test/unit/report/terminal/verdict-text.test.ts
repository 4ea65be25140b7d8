/**
 * The terminal report fits the terminal: no line over `columns` on any real recording, with and without colour,
 * with the series (table + sparklines) or the document alone, and with hostile process names.
 */
import { formatBytes } from "../../../../src/base/units.js";
import { describe, expect, it } from "vitest";
import { renderVerdict } from "../../../../src/report/terminal/verdict-text.js";
import { displayWidth, wrap } from "../../../../src/report/text-width.js";
import { sparkline } from "../../../../src/report/sparkline.js";
import { analyze, RECORDINGS, withHostileProcess } from "../../../helpers/analyze.js";

const ANSI = /\u001b\[[0-9;]*m/;

function widest(text: string): { width: number; line: string } {
  return text
    .split("\n")
    .map((line) => ({ width: displayWidth(line), line }))
    .reduce((a, b) => (b.width > a.width ? b : a), { width: 0, line: "" });
}

describe("renderVerdict", () => {
  it.each(RECORDINGS)("%s: every line fits 80 columns, with and without colour and series", async (file) => {
    const { doc, set } = await analyze(file);
    for (const text of [
      renderVerdict(doc, false, set),
      renderVerdict(doc, true, set),
      renderVerdict(doc, false),
      renderVerdict(doc, false, set, 80, true),
    ]) {
      const w = widest(text);
      expect(w.width, `too wide: ${JSON.stringify(w.line)}`).toBeLessThanOrEqual(80);
    }
  });

  it.each([60, 100, 132])("fits %i columns too", async (columns) => {
    for (const file of RECORDINGS) {
      const { doc, set } = await analyze(file);
      expect(widest(renderVerdict(doc, true, set, columns)).width).toBeLessThanOrEqual(columns);
    }
  });

  it("shows a table of the subjects with the deciding metric's numbers and a sparkline", async () => {
    const { doc, set } = await analyze("leak_worker.jsonl");
    const text = renderVerdict(doc, false, set);
    const lines = text.split("\n");
    expect(lines.some((l) => /^subject\s+metric\s+start\s+end\s+peak\s+growth\s+per hour\s+trend$/.test(l))).toBe(true);
    const worker = lines.find((l) => l.includes(`└ ${doc.verdict.pid}`))!;
    // The row shows the deciding finding's own evidence, formatted, then the rate per hour and a sparkline.
    const e = doc.verdict.evidence as Record<string, number>;
    const esc = (v: number) => formatBytes(v).replace(/[.+]/g, "\\$&");
    const perHour = formatBytes(doc.verdict.rate!.bytesPerSecond * 3600).replace(/[.+]/g, "\\$&");
    expect(worker).toMatch(
      new RegExp(
        `anon\\s+${esc(e.start!)}\\s+${esc(e.end!)}\\s+${esc(e.peak!)}\\s+\\+${esc(e.growth!)}\\s+\\+${perHour}\\s+[▁▂▃▄▅▆▇█]{6,}$`,
      ),
    );
    expect(lines.some((l) => /^tree \(3\)\s+pss/.test(l))).toBe(true);
    expect(lines.some((l) => /^cgroup\s+cgroup/.test(l))).toBe(true);
    expect(text).toContain("verdict: LEAK");
    expect(text).toContain("what to do");
  });

  it("uses no colour codes when colour is off, and colours the verdict when on", async () => {
    const { doc, set } = await analyze("log_page_cache.jsonl");
    expect(renderVerdict(doc, false, set)).not.toMatch(ANSI);
    expect(renderVerdict(doc, true, set)).toMatch(ANSI);
  });

  it("shows control characters from the target escaped, and still fits", async () => {
    const base = await analyze("leak_worker.jsonl");
    const a = withHostileProcess(base, base.doc.verdict.pid!, "evil\u001b[2J\u001b]0;pwned\u0007" + "x".repeat(200));
    const text = renderVerdict(a.doc, false, a.set);
    expect(text).not.toContain("\u001b");
    expect(text).not.toContain("\u0007");
    expect(text).toContain("\\x1b[2J");
    expect(widest(text).width).toBeLessThanOrEqual(80);
  });
});

describe("wrap", () => {
  it("breaks at spaces, keeps a number with its unit, and cuts a word longer than the line", () => {
    expect(wrap("grew from 10.2 MiB to 54.1 MiB", 17)).toEqual(["grew from", "10.2 MiB to", "54.1 MiB"]);
    expect(wrap("/a/very/long/cgroup/path/that/goes/on", 10, "  ", "    ")).toEqual([
      "  /a/very/",
      "    long/c",
      "    group/",
      "    path/t",
      "    hat/go",
      "    es/on",
    ]);
  });
});

describe("sparkline", () => {
  it("scales to the series' own range, or to at least minSpan", () => {
    expect(sparkline([0, 1, 2, 3, 4, 5, 6, 7], 8)).toBe("▁▂▃▄▅▆▇█");
    expect(sparkline([100, 101, 100, 101], 4, false, 100)).toBe("▁▁▁▁");
    expect(sparkline([0, 7], 2, true)).toBe("_@");
    expect(sparkline([], 10)).toBe("");
  });

  it("a stable process shows no rate per hour: its slope is noise, and +24 MiB/h beside 'stable' alarms", async () => {
    const { doc, set } = await analyze("leak_worker.jsonl");
    const stable = doc.findings.find((f) => f.kind === "stable" && f.subject.type === "process")!;
    expect(stable.rate).toBeDefined();
    const row = renderVerdict(doc, false, set, 132)
      .split("\n")
      .find((l) => l.includes(`└ ${stable.pid}`) || l.startsWith(`PID ${stable.pid}`))!;
    // subject, metric, start, end, peak, growth, then "–" where the rate per hour would be
    expect(row).toMatch(/^\S.*\s[+-]?[\d.]+ (B|KiB|MiB)\s+–(\s|$)/);
    // Nor a hill for a trend: its sparkline is scaled to at least the growth floor, so its noise draws flat.
    expect(row, row).toMatch(/ ▁+$/);
  });
});

describe("how the readings were taken (a session's own report)", () => {
  const sampling = {
    interval: 1,
    ticks: 301,
    lateTicks: 0,
    pssEvery: 2,
    pssAge: { median: 0.1, max: 1 },
    cpuShare: 0.0182,
  };

  it("says how old PSS/USS were and what memleak took, under the first line, within 60 columns", async () => {
    const { doc, set } = await analyze("leak_worker.jsonl");
    const text = renderVerdict({ ...doc, sampling }, false, set, 60);
    const head = text.split("\n").slice(0, 4).join(" ").replace(/\s+/g, " ");
    expect(head).toContain(
      "sampling: 301 ticks, none late; PSS/USS at most 1.0 s old (median 0.1 s; --pss-every 2.0 s); memleak itself 1.8% of a core",
    );
    expect(widest(text).width).toBeLessThanOrEqual(60);
  });

  it("counts late ticks, and says so when PSS/USS were never read", async () => {
    const { doc } = await analyze("leak_worker.jsonl");
    const text = renderVerdict(
      { ...doc, sampling: { ...sampling, lateTicks: 7, pssAge: undefined } },
      false,
      undefined,
      200,
    );
    expect(text).toContain("sampling: 301 ticks, 7 late; no PSS/USS read");
    const idle = renderVerdict({ ...doc, sampling: { ...sampling, cpuShare: 0.0004 } }, false, undefined, 200);
    expect(idle).toContain("memleak itself <0.1% of a core");
    const short = renderVerdict(
      { ...doc, sampling: { ...sampling, pssAge: { median: 0, max: 0 } } },
      false,
      undefined,
      200,
    );
    expect(short).toContain(
      "sampling: 301 ticks, none late; PSS/USS read at every tick; memleak itself 1.8% of a core",
    );
  });

  it("where watch left Pythons to /proc: where its agents were and why, and how many were read from /proc", async () => {
    const { doc } = await analyze("leak_worker.jsonl");
    const agents = {
      max: 4,
      in: [
        { pid: 800, reason: "watched" as const, siblings: 1 },
        { pid: 812, reason: "grows" as const, siblings: 64 },
        { pid: 801, reason: "represents" as const, siblings: 64 },
        { pid: 802, reason: "sibling" as const, siblings: 64 },
      ],
      readFromProc: 61,
    };
    const text = renderVerdict({ ...doc, sampling: { ...sampling, agents } }, false, undefined, 400);
    expect(text).toContain(
      "memleak itself 1.8% of a core; agents in PID 800 (watched), PID 812 (grows), PID 801 (for 64 siblings), PID 802 (a free slot); 61 Python processes read from /proc (--max-agents 4)",
    );
    // a tree within the limit (an agent in every Python) says nothing of it
    const all = renderVerdict({ ...doc, sampling: { ...sampling, agents: { ...agents, readFromProc: 0 } } }, false);
    expect(all).not.toContain("read from /proc");
  });

  it("is not there for a re-analyzed recording, which has no such facts", async () => {
    const { doc, set } = await analyze("leak_worker.jsonl");
    expect(doc.sampling).toBeUndefined();
    expect(renderVerdict(doc, false, set)).not.toContain("sampling:");
  });
});

describe("several causes in one subject (issue 27)", () => {
  it("a leak hidden in retained heap: its row draws the live heap, and the fragmentation beside it is listed once", async () => {
    const { doc, set } = await analyze("frag_and_leak.jsonl");
    const text = renderVerdict(doc, false, set, 80);
    const row = text.split("\n").find((l) => l.startsWith(`PID ${doc.verdict.pid}`))!;
    expect(row).toMatch(/heap-live .*[▁▂▃▄▅▆▇█]{8,}/);
    const others = text.slice(text.indexOf("other findings"));
    expect(others.match(/^ {2}fragmentation /gm)).toHaveLength(1);
  });

  it("a leaking worker that copies: its copying is listed with the other findings, worded beside its growth", async () => {
    const { doc, set } = await analyze("cow_and_leak.jsonl");
    const text = renderVerdict(doc, false, set, 80).replace(/\s+/g, " ");
    expect(text).toContain(
      `PID ${doc.verdict.pid} (python3 fixtures/scenarios/cow_and_leak.py 40): besides its own growth, it copies pages shared with its parent`,
    );
  });
});
