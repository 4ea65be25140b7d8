/**
 * The agent on every interpreter memleak supports, before 3.14: CPython 3.8-3.13 as pyenv builds (shared libpython)
 * and Debian's static /usr/bin/python3. On each: `run` (the agent loaded at start-up, through sitecustomize), `watch`
 * of the program in a container (the agent injected by gdb across mount and PID namespaces) and `memleak pytest` (the
 * plugin). An interpreter that is not installed is skipped, and the test's name says so: the CI log says which ran.
 * 3.14's sys.remote_exec path is not exercised here (no 3.14 on this kind of machine).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { VerdictDocument } from "../../src/analysis/types.js";
import { isRoot, startContained, type Contained } from "../helpers/contained.js";
import { memleak, SYSTEM_PYTHON } from "../helpers/processes.js";
import { expectDictCacheLayer } from "../helpers/watched.js";
import { lacking } from "../helpers/prerequisite.js";

const MiB = 2 ** 20;

function pyenvRoot(): string {
  try {
    return execFileSync("pyenv", ["root"], { encoding: "utf8" }).trim();
  } catch {
    return `${process.env.HOME ?? "/root"}/.pyenv`;
  }
}

/** pyenv's 3.N build (versions/3.N.*), or why there is none. */
function pyenv(minor: number): { python?: string; missing?: string } {
  const root = pyenvRoot();
  const version = (existsSync(`${root}/versions`) ? readdirSync(`${root}/versions`) : [])
    .filter((v) => v.startsWith(`3.${minor}.`))
    .sort()
    .pop();
  const python = version && `${root}/versions/${version}/bin/python3.${minor}`;
  return python && existsSync(python) ? { python } : { missing: `no pyenv 3.${minor} under ${root}/versions` };
}

const INTERPRETERS = [
  ...[8, 9, 10, 11, 12, 13].map((minor) => ({ name: `CPython 3.${minor} (pyenv)`, minor, ...pyenv(minor) })),
  {
    name: "Debian's static python3",
    minor: 11, // Debian 12's
    ...(existsSync(SYSTEM_PYTHON) ? { python: SYSTEM_PYTHON } : { missing: `no ${SYSTEM_PYTHON}` }),
  },
];

/** Debian's pytest 7 (pure Python) for interpreters that have none of their own; its deps are python3-* packages. */
const DEBIAN_PYTEST = "/usr/lib/python3/dist-packages";

// One line in the CI log: which interpreters this run covered, and why any was left out.
beforeAll(() => {
  const line = INTERPRETERS.map((i) =>
    i.missing ? `${i.name}: skipped (${i.missing})` : `${i.name}: ${i.python}`,
  ).join("; ");
  console.info(`interpreters: ${line}`);
});

const started: Contained[] = [];
afterAll(async () => {
  for (const s of started) await s.stop();
});

const json = (stdout: string) => JSON.parse(stdout) as VerdictDocument;

for (const i of INTERPRETERS) {
  describe
    .skipIf(
      lacking(
        i.missing !== undefined,
        `${i.name}`,
        `pyenv install (the interpreters .ci/run checks for): ${i.missing}`,
      ),
    )
    .concurrent(
      i.missing ? `${i.name} — skipped: ${i.missing}` : `${i.name}: ${i.python}`,
      { timeout: 150_000 },
      () => {
        const python = i.python!;

        it("run: the agent loaded at start-up reports malloc's numbers; a growing dict is a leak with its layer", async () => {
          const r = await memleak([
            "run",
            "--interval",
            "0.5",
            "--json",
            "--",
            python,
            "fixtures/scenarios/dict_cache_leak.py",
            "14",
          ]);
          const doc = json(r.stdout);
          expect(doc.verdict.kind, r.stderr).toBe("leak");
          expect(doc.verdict.evidence.mallocInUseGrowth as number, r.stderr).toBeGreaterThan(5 * MiB);
          expectDictCacheLayer(doc);
        });

        it.skipIf(lacking(!isRoot, "root", "run the tests as root (.ci/run does)"))(
          "watch in a container (own mount and PID namespace, private /tmp): the agent injected by gdb reports",
          async () => {
            const c = await startContained("dict_cache_leak", 60, { python });
            started.push(c);
            const r = await memleak(["watch", String(c.target), "--duration", "14", "--interval", "0.5", "--json"]);
            expect(r.stderr).toMatch(/agent attached to PID \d+ \(python3[.\d]*\) in a container \(pid 1 inside\)/);
            const doc = json(r.stdout);
            expect(doc.verdict.kind, r.stderr).toBe("leak");
            expect(doc.verdict.evidence.mallocInUseGrowth as number, r.stderr).toBeGreaterThan(5 * MiB);
          },
        );

        it("run: a program that forks is not warned of the agent's thread (3.12+); one with a thread of its own is", async () => {
          const forks = (own: string[]) =>
            memleak(["run", "--interval", "0.5", "--", python, "fixtures/scripts/forks_beside_agent.py", ...own]);
          const [alone, threaded] = await Promise.all([forks([]), forks(["own-thread"])]);
          expect(alone.stdout, alone.stderr).toContain("agent thread at fork: yes");
          expect(alone.stdout, alone.stderr).toContain("forked 3");
          expect(alone.stderr).not.toMatch(/multi-threaded/);
          expect(threaded.stdout, threaded.stderr).toContain("forked 3");
          // The program's own thread: 3.12+ warns, and that warning is the program's to see.
          if (i.minor >= 12)
            expect(threaded.stderr).toMatch(/DeprecationWarning: This process \(pid=\d+\) is multi-threaded/);
          else expect(threaded.stderr).not.toMatch(/multi-threaded/);
        });

        it("memleak pytest: the plugin names the test that leaks per call", async () => {
          const env = python === SYSTEM_PYTHON ? {} : { PYTHONPATH: DEBIAN_PYTEST };
          const r = await memleak(
            [
              "pytest",
              "--python",
              python,
              "--interval",
              "0.2",
              "--repeat",
              "5",
              "--warmup-calls",
              "2",
              "--json",
              "--",
              "fixtures/pytest-suite/test_growth.py",
            ],
            env,
          );
          expect(r.code, r.stderr).toBe(0);
          const leaks = (json(r.stdout).tests ?? []).filter((t) => t.kind === "leak").map((t) => t.nodeid);
          expect(leaks, r.stderr).toEqual(["test_growth.py::test_leaks_per_call"]);
        });
      },
    );
}
