/**
 * The per-test results in every report, from a real `memleak pytest` recording (fixtures/pytest-runs): the document's
 * tests as analyze rebuilds them, the terminal table within the columns, the step summary's table, the HTML's table
 * and timeline boundaries — and a hostile test id made inert in each.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { analyzeRecording } from "../../../../src/recording/replay.js";
import type { SeriesSet } from "../../../../src/series/series.js";
import type { VerdictDocument } from "../../../../src/analysis/types.js";
import { renderHtml } from "../../../../src/report/html/index.js";
import { testsStepSummary } from "../../../../src/report/pytest/summary.js";
import { renderVerdict } from "../../../../src/report/terminal/verdict-text.js";
import { displayWidth } from "../../../../src/report/text-width.js";
import { FIXTURES } from "../../../helpers/fixtures.js";

const RUN = `${FIXTURES}pytest-runs/suite.repeat5-warmup2.jsonl`;
const KiB = 1024;
let doc: VerdictDocument;
let set: SeriesSet;

beforeAll(async () => {
  ({ doc, set } = await analyzeRecording(RUN));
});

const hostile = () => {
  const d = JSON.parse(JSON.stringify(doc)) as VerdictDocument;
  // A ninth test: a copy of the leak, under an id with markup, a pipe, backticks and an escape sequence.
  d.tests!.push({
    ...d.tests!.find((t) => t.kind === "leak" && t.result === "pass")!,
    nodeid: "t.py::test[<img src=x onerror=alert(1)>|`x`\u001b[31m]",
  });
  return d;
};

describe("the tests of a memleak pytest recording", () => {
  it("analyze rebuilds each test from its marks: the leak, the one-off, the test over its limit", () => {
    const t = new Map(doc.tests!.map((x) => [x.nodeid, x]));
    expect(doc.tests).toHaveLength(8);
    expect(t.get("test_growth.py::test_leaks_per_call")).toMatchObject({
      kind: "leak",
      calls: 7,
      warmupCalls: 2,
      result: "pass",
    });
    expect(t.get("test_growth.py::test_leaks_per_call")!.perCall!.mallocInUse).toBe(256 * KiB + 16);
    expect(t.get("test_growth.py::test_fills_cache_once")).toMatchObject({ kind: "one-off", result: "pass" });
    expect(t.get("test_limits.py::test_over_its_limit")).toMatchObject({
      result: "fail",
      limit: { maxGrowth: 1024 * KiB },
    });
    expect(doc.tests!.every((x) => x.end !== undefined && x.end >= x.start)).toBe(true);
  });

  it.each([60, 80, 120])("the terminal table fits %i columns and lists what grew, most serious first", (columns) => {
    const text = renderVerdict(hostile(), false, set, columns);
    for (const line of text.split("\n")) expect(displayWidth(line), line).toBeLessThanOrEqual(columns);
    const table = text.slice(text.indexOf("\ntests ("), text.indexOf("\ngates"));
    expect(table.indexOf("test_over_its_limit")).toBeLessThan(table.indexOf("test_leaks_per_call"));
    expect(table.indexOf("test_leaks_per_call")).toBeLessThan(table.indexOf("test_fills_cache_once"));
    expect(table).not.toMatch(/test_arithmetic/);
    expect(text).not.toMatch(/\u001b/);
  });

  it("the tests come first: the headline is their result, the verdict under it the whole pytest process's", () => {
    const text = renderVerdict(hostile(), false, set, 80);
    const tests = text.indexOf("\ntests (");
    expect(tests).toBeGreaterThan(0);
    expect(tests).toBeLessThan(text.indexOf("the pytest process as a whole"));
    expect(text.indexOf("the pytest process as a whole")).toBeLessThan(text.indexOf("\nwhole process: "));
    expect(text).not.toMatch(/^verdict: /m);
    // Measured over several calls: no word on "grew once".
    expect(text).not.toMatch(/grew once: growth in a single call/);
    // One call each: "grew once" is said as what it is, with the way to a kind.
    const once = hostile();
    once.tests = once.tests!.map((t) => ({ ...t, calls: 1, warmupCalls: 0, kind: "insufficient-data" as const }));
    expect(renderVerdict(once, false, set, 80).replace(/\n +/g, " ")).toContain(
      "grew once: growth in a single call, which cannot tell a leak from a cache filled once (insufficient-data); --repeat 5 tells them apart",
    );
  });

  it("the step summary lists the leaking test with its growth per call, and escapes a hostile id", () => {
    const md = testsStepSummary(hostile());
    expect(md).toMatch(/^#### Tests \(9 tests: .*; 5 measured calls after 2 warm-up\)$/m);
    expect(md).toMatch(
      /^\| <code>test_growth.py::test_leaks_per_call<\/code> \| \*\*leak\*\* \| \+1.75 MiB \| \+256 KiB \| 7 \| – \|$/m,
    );
    expect(md).not.toMatch(/<img|\|`x`/);
  });

  it("the HTML has a table of the tests by growth and their boundaries for the charts, the hostile id escaped", () => {
    const page = renderHtml(hostile(), set);
    expect(page).toMatch(/<h2>Tests by growth<\/h2>/);
    const rows = [...page.matchAll(/<tr class="[a-z]*"><td><code>([^<]*)<\/code>/g)].map((m) => m[1]);
    expect(rows.slice(0, 2)).toEqual(["test_limits.py::test_over_its_limit", "test_limits.py::test_within_its_limit"]);
    expect(page).not.toMatch(/<img src=x/);
    const data = JSON.parse(
      page.match(/<script type="application\/json" id="memleak-data">([^<]*)<\/script>/)![1]!,
    ) as { tests: { start: number; end: number; shaded: boolean; label: string }[] };
    expect(data.tests).toHaveLength(9);
    expect(data.tests.filter((t) => t.shaded).map((t) => t.label)).toContain("test_leaks_per_call");
  });
});

describe("a leaking test's holder in the reports", () => {
  /** The recording's leak, with the holder the plugin names now (the captured run predates it), under a hostile path. */
  const withHolder = (path: string) => {
    const d = JSON.parse(JSON.stringify(doc)) as VerdictDocument;
    d.tests!.find((t) => t.nodeid === "test_growth.py::test_leaks_per_call")!.holder = {
      container: "list of bytearray",
      length: 7,
      found: true,
      path,
    };
    return d;
  };

  it("the terminal table says what holds it, on the line below the test, within the columns", () => {
    const text = renderVerdict(withHolder("test_growth._KEPT"), false, set, 80);
    expect(text).toMatch(
      /test_growth.py::test_leaks_per_call\n {4}held by test_growth._KEPT \(list of bytearray, 7 items\)\n/,
    );
  });

  it("the step summary and the HTML show it escaped", () => {
    const hostilePath = "m.CACHE['<img src=x>|`']";
    const md = testsStepSummary(withHolder(hostilePath));
    expect(md).toContain(
      "<code>test_growth.py::test_leaks_per_call</code><br>held by m.CACHE&#91;'&lt;img src=x&gt;\\|&#96;'&#93; (list of bytearray, 7 items) |",
    );
    const page = renderHtml(withHolder(hostilePath), set, { title: "t" });
    expect(page).toContain(
      '<br><span class="note">held by m.CACHE[&#39;&lt;img src=x&gt;|`&#39;] (list of bytearray, 7 items)</span>',
    );
  });
});
