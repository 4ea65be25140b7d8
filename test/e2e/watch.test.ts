/**
 * `memleak watch <pid>` on programs started outside memleak: it injects the agent into the running interpreters
 * (gdb), and gives the verdict `run` would give — fragmentation, a leak in a forked worker — with the agent's numbers.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { VerdictDocument } from "../../src/analysis/types.js";
import { REPO } from "../helpers/fixtures.js";
import { memleak, startReady, type Started } from "../helpers/processes.js";
import { expectDictCacheLayer, startScenario } from "../helpers/watched.js";
import { lacking } from "../helpers/prerequisite.js";
import { pyenvPythons } from "../helpers/pythons.js";

const MiB = 2 ** 20;
/**
 * Another installation of the Python the debugger embeds (Debian 12's lldb and gdb: 3.11): pyenv's 3.11. One of
 * another version would not do: its library has no lib/python3.11, and the embedded one falls back to its own.
 */
const otherPython = pyenvPythons([11])[0];
const started: Started[] = [];
afterAll(async () => {
  for (const s of started) await s.stop();
});

async function watch(target: Started, seconds = 30, extra: string[] = []) {
  started.push(target);
  const common = ["--duration", String(seconds), "--interval", "0.5", "--json"];
  const r = await memleak(["watch", String(target.pid), ...common, ...extra]);
  expect(r.stdout, r.stderr).not.toBe("");
  return { ...r, doc: JSON.parse(r.stdout) as VerdictDocument };
}

describe.concurrent("watch: the agent injected into running programs", { timeout: 150_000 }, () => {
  it("a heap-fragmentation burst is fragmentation, with malloc in use against resident memory", async () => {
    const { doc, stderr } = await watch(await startScenario("frag_burst", 90));
    expect(stderr).toMatch(/agent attached to PID \d+ .* in \d+\.\d s/);
    expect(doc.verdict.kind).toBe("fragmentation");
    expect(doc.verdict.evidence.anonBytes as number).toBeGreaterThan(500 * MiB);
    expect(doc.verdict.evidence.mallocInUseBytes as number).toBeLessThan(30 * MiB);
    expect(doc.verdict.evidence.mallocArenas as number).toBeGreaterThanOrEqual(1);
  });

  it("a dict that grows is a leak of the watched pid, seen by the agent (malloc and Python objects grow)", async () => {
    const target = await startScenario("dict_cache_leak", 90);
    const { doc } = await watch(target);
    expect(doc.verdict).toMatchObject({ kind: "leak", pid: target.pid });
    expect(doc.verdict.evidence.mallocInUseGrowth as number).toBeGreaterThan(10 * MiB);
    expectDictCacheLayer(doc);
    expect(doc.verdict.evidence.liveHeapGrowth as number).toBeGreaterThan(10 * MiB); // malloc + Python's small objects
    expect(doc.verdict.evidence.agent).toBeUndefined(); // the agent saw it: no "missing"
  });

  it("forked workers, one leaking, started before memleak: the leak names the worker (injected after it started)", async () => {
    const target = await startScenario("leak_worker", 90, /leaking worker: \d+/);
    const worker = Number(/leaking worker: (\d+)/.exec(target.output())![1]);
    const { doc, stderr } = await watch(target);
    expect(stderr).toContain(`agent attached to PID ${worker}`);
    expect(doc.verdict).toMatchObject({ kind: "leak", pid: worker, subject: { isRoot: false } });
    expect(doc.verdict.evidence.mallocInUseGrowth as number).toBeGreaterThan(10 * MiB);
  });

  // A pyenv version, a conda environment or a virtualenv first on PATH, and PYTHON* settings meant for another
  // Python, in the shell memleak runs from: the debugger's own Python (lldb's here, gdb's elsewhere) must not take them
  // as its own. lldb's took the first python3's library on PATH and failed in every process (No module named 'six').
  it.skipIf(lacking(otherPython === undefined, "pyenv's CPython 3.11", "pyenv install 3.11 (.ci/run checks for it)"))(
    "from a shell whose PATH starts with another Python, with its PYTHONHOME and PYTHONPATH: the agent still attaches",
    async () => {
      const target = await startScenario("idle", 60);
      started.push(target);
      const home = dirname(dirname(otherPython!));
      const r = await memleak(["watch", String(target.pid), "--duration", "4", "--interval", "0.5"], {
        PATH: `${dirname(otherPython!)}:${process.env.PATH}`,
        PYTHONHOME: home,
        PYTHONPATH: `${home}/lib/python3.11/site-packages`,
      });
      expect(r.stderr).toMatch(new RegExp(`agent attached to PID ${target.pid} \\(python3[.\\d]*\\) in \\d+\\.\\d s`));
    },
  );

  // A debugger that cannot work here fails the same way in every process: memleak gives it up after two, says so
  // once, and reads the rest from /proc. The real gdb and lldb, each run by a wrapper first on PATH that breaks the
  // Python it embeds (a PYTHONHOME of nothing) and counts its attaches.
  it("a debugger that fails the same way in two processes is not run in a third: said once, the rest read from /proc", async () => {
    const dir = mkdtempSync(join(tmpdir(), "memleak-broken-debugger-"));
    const log = join(dir, "attaches");
    for (const name of ["gdb", "lldb"]) {
      const real = execFileSync("sh", ["-c", `command -v ${name} || true`], { encoding: "utf8" }).trim();
      if (!real) continue;
      const wrapper = join(dir, name);
      writeFileSync(
        wrapper,
        `#!/bin/sh\ncase " $* " in *" -p "*) echo "$*" >> ${log};; esac\nPYTHONHOME=/nonexistent exec ${real} "$@"\n`,
      );
      chmodSync(wrapper, 0o755);
    }
    const target = await startReady(["python3", `${REPO}bench/py/small_tree.py`, "6", "1"], /ready/);
    started.push(target);
    const r = await memleak(["watch", String(target.pid), "--duration", "12", "--interval", "0.5"], {
      PATH: `${dir}:${process.env.PATH}`,
    });
    const attaches = existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : [];
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    expect(attaches, r.stderr).toHaveLength(2);
    const failed = r.stderr.match(/^memleak: no agent in PID \d+ \(python3\): .*$/gm) ?? [];
    expect(failed, r.stderr).toHaveLength(2);
    expect(r.stderr).toMatch(
      /no agent in the other Python processes: (gdb|lldb) failed the same way in PID \d+ and PID \d+: no other process is tried; watching them from outside/,
    );
    expect(r.stderr).not.toMatch(/agent attached/);
  });
});

