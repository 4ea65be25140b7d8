/**
 * The issue's own example, end to end: gunicorn's forked workers serve a Flask view that memoises 6 KB pages in a
 * module-level dict (fixtures/holder/flask_pages.py), under real load. The workers share pages with the master, so
 * the census walks only the containers near the program's globals (a walk of the whole heap would copy its pages);
 * each leaking worker's finding must name `flask_pages.PAGES`, and put the growth in Python objects, not in the
 * native heap where 6 KB strings live. With --preload (the app imported in the master, its objects shared) and
 * without, under `run` (as in a GitHub Actions job: the annotation points at the line that assigns PAGES), and under
 * `watch` of a running gunicorn. Debian's gunicorn and python3-flask (apt). And the README's example, a multiprocessing
 * worker whose leak a local of its running function holds.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { VerdictDocument } from "../../src/analysis/types.js";
import { REPO } from "../helpers/fixtures.js";
import { memleak, SYSTEM_PYTHON } from "../helpers/processes.js";
import { get } from "../helpers/unix-http.js";

const HAVE_GUNICORN =
  existsSync("/usr/lib/python3/dist-packages/gunicorn") && existsSync("/usr/lib/python3/dist-packages/flask");
const PATH = "flask_pages.PAGES";
const APP = "fixtures/holder/flask_pages.py";
/** The line that assigns PAGES: where the holder's root is, and where a GitHub annotation points. */
const PAGES_LINE =
  readFileSync(APP, "utf8")
    .split("\n")
    .findIndex((l) => l.startsWith("PAGES = ")) + 1;

const dirs: string[] = [];
const started: number[] = [];
afterAll(() => {
  for (const pid of started) {
    try {
      process.kill(-pid, "SIGKILL"); // the master and its workers: a process group of their own
    } catch {
      /* gone */
    }
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A Unix socket for gunicorn to bind: no port to collide with another test's. */
function socketPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "memleak-gunicorn-"));
  dirs.push(dir);
  return join(dir, "web.sock");
}

function gunicorn(socket: string, preload: boolean): string[] {
  return [
    SYSTEM_PYTHON,
    "-m",
    "gunicorn",
    ...(preload ? ["--preload"] : []),
    "-w",
    "2",
    "-b",
    `unix:${socket}`,
    "--chdir",
    "fixtures/holder",
    "flask_pages:app",
  ];
}

/** A gunicorn of its own process group, once it answers. */
async function startGunicorn(socket: string): Promise<{ pid: number; running: () => boolean }> {
  const child = spawn(gunicorn(socket, true)[0]!, gunicorn(socket, true).slice(1), {
    cwd: REPO,
    stdio: "ignore",
    detached: true,
  });
  started.push(child.pid!);
  for (let i = 0; i < 150 && (await get(socket, "/ready")) !== 200; i++) await new Promise((r) => setTimeout(r, 200));
  return { pid: child.pid!, running: () => child.exitCode === null && child.signalCode === null };
}

/** Distinct pages, one request at a time, until `until` resolves: each rendered page stays in its worker's PAGES. */
async function load(socket: string, until: Promise<unknown>): Promise<number> {
  let over = false;
  void until.finally(() => (over = true));
  let served = 0;
  for (let n = 0; !over; n++) {
    if ((await get(socket, `/item/${n}`)) === 200) served++;
    else await new Promise((r) => setTimeout(r, 200));
  }
  return served;
}

/** Everything a failed expectation should show: each finding's kind, pid, summary and holder. */
const shown = (doc: VerdictDocument) =>
  JSON.stringify(
    doc.findings.map((f) => [f.kind, f.pid, f.summary, f.holder]),
    null,
    1,
  );

/** The leaking workers' findings: each names the dict, and puts the growth in Python objects. */
function expectWorkersHeldByPages(doc: VerdictDocument): void {
  const leaks = doc.findings.filter((f) => f.kind === "leak" && f.subject.type === "process");
  expect(leaks.length, shown(doc)).toBeGreaterThanOrEqual(1);
  for (const f of leaks) {
    expect(f.holder, shown(doc)).toMatchObject({
      found: true,
      path: PATH,
      root: "module global",
      container: "dict of str",
    });
    expect(f.summary, shown(doc)).toContain(`in Python objects, held by ${PATH}`);
    expect(f.summary).not.toContain("native heap");
    expect(f.holder?.where).toEqual({ file: `${REPO}${APP}`, line: PAGES_LINE });
  }
}

// Never skipped: .ci/run installs both, and a test that silently skips in CI checks nothing.
if (!HAVE_GUNICORN)
  throw new Error(
    "holder-forked.test.ts needs Debian's gunicorn and python3-flask for /usr/bin/python3 (apt-get install gunicorn python3-flask; .ci/run does)",
  );

describe.concurrent(
  "the holder in gunicorn's forked workers (Flask view memoising pages)",
  { timeout: 150_000 },
  () => {
    it.each([
      ["--preload", true],
      ["no --preload", false],
    ])("run, %s: the workers' leak is held by flask_pages.PAGES", async (_, preload) => {
      const socket = socketPath();
      // As in a GitHub Actions job whose checkout is this repository: the annotation points at the line that assigns PAGES.
      const run = memleak(
        ["run", "--duration", "40", "--interval", "0.5", "--json", "--", ...gunicorn(socket, preload as boolean)],
        { GITHUB_ACTIONS: "true", GITHUB_WORKSPACE: REPO },
      );
      const served = await load(socket, run);
      const r = await run;
      expect(r.stdout, r.stderr).not.toBe("");
      const doc = JSON.parse(r.stdout) as VerdictDocument;
      expect(served, shown(doc)).toBeGreaterThan(500);
      expect(doc.verdict.kind, shown(doc)).toBe("leak");
      expectWorkersHeldByPages(doc);
      expect(r.stderr).toContain(`::warning file=${APP},line=${PAGES_LINE},title=memleak::`);
    });

    it("run, the README's example (npm run example): a multiprocessing worker's leak is held by a local of worker()", async () => {
      // fixtures/scenarios/leak_worker.py: worker() appends to `cache = []`, a local that no module global reaches.
      // The worker is forked (it shares pages with its parent), so the census walks narrowly: near the globals, and
      // the locals of the program's own running functions.
      const r = await memleak([
        "run",
        "--interval",
        "0.5",
        "--json",
        "--",
        "python3",
        "fixtures/scenarios/leak_worker.py",
        "16",
      ]);
      const doc = JSON.parse(r.stdout) as VerdictDocument;
      expect(doc.verdict, shown(doc)).toMatchObject({ kind: "leak", evidence: { layer: "Python objects" } });
      expect(doc.verdict.holder, shown(doc)).toMatchObject({
        found: true,
        root: "thread frame",
        path: 'thread "MainThread": worker() local cache',
        container: "list of bytearray",
      });
    });

    it("watch of a running gunicorn (--preload): the agent injected into master and workers names the dict", async () => {
      const socket = socketPath();
      const target = await startGunicorn(socket);
      const watch = memleak(["watch", String(target.pid), "--duration", "30", "--interval", "0.5", "--json"]);
      const served = await load(socket, watch);
      const r = await watch;
      expect(r.stdout, r.stderr).not.toBe("");
      const doc = JSON.parse(r.stdout) as VerdictDocument;
      expect(served, shown(doc)).toBeGreaterThan(500);
      expectWorkersHeldByPages(doc);
      // gunicorn serves on after memleak left.
      expect(await get(socket, "/ready")).toBe(200);
      expect(target.running()).toBe(true);
    });
  },
);
