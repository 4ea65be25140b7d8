/**
 * `memleak pytest` end to end: the real plugin in a real pytest (Debian's python3-pytest, for /usr/bin/python3) on the
 * suite in fixtures/pytest-suite, under the same machinery as `memleak run`. The leaking test is named, and only it,
 * with its growth per call; the cache filled once is a one-off; a per-test limit fails exactly the test over it, in
 * pytest's own failure output, and memleak exits 1; bad input gets one clear line.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import type { VerdictDocument } from "../../src/analysis/types.js";
import { REPO } from "../helpers/fixtures.js";
import { execFileP, memleak, SYSTEM_PYTHON } from "../helpers/processes.js";
import { tempDir } from "../helpers/temp.js";

const KiB = 1024;
const SUITE = "fixtures/pytest-suite";
const pytest = (options: string[], pytestArgs: string[], env: NodeJS.ProcessEnv = {}) =>
  memleak(["pytest", "--python", SYSTEM_PYTHON, "--interval", "0.2", ...options, "--", ...pytestArgs], env);

const schema = JSON.parse(readFileSync(`${REPO}schema/verdict.schema.json`, "utf8")) as Record<string, unknown>;
const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
const validate = ajv.compile(schema);

const byId = (doc: VerdictDocument) => new Map((doc.tests ?? []).map((t) => [t.nodeid, t] as const));
const kinds = (doc: VerdictDocument) => (doc.tests ?? []).map((t) => [t.nodeid, t.kind]);

describe.concurrent("memleak pytest", () => {
  it("with repeats, names the test that leaks per call and only it, with its growth per call; the cache filled once is a one-off", async () => {
    const dir = tempDir("memleak-pytest-");
    const summary = join(dir, "summary.md");
    writeFileSync(summary, "");
    const r = await pytest(
      ["--repeat", "5", "--warmup-calls", "2", "--json"],
      [`${SUITE}/test_steady.py`, `${SUITE}/test_growth.py`],
      { GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: summary },
    );
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as VerdictDocument;
    expect(validate(doc), ajv.errorsText(validate.errors)).toBe(true);
    const tests = byId(doc);
    expect(tests.size, JSON.stringify(kinds(doc))).toBe(5);
    const leaks = doc.tests!.filter((t) => t.kind === "leak").map((t) => t.nodeid);
    expect(leaks, JSON.stringify(kinds(doc))).toEqual(["test_growth.py::test_leaks_per_call"]);
    const leak = tests.get("test_growth.py::test_leaks_per_call")!;
    expect(leak).toMatchObject({ calls: 7, warmupCalls: 2, result: "pass" });
    // 256 KiB kept per call: malloc's in-use bytes say so to within a few hundred bytes.
    expect(leak.perCall!.mallocInUse!).toBeGreaterThanOrEqual(256 * KiB);
    expect(leak.perCall!.mallocInUse!).toBeLessThan(260 * KiB);
    expect(leak.perCallBytes!).toBeGreaterThanOrEqual(256 * KiB);
    // What it kept filling, and what holds it: the module's list, 7 buffers after 7 calls.
    expect(leak.holder).toEqual({ container: "list of bytearray", length: 7, found: true, path: "test_growth._KEPT" });
    const cache = tests.get("test_growth.py::test_fills_cache_once")!;
    expect(cache.kind).toBe("one-off");
    expect(cache.holder).toBeUndefined(); // a one-off: no holder looked for
    expect(cache.growth!.mallocInUse!).toBeGreaterThan(4000 * KiB);
    expect(cache.perCall!.mallocInUse!).toBeLessThan(4 * KiB);
    expect(tests.get("test_steady.py::test_arithmetic")!.kind).toBe("stable");
    // Each test's boundaries, in order, on the document's time axis.
    for (const t of doc.tests!) expect(t.end!).toBeGreaterThanOrEqual(t.start);
    // The step summary lists the leaking test, and not the steady ones.
    const md = readFileSync(summary, "utf8");
    expect(md).toMatch(
      /\| <code>test_growth.py::test_leaks_per_call<\/code><br>held by test_growth._KEPT \(list of bytearray, 7 items\) \| \*\*leak\*\* \| \+[\d.]+ MiB \| \+2[56]\d KiB \| 7 \| – \|/,
    );
    expect(md).not.toMatch(/test_arithmetic/);
    expect(md).toContain(
      "<code>test_growth.py::test_leaks_per_call</code><br>held by test_growth.\_KEPT (list of bytearray, 7 items)",
    );
  });

  it("a per-test limit fails exactly the test over it, with pytest's own failure output, and memleak exits 1", async () => {
    const r = await pytest([], [`${SUITE}/test_limits.py`]);
    expect(r.code, r.stderr).toBe(1);
    // pytest's report: the test over its limit is its failure; the two within theirs pass. It kept 3 MiB; malloc's
    // in-use bytes also move by some KiB of the interpreter's own during the test (+2.99 MiB seen): 2.95-3.05 MiB.
    expect(r.stdout).toMatch(
      /_+ test_over_its_limit _+\nmemleak: grew \+(2\.9[5-9]|3\.0[0-5]) MiB, over its max_growth of \+1\.00 MiB \(insufficient-data; /,
    );
    expect(r.stdout).toMatch(/1 failed, 2 passed/);
    expect(r.stdout.match(/^FAILED .*/gm)).toEqual([
      "FAILED fixtures/pytest-suite/test_limits.py::test_over_its_limit",
    ]);
    // memleak's report: the table, the gate, the one line on stderr.
    const table = r.stdout.slice(r.stdout.indexOf("\ntests ("));
    // The same 2.95-3.05 MiB as above, in the table (+2.99 MiB in a CI run).
    expect(table).toMatch(/grew once\s+\+(2\.9[5-9]|3\.0[0-5]) MiB\s+–\s+FAIL\s+test_limits.py::test_over_its_limit/);
    expect(table).toMatch(/grew once\s+\+(0\.9[5-9]|1\.0[0-5]) MiB\s+–\s+pass\s+test_limits.py::test_within_its_limit/);
    for (const line of table.split("\n")) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(r.stderr).toMatch(
      /^memleak: gate test-limits failed: 1 test over its memory limit: test_limits.py::test_over_its_limit/m,
    );
  });

  it("--max-leak-per-call repeats the tests itself and fails the leak only, not the cache filled once", async () => {
    const r = await pytest(["--max-leak-per-call", "100KiB", "--json"], [`${SUITE}/test_growth.py`]);
    expect(r.code, r.stderr).toBe(1);
    const tests = byId(JSON.parse(r.stdout) as VerdictDocument);
    expect(tests.get("test_growth.py::test_leaks_per_call")).toMatchObject({
      kind: "leak",
      result: "fail",
      calls: 4,
      warmupCalls: 1,
      limit: { maxLeakPerCall: 100 * KiB },
    });
    expect(tests.get("test_growth.py::test_fills_cache_once")).toMatchObject({ kind: "one-off", result: "pass" });
    expect(r.stderr).toMatch(
      /_+ test_leaks_per_call _+\nmemleak: leaks \+2[56]\d KiB per call, over its max_leak_per_call of \+100 KiB \(leak; /,
    );
    expect(r.stderr.match(/^FAILED .*/gm)).toEqual([
      "FAILED fixtures/pytest-suite/test_growth.py::test_leaks_per_call",
    ]);
  });

  it("marks each test in the recording: analyze gives the same tests, and the HTML shows their table and boundaries", async () => {
    const dir = tempDir("memleak-pytest-");
    const rec = join(dir, "suite.jsonl");
    const html = join(dir, "suite.html");
    const r = await pytest(
      ["--repeat", "3", "--warmup-calls", "1", "--record", rec, "--json"],
      [`${SUITE}/test_growth.py`],
    );
    expect(r.code, r.stderr).toBe(0);
    const live = JSON.parse(r.stdout) as VerdictDocument;
    const events = readFileSync(rec, "utf8")
      .split("\n")
      .filter((l) => /"event":"test-(start|end)"/.test(l));
    expect(events).toHaveLength(4);
    const a = await memleak(["analyze", rec, "--json", "--html", html]);
    const replayed = JSON.parse(a.stdout) as VerdictDocument;
    expect(kinds(replayed)).toEqual(kinds(live));
    expect(replayed.tests).toEqual(live.tests);
    const page = readFileSync(html, "utf8");
    expect(page).toMatch(/<h2>Tests by growth<\/h2>/);
    expect(page).toMatch(
      /<tr class="leak"><td><code>test_growth.py::test_leaks_per_call<\/code><br><span class="note">held by test_growth._KEPT \(list of bytearray, \d+ items\)<\/span><\/td><td>leak<\/td>/,
    );
    const data = JSON.parse(
      page.match(/<script type="application\/json" id="memleak-data">([^<]*)<\/script>/)![1]!,
    ) as { tests: { label: string; kind: string }[] };
    expect(data.tests.map((t) => [t.label, t.kind])).toEqual([
      ["test_leaks_per_call", "leak"],
      ["test_fills_cache_once", "one-off"],
    ]);
  });

  it("names the test that was running when the interpreter died", async () => {
    const r = await pytest(["--json"], [`${SUITE}/crash/test_crash.py`]);
    expect(r.code).toBe(134); // 128 + SIGABRT, as a shell reports it
    expect(r.stderr).toMatch(
      /^memleak: the interpreter was killed by SIGABRT while running crash\/test_crash.py::test_aborts$/m,
    );
    const doc = JSON.parse(r.stdout) as VerdictDocument;
    expect(doc.tests!.map((t) => [t.nodeid, t.result])).toEqual([
      ["crash/test_crash.py::test_before", "pass"],
      ["crash/test_crash.py::test_aborts", "crashed"],
    ]);
  });
});