// Alone: the injections' own memory is what is judged, and gdb beside three other watches took ~6 s a process.
describe("watch: an idle forked tree while the agents come in", { timeout: 150_000 }, () => {
  it("the agents' own arrival, one process after another, is not the tree's growth", async () => {
    // bench/py/small_tree.py: a parent and 5 forked workers of 8 MB, asleep. Each agent adds its modules and thread,
    // and in a worker the pages its first collections copy from the parent (~+4 MiB of Σ Pss_Anon a process): a
    // staircase while they come in that was called a leak ("so far: leak" on 64 processes), and "plateau" at the end.
    const target = await startReady(["python3", `${REPO}bench/py/small_tree.py`, "5", "8"], /^ready$/m);
    // --max-agents 6: an agent in each of the six, one after another, as on a tree no larger than the limit (the
    // default, 4, puts two in this tree: the parent and one for the five workers, watch-placement.test.ts). Each is
    // said: its agent attached, or that the watch ended before its turn (one injection at a time, 1-6 s each on a
    // busy machine). Enough come in for their arrival to be judged.
    const { doc, stderr } = await watch(target, 40, ["--max-agents", "6"]);
    const pythons = doc.findings.filter((f) => f.subject.type === "process" && /small_tree/.test(f.subject.command));
    expect(pythons, JSON.stringify(doc.findings.map((f) => f.subject))).toHaveLength(6);
    expect(doc.sampling?.agents?.readFromProc, stderr).toBe(0);
    for (const f of pythons) {
      const pid = f.subject.type === "process" ? f.subject.pid : 0;
      if (!stderr.includes(`agent attached to PID ${pid} `))
        expect(String(f.evidence.agentMissingReason), stderr).toMatch(/^the watch ended before its turn/);
    }
    expect((stderr.match(/agent attached to PID/g) ?? []).length, stderr).toBeGreaterThanOrEqual(4);
    const tree = doc.findings.find((f) => f.subject.type === "tree");
    expect(tree?.kind, JSON.stringify(tree)).toBe("stable");
    // The verdict is the most serious finding, and the tree's is stable: every process's is stable or undecided.
    expect(doc.verdict.kind, JSON.stringify(doc.findings.map((f) => [f.kind, f.summary]))).toBe("stable");
  });
});

// Alone, not beside the three above: 16 threads contending for the GIL with three other scenarios and three memleaks
// on two cores ran so slowly in CI that the churn had built 785 MiB, not 2.6 GB, and the verdict hung on when malloc
// happened to be read. A user watches one service at a time; the concurrency above is only for the suite's speed.
describe("watch: many threads' arenas", { timeout: 150_000 }, () => {
  it("16 threads with their own arenas are fragmentation, with the arena count", async () => {
    // The threads churn for the first 40% of the script's time (16 s of 40): while they do, malloc's in-use bytes
    // swing by ~1.6 GB and nothing can be judged; the watch must end on the settled state, as `run`'s would.
    const { doc, stderr } = await watch(await startScenario("thread_arenas", 40));
    expect(
      doc.verdict.kind,
      `${stderr}\n${JSON.stringify(
        doc.findings.map((f) => [f.kind, f.summary, f.evidence]),
        null,
        1,
      )}`,
    ).toBe("fragmentation");
    expect(doc.verdict.evidence.mallocArenas as number).toBeGreaterThanOrEqual(8);
    // At least the rule's own bar (half of the anon memory not in use). Not more: malloc's numbers are read at most
    // every 10 s in a heap this size (their cost is rate-limited), so the last reading can be from the end of the
    // churn, when ~1 GB was still in use (2.65 GB anon), on a loaded machine.
    expect(doc.verdict.evidence.anonBytes as number).toBeGreaterThan(
      2 * (doc.verdict.evidence.mallocInUseBytes as number),
    );
  });
});
