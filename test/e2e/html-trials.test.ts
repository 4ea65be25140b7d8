/**
 * `run --try … --html` in a real browser (Debian's chromium): the page of three real trials of thread_arenas.py
 * (fixtures/trials/arenas.*.jsonl, recorded by `memleak run --try`) shows the answer and the table, draws the
 * settings' curves on one chart per measure with each setting in the legend, runs no script but its own and fetches
 * nothing.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareRuns } from "../../src/trial/compare.js";
import { renderTrialsHtml } from "../../src/report/html/trials-page.js";
import { tempDir } from "../helpers/temp.js";
import { openInChromium } from "../helpers/chromium.js";
import { arenaTrials } from "../helpers/trials.js";

describe("run --try's HTML page in chromium", () => {
  const work = tempDir("html-trials");
  let context: BrowserContext | undefined;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    const runs = await arenaTrials();
    const html = renderTrialsHtml(
      compareRuns(runs),
      "python3 fixtures/scenarios/thread_arenas.py 20",
      runs.map((r) => r.set),
      { hostname: "ci-runner-7", kernel: "6.1.0" },
    );
    ({ context, page } = await openInChromium(work, html, (p) => {
      p.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
      p.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
      p.on("request", (r) => !r.url().startsWith("file:") && problems.push(`request: ${r.url()}`));
      p.on("dialog", (d) => problems.push(`dialog: ${d.message()}`));
    }));
  });

  afterAll(async () => {
    await context?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it("says which setting to use, how to keep it, and what each did", async () => {
    const banner = await page.locator("section.banner").innerText();
    expect(banner).toMatch(/^USE TRIM=2|^use trim=2/);
    expect(banner).toContain('to keep it: ctypes.CDLL("libc.so.6").malloc_trim(0) every 2 s in the program');
    const rows = await page.$$eval("table.trials tbody tr", (trs) =>
      trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent ?? "")),
    );
    expect(rows.map((r) => [r[0], r[6]!.split(":")[0]])).toEqual([
      ["as it is", "baseline"],
      ["MALLOC_ARENA_MAX=2", "helps"],
      ["trim=2", "helps"],
    ]);
  });

  it("draws the settings' curves on one chart per measure, each setting in its legend", async () => {
    const charts = await page.$$eval("figure.chart", (figures) =>
      figures.map((f) => {
        const c = f.querySelector("canvas");
        let inked = 0;
        if (c && c.width > 0 && c.height > 0) {
          const px = c.getContext("2d")!.getImageData(0, 0, c.width, c.height).data;
          for (let i = 0; i < px.length; i += 4)
            if (px[i + 3]! > 0 && (px[i]! < 235 || px[i + 1]! < 235 || px[i + 2]! < 235)) inked++;
        }
        const legend = [...f.querySelectorAll(".u-legend .u-series .u-label")].map((l) => l.textContent ?? "");
        return { id: f.id, inked, legend };
      }),
    );
    expect(charts.map((c) => c.id)).toEqual(["chart-trials-tree", "chart-trials-cgroup"]);
    for (const c of charts) {
      expect(c.legend, c.id).toEqual(expect.arrayContaining(["as it is", "MALLOC_ARENA_MAX=2", "trim=2"]));
      expect(c.inked, `${c.id} looks blank`).toBeGreaterThan(500);
    }
  });

  it("takes a screenshot a person can look at: no sideways scrolling at 1280 px", async () => {
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(1280);
    const shot = join(tempDir("html-trials-shot"), "trials.png");
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`run --try page screenshot: ${shot}`);
  });

  it("runs no script of its own beyond memleak's, and fetches nothing", () => {
    expect(problems).toEqual([]);
  });
});
