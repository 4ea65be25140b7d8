/**
 * run --trace-python's sites during the run, not only at exit: the agent sends the lines whose allocations grew since
 * warm-up every few seconds, the progress line (the live view's log form) shows them as they come, and a process that
 * ends without atexit (os._exit, so never the final trace) still has them in the verdict, the JSON and the HTML.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { VerdictDocument } from "../../src/analysis/types.js";
import { memleak } from "../helpers/processes.js";

const PROGRAM = "fixtures/scripts/sites_then_os_exit.py";
const SITE_LINE =
  readFileSync(PROGRAM, "utf8")
    .split("\n")
    .findIndex((l) => l.includes("# the growing site")) + 1;

const dir = mkdtempSync(join(tmpdir(), "memleak-sites-live-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("run --trace-python: the growing sites while the run goes on", { timeout: 120_000 }, () => {
  it("shown as they come, and kept when the process ends without its final trace", async () => {
    const html = join(dir, "report.html");
    // Sites every 3 s (10 s by default) after a 2 s warm-up, over a 24 s run: several before the end.
    const r = await memleak(
      [
        "run",
        "--trace-python",
        "--warmup",
        "2",
        "--interval",
        "0.5",
        "--json",
        "--html",
        html,
        "--",
        "python3",
        PROGRAM,
        "24",
      ],
      { MEMLEAK_TRACE_EVERY: "3" },
    );
    const doc = JSON.parse(r.stdout) as VerdictDocument;
    const site = `sites_then_os_exit.py:${SITE_LINE} +`;
    // The progress line (every 10 s in a log) named the line while the program ran.
    const progress = r.stderr.split("\n").filter((l) => l.startsWith("memleak: ") && l.includes(" samples, "));
    expect(
      progress.some((l) => l.includes(`sites ${site}`)),
      r.stderr,
    ).toBe(true);
    // The program never sent its final trace (os._exit): the verdict has the last periodic one, and says so.
    expect(doc.verdict.kind).toBe("leak");
    expect(doc.verdict.sites?.[0], JSON.stringify(doc.verdict.sites)).toMatchObject({
      file: expect.stringMatching(/sites_then_os_exit\.py$/),
      line: SITE_LINE,
    });
    expect(doc.verdict.sites![0]!.sizeDiff).toBeGreaterThan(4 * 1024 * 1024);
    expect(doc.verdict.sitesInterim).toBe(true);
    const page = readFileSync(html, "utf8");
    expect(page).toContain(`sites_then_os_exit.py:${SITE_LINE}</code>`);
    expect(page).toContain("the agent's last periodic report (the process ended without its final one)");
  });
});
