/**
 * The HTML report in a real browser (Debian's chromium, driven by playwright-core): rendered from a real recording in
 * which one process is named `<img src=x onerror=alert(1)>`, opened from a file:// URL with no network, it shows the
 * verdict, draws every chart, runs no script of the target's and fetches nothing.
 *
 * Needs /usr/bin/chromium (.ci/run installs the chromium package). Without it the test FAILS and says so: a skipped
 * browser test would let a broken report ship.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderHtml } from "../../src/report/html/index.js";
import { analyze, withHostileProcess } from "../helpers/analyze.js";
import { decodePng } from "../helpers/png.js";
import { analyzeRecording } from "../../src/recording/replay.js";
import { FIXTURES } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/temp.js";
import { openInChromium } from "../helpers/chromium.js";

const HOSTILE = "<img src=x onerror=alert(1)>";

interface ChartDrawn {
  id: string;
  canvases: number;
  width: number;
  height: number;
  /** Canvas pixels that are not transparent/white: something was drawn. */
  inked: number;
}

describe("the HTML report in chromium", () => {
  const work = tempDir("html");
  let context: BrowserContext | undefined;
  let page: Page;
  const dialogs: string[] = [];
  const pageErrors: string[] = [];
  const consoleErrors: string[] = [];
  const requests: string[] = [];
  let verdictSummary = "";
  let chartCount = 0;

  beforeAll(async () => {
    const base = await analyze("leak_worker.jsonl");
    const a = withHostileProcess(base, base.doc.verdict.pid!, HOSTILE);
    verdictSummary = a.doc.verdict.summary;
    // With what a --trace-python, gated run adds, so that the page shows (and the tests check) every section.
    const sites = [
      {
        file: "/srv/app/pipeline/preprocess_features_and_cache_them.py",
        line: 118,
        sizeDiff: 41 * 2 ** 20,
        countDiff: 5120,
        size: 44 * 2 ** 20,
      },
    ];
    const gates = [{ name: "fail-on", result: "fail" as const, passed: false, message: "leak found" }];
    const doc = { ...a.doc, verdict: { ...a.doc.verdict, sites }, gates };
    const html = renderHtml(doc, a.set, {
      commands: a.commands,
      settledAt: 12,
      about: { hostname: "ci-runner-7", kernel: "6.1.0" },
    });
    chartCount = (html.match(/"group":"/g) ?? []).length;
    ({ context, page } = await openInChromium(work, html, (p) => {
      p.on("dialog", (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      p.on("pageerror", (e) => pageErrors.push(e.message));
      p.on("console", (m) => {
        if (m.type() === "error") consoleErrors.push(m.text());
      });
      p.on("request", (r) => {
        if (!r.url().startsWith("file:")) requests.push(r.url());
      });
    }));
  });

  afterAll(async () => {
    await context?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it("shows the verdict, its reason and the evidence in the banner", async () => {
    const banner = await page.locator("#verdict").innerText();
    expect(banner).toContain("LEAK");
    expect(banner).toContain(verdictSummary);
    expect(await page.locator(".evidence tr").count()).toBeGreaterThan(5);
    expect(await page.locator(".advice li").count()).toBeGreaterThan(0);
  });

  it("draws every chart: a canvas of non-zero size with lines on it", async () => {
    const drawn: ChartDrawn[] = await page.$$eval("figure.chart", (figures) =>
      figures.map((f) => {
        const canvases = [...f.querySelectorAll("canvas")];
        const c = canvases[0];
        let inked = 0;
        if (c && c.width > 0 && c.height > 0) {
          const px = c.getContext("2d")!.getImageData(0, 0, c.width, c.height).data;
          for (let i = 0; i < px.length; i += 4)
            if (px[i + 3]! > 0 && (px[i]! < 235 || px[i + 1]! < 235 || px[i + 2]! < 235)) inked++;
        }
        return { id: f.id, canvases: canvases.length, width: c?.width ?? 0, height: c?.height ?? 0, inked };
      }),
    );
    expect(drawn).toHaveLength(chartCount);
    for (const d of drawn) {
      expect(d.canvases, d.id).toBe(1);
      expect(d.width, d.id).toBeGreaterThan(100);
      expect(d.height, d.id).toBeGreaterThan(100);
      expect(d.inked, `${d.id} looks blank`).toBeGreaterThan(500);
    }
  });

  it("shows each series' latest value in the legend before the pointer has been over a chart", async () => {
    const values = await page.$$eval("figure.chart .u-legend .u-series:not(.u-off) .u-value", (cells) =>
      cells.map((c) => c.textContent ?? ""),
    );
    expect(values.length).toBeGreaterThan(chartCount * 2);
    expect(values.filter((v) => v === "\u2013" || v === "--" || v === "")).toEqual([]);
  });

  it("shows sizes in the legend when the pointer is over a chart", async () => {
    const plot = page.locator("figure.is-verdict .u-over");
    await plot.scrollIntoViewIfNeeded();
    const box = (await plot.boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2);
    await page.mouse.move(box.x + box.width * 0.8, box.y + box.height / 2, { steps: 5 });
    // uPlot updates the legend on the next animation frame.
    const legend = () =>
      page.$$eval("figure.is-verdict .u-legend .u-series", (rows) =>
        Object.fromEntries(
          rows.map((r) => [
            r.querySelector(".u-label")?.textContent ?? "",
            r.querySelector(".u-value")?.textContent ?? "",
          ]),
        ),
      );
    await expect.poll(async () => (await legend()).anon).toMatch(/^[\d.]+ MiB$/);
    expect((await legend()).time).toMatch(/^[\d.]+s$/);
  });

  it("shows the hostile name as text and runs nothing of it", async () => {
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    expect(await page.locator("img").count()).toBe(0);
    const text = await page.locator("body").innerText();
    expect(text).toContain(HOSTILE);
    expect(dialogs).toEqual([]);
    expect(pageErrors).toEqual([]);
    // A Content-Security-Policy violation (a blocked script or request) is reported as a console error.
    expect(consoleErrors).toEqual([]);
  });

  it("fetches nothing from the network", () => {
    expect(requests).toEqual([]);
  });

  it.each([1280, 800])(
    "at %i px wide: no sideways scrolling, no word cut in a header, a screenshot to look at",
    async (width) => {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForTimeout(300); // the charts re-lay out 100 ms after a resize
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(width);
      // Every word of every header (and of the first column of the findings and gates tables) on one line: a word cut
      // mid-way ("met/ric", "FAI/L") has two client rects.
      const cut = await page.evaluate(() => {
        const broken: string[] = [];
        for (const cell of document.querySelectorAll("th, .others td:first-child, .gates td:first-child")) {
          const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const text = node.textContent ?? "";
            for (const m of text.matchAll(/\S+/g)) {
              const range = document.createRange();
              range.setStart(node, m.index!);
              range.setEnd(node, m.index! + m[0].length);
              const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
              if (lines.size > 1) broken.push(m[0]);
            }
          }
        }
        return broken;
      });
      expect(cut).toEqual([]);
      const shot = join(tempDir("html-shot"), `report-${width}.png`);
      const png = decodePng(await page.screenshot({ path: shot, fullPage: true }));
      expect(png.width).toBe(width);
      console.log(`HTML report screenshot at ${width} px: ${shot}`);
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.waitForTimeout(300);
    },
  );

  it("takes a screenshot a person can look at: the whole page, with the verdict's chart drawn in it", async () => {
    const dir = tempDir("html-shot");
    const path = join(dir, "report.png");
    // Where the page and the verdict's chart are, measured before the capture: restoring the viewport after a
    // full-page capture re-lays the charts out for a moment. fullPage: screenshot pixels are page pixels.
    const size = await page.evaluate(() => ({
      width: document.documentElement.scrollWidth,
      height: document.documentElement.scrollHeight,
    }));
    const chart = await page.$eval("figure.is-verdict canvas", (c) => {
      const r = c.getBoundingClientRect();
      return {
        x: Math.round(r.left + window.scrollX),
        y: Math.round(r.top + window.scrollY),
        width: Math.round(r.width),
        height: Math.round(r.height),
      };
    });
    // The PNG itself is checked, not just the canvas: a page that painted nothing (or a blank capture) fails here.
    const png = decodePng(await page.screenshot({ path, fullPage: true }));
    expect({ width: png.width, height: png.height }).toEqual(size);
    expect(size.width).toBe(1280); // the report fits the viewport's width: no sideways scrolling
    expect(chart.width * chart.height).toBeGreaterThan(100 * 100);
    let inked = 0;
    const colours = new Set<number>();
    for (let y = chart.y; y < chart.y + chart.height; y++) {
      for (let x = chart.x; x < chart.x + chart.width; x++) {
        const [r, g, b] = png.pixel(x, y);
        if (r < 235 || g < 235 || b < 235) inked++;
        colours.add((r << 16) | (g << 8) | b);
      }
    }
    // Lines, fills and grid, anti-aliased in hundreds of shades: the drawn chart inks ~6% of its box in ~800 colours.
    // With its canvas blank, uPlot's DOM overlays (cursor points, markers) alone ink ~0.5% in ~100 colours.
    expect(inked / (chart.width * chart.height), "the verdict's chart looks blank in the screenshot").toBeGreaterThan(
      0.02,
    );
    expect(colours.size).toBeGreaterThan(250);
    console.log(`HTML report screenshot: ${path}`);
  });
});

/**
 * A `memleak pytest` report (fixtures/pytest-runs): the table of the tests by growth, and their boundaries drawn on
 * the chart — the leaking test's span shaded in the leak colour.
 */
describe("the HTML report of a memleak pytest run, in chromium", () => {
  const work = tempDir("html-pytest");
  let context: BrowserContext | undefined;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const { doc, set } = await analyzeRecording(`${FIXTURES}pytest-runs/suite.repeat5-warmup2.jsonl`);
    ({ context, page } = await openInChromium(work, renderHtml(doc, set), (p) =>
      p.on("pageerror", (e) => pageErrors.push(e.message)),
    ));
  });

  afterAll(async () => {
    await context?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it("lists the tests by growth, the leak marked", async () => {
    const rows = await page.$$eval("section.tests tbody tr", (trs) =>
      trs.map((tr) => [...tr.querySelectorAll("td")].slice(0, 2).map((td) => td.textContent)),
    );
    expect(rows).toHaveLength(8);
    expect(rows).toContainEqual(["test_growth.py::test_leaks_per_call", "leak"]);
    expect(rows).toContainEqual(["test_growth.py::test_fills_cache_once", "one-off"]);
    expect(pageErrors).toEqual([]);
  });

  it("shades the tests that grew on the chart, in their kind's colour", async () => {
    // The leak band: rgba(225,87,89,0.18) on the canvas (transparent where nothing else is drawn: the page's white
    // shows through it).
    const leakPixels = await page.$eval("figure.chart canvas", (c) => {
      const px = (c as HTMLCanvasElement)
        .getContext("2d")!
        .getImageData(0, 0, (c as HTMLCanvasElement).width, (c as HTMLCanvasElement).height).data;
      let n = 0;
      for (let i = 0; i < px.length; i += 4)
        if (
          Math.abs(px[i]! - 225) <= 3 &&
          Math.abs(px[i + 1]! - 87) <= 3 &&
          Math.abs(px[i + 2]! - 89) <= 3 &&
          Math.abs(px[i + 3]! - 46) <= 3
        )
          n++;
      return n;
    });
    expect(leakPixels).toBeGreaterThan(500);
    const text = await page.locator("body").innerText();
    expect(text).toContain("Tests by growth");
  });
});