describe.concurrent("memleak pytest: bad input", () => {
  it("a marker with an unknown argument stops pytest before any test runs, naming the test and the argument", async () => {
    const r = await pytest([], [`${SUITE}/bad/test_unknown_marker_argument.py`]);
    expect(r.code).toBe(4); // pytest's usage error, passed through
    expect(r.stdout + r.stderr).toMatch(
      /ERROR: memleak: bad\/test_unknown_marker_argument.py::test_typo: @pytest.mark.memleak has no argument 'max_grwth' \(it takes max_growth, max_leak_per_call\)/,
    );
  });

  it("a malformed size in a marker is refused the same way", async () => {
    const r = await pytest([], [`${SUITE}/bad/test_malformed_size.py`]);
    expect(r.code).toBe(4);
    expect(r.stdout + r.stderr).toMatch(
      /ERROR: memleak: bad\/test_malformed_size.py::test_bad_size: @pytest.mark.memleak\(max_growth=…\): "50MX" is not a size/,
    );
  });

  it("a malformed size or count on memleak's command line is a usage error", async () => {
    const size = await pytest(["--max-test-growth", "50MX"], [SUITE]);
    expect(size).toMatchObject({ code: 2, stdout: "" });
    expect(size.stderr).toMatch(/^memleak: --max-test-growth: "50MX" is not a size/);
    const count = await pytest(["--repeat", "0"], [SUITE]);
    expect(count.code).toBe(2);
    expect(count.stderr).toMatch(/^memleak: --repeat: "0" is not a whole number from 1 to 1000/);
  });

  it("refuses pytest-xdist: -n on the command line, or a worker's environment", async () => {
    const n = await pytest([], ["-n", "4", SUITE]);
    expect(n.code).toBe(2);
    expect(n.stderr).toMatch(/^memleak: pytest -n: pytest-xdist workers are not supported/);
    const worker = await pytest([], [`${SUITE}/test_steady.py`], { PYTEST_XDIST_WORKER: "gw0" });
    expect(worker.code).toBe(4);
    expect(worker.stdout + worker.stderr).toMatch(
      /ERROR: memleak: this is a pytest-xdist worker; memleak measures each test in the process that runs it/,
    );
  });

  it("the plugin loaded without memleak says how to run it", async () => {
    const r = await execFileP(SYSTEM_PYTHON, ["-m", "pytest", "-p", "memleak_pytest", `${SUITE}/test_steady.py`], {
      cwd: REPO,
      env: { ...process.env, PYTHONPATH: `${REPO}src/agent/python` },
    }).then(
      () => ({ code: 0, out: "" }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
    );
    expect(r.code).toBe(4);
    expect(r.out).toMatch(
      /ERROR: memleak: the memleak_pytest plugin reports to memleak, which is not running here: run `memleak pytest -- <your pytest arguments>`/,
    );
  });

  it("an interpreter without pytest is said in one line", async () => {
    const venv = join(tempDir("memleak-pytest-"), "venv");
    await execFileP(SYSTEM_PYTHON, ["-m", "venv", "--without-pip", venv]);
    const r = await memleak(["pytest", "--python", `${venv}/bin/python3`, "--", `${SUITE}/test_steady.py`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^memleak: pytest ran no test under \S+\/venv\/bin\/python3 \(is pytest installed for it\? --python chooses the interpreter\)$/m,
    );
  });
});
