/**
 * `memleak run` and `memleak watch` end to end on the real scenario scripts (fixtures/scenarios), each in a fresh
 * memory cgroup of its own. The scenario runs are independent, so they run concurrently to keep the suite short.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import type { VerdictDocument } from "../../src/analysis/types.js";
import { execFileP, memleak, MEMLEAK, startReady } from "../helpers/processes.js";
import { REPO } from "../helpers/fixtures.js";
import { OWN_MEMORY_CGROUP, skipNote } from "../helpers/cgroup.js";
import { tempDir } from "../helpers/temp.js";
import { alive, eventually } from "../helpers/watched.js";
import { tmpdir } from "node:os";
import { lacking } from "../helpers/prerequisite.js";

const SECONDS = "20";
const scenario = (name: string) => ["python3", `fixtures/scenarios/${name}.py`, SECONDS];

async function runJson(name: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const r = await memleak(["run", "--interval", "0.25", "--json", ...extra, "--", ...scenario(name)], env);
  const doc = JSON.parse(r.stdout) as VerdictDocument;
  return { ...r, doc };
}

/** The first `n` readings of `pid` in a recording: "0.25 s python3 6.6 MiB, …". */
function firstReadings(path: string, pid: number, n: number): string {
  const samples = readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.startsWith('{"type":"sample"'))
    .map((l) => JSON.parse(l) as { t: number; processes: { pid: number; comm: string; anon?: number }[] });
  const t0 = samples[0]?.t ?? 0;
  return samples
    .slice(0, n)
    .map((s) => {
      const p = s.processes.find((q) => q.pid === pid);
      return `${((s.t - t0) / 1000).toFixed(2)} s ${p?.comm ?? "-"} ${((p?.anon ?? 0) / 2 ** 20).toFixed(1)} MiB`;
    })
    .join(", ");
}

/** Sample lines written so far to a recording (0 before it exists). */
const samplesIn = (path: string) =>
  existsSync(path)
    ? readFileSync(path, "utf8")
        .split("\n")
        .filter((l) => l.startsWith('{"type":"sample"')).length
    : 0;

// memleak run makes its cgroups inside its own memory cgroup (v1 or v2); with none, it makes none to leave behind.
const leftoverCgroups = () =>
  OWN_MEMORY_CGROUP.ok ? readdirSync(OWN_MEMORY_CGROUP.location.dir).filter((d) => d.startsWith(`memleak-`)) : [];
// Those of one memleak, by its pid (memleak-PID-…): the test session's cgroup is shared with every other memleak
// running on the machine (the other tests, another developer's run), whose cgroups come and go meanwhile.
const cgroupsOf = (memleakPid: number) => leftoverCgroups().filter((d) => d.startsWith(`memleak-${memleakPid}-`));

// Every verdict here reads a memory cgroup: the command's own (isolated), or the test session's for watch.
describe.skipIf(
  lacking(
    !OWN_MEMORY_CGROUP.ok,
    "a memory cgroup of its own",
    "root on a host with a writable memory cgroup (v1, v2 or hybrid)",
  ),
)(`memleak run on real scenarios${skipNote(OWN_MEMORY_CGROUP)}`, { concurrent: true }, () => {
  it("a leaking script with --fail-on leak exits 1 and names the leaking process", async () => {
    const { code, doc, stderr } = await runJson("leak_main", ["--fail-on", "leak"]);
    expect(code).toBe(1);
    expect(doc.verdict).toMatchObject({
      kind: "leak",
      pid: doc.target.pid,
      subject: { type: "process", isRoot: true },
    });
    expect(stderr).toMatch(new RegExp(`memleak: gate fail-on failed: leak found: PID ${doc.target.pid} `));
    expect(doc.gates).toEqual([expect.objectContaining({ name: "fail-on", passed: false })]);
    expect(doc.target).toMatchObject({ exitCode: 0, stopReason: "exited", cgroup: { isolated: true } });
  });

  it("the same gate on a steady (noisy) script exits 0", async () => {
    const recording = `${tempDir("steady")}/r.jsonl`;
    const { code, doc } = await runJson("steady_noisy", ["--fail-on", "leak", "--record", recording]);
    // On failure, short enough for the flaky list to keep whole: each finding's kind, summary and where its level was
    // dated, then the root's first readings (pyenv's bash shim, then Python: CI on f62784a called it a plateau "grew by
    // 49.5 MiB" from a start of 3.65 MB, not reproduced here in 13 runs beside 2-4 busy loops).
    const said = () =>
      doc.findings
        .map((f) => `${f.kind}: ${f.summary} (level from ${String(f.evidence.levelFromSeconds)} s)`)
        .join(" | ") +
      " | first readings: " +
      firstReadings(recording, doc.target.pid, 14);
    expect(doc.verdict.kind, said()).toBe("stable");
    expect(code).toBe(0);
  });

  it("a leak inside a multiprocessing worker is attributed to that worker's pid", async () => {
    const { doc, stderr } = await runJson("leak_worker");
    // With --json the command's own stdout is passed to stderr.
    const worker = Number(/leaking worker: (\d+)/.exec(stderr)?.[1]);
    expect(worker).toBeGreaterThan(0);
    expect(doc.verdict).toMatchObject({
      kind: "leak",
      pid: worker,
      subject: { isRoot: false, ppid: doc.target.pid },
    });
  });

  it("a script appending to a log file is a cgroup artefact (page cache), not a leak", async () => {
    const { doc } = await runJson("log_page_cache");
    expect(doc.verdict.kind).toBe("cgroup-artefact");
    expect(doc.verdict.summary).toMatch(/page cache/);
    expect(doc.findings.filter((f) => f.kind === "leak")).toEqual([]);
  });

  it("a model file mapped and read page by page is the page cache of a mapped file, named, never a leak", async () => {
    const { doc } = await runJson("mmap_model_load");
    const detail = JSON.stringify(
      doc.findings.map((f) => [f.kind, f.summary]),
      null,
      1,
    );
    expect(
      doc.findings.filter((f) => f.kind === "leak"),
      detail,
    ).toEqual([]);
    expect(doc.verdict.kind, detail).toBe("cgroup-artefact");
    expect(doc.verdict.evidence).toMatchObject({ growthIn: "mapped-file" });
    // Most of the 400 MB file is read within the window (less of it after warm-up on a loaded machine), and it is
    // nearly all of the cgroup's growth.
    expect(
      doc.verdict.evidence.pageCacheGrowth as number,
      JSON.stringify([doc.window, doc.verdict.evidence]),
    ).toBeGreaterThan(150 * 2 ** 20);
    expect(doc.verdict.evidence.pageCacheGrowth as number).toBeGreaterThan(
      0.9 * (doc.verdict.evidence.usageGrowth as number),
    );
    expect(doc.verdict.summary).toMatch(/memleak-mmap-\w+\/model\.bin \(\d+ MiB resident\)/);
    const root = doc.findings.find((f) => f.subject.type === "process")!;
    expect(root.kind).toBe("stable");
    expect(root.summary).toMatch(/resident file pages grew \d+ MiB \(mapped: .*model\.bin/);
  });

  it("the same mapped model with 1 MB/s of anonymous memory kept is a leak at the anonymous rate", async () => {
    const { doc } = await runJson("mmap_model_leak");
    expect(
      doc.verdict,
      JSON.stringify(
        doc.findings.map((f) => [f.kind, f.summary]),
        null,
        1,
      ),
    ).toMatchObject({ kind: "leak", metric: "anon", pid: doc.target.pid });
    // 1 MB/s kept, against ~20 MB/s of file pages read in: the rate is the leak's alone.
    expect(doc.verdict.rate!.bytesPerSecond).toBeGreaterThan(0.6 * 2 ** 20);
    expect(doc.verdict.rate!.bytesPerSecond).toBeLessThan(1.6 * 2 ** 20);
  });

  it("a one-off load of 400 MB is a plateau dated within 2 s of when the load ended", async () => {
    const recording = `${tempDir("one-off")}/r.jsonl`;
    const { doc, stderr } = await runJson("one_off_load", ["--record", recording]);
    // Seconds from memleak's first sample, as levelFromSeconds is: not from the script's own start, which a pyenv
    // shim on a busy machine delays by seconds (2.2-4.4 s off in CI).
    const firstSample = readFileSync(recording, "utf8")
      .split("\n")
      .find((l) => l.startsWith('{"type":"sample"'))!;
    const t0 = (JSON.parse(firstSample) as { t: number }).t / 1000;
    const ended = Number(/load ended at [\d.]+ s \(unix ([\d.]+)\)/.exec(stderr)![1]) - t0;
    expect(
      doc.verdict,
      JSON.stringify(
        doc.findings.map((f) => [f.kind, f.summary]),
        null,
        1,
      ),
    ).toMatchObject({ kind: "plateau", pid: doc.target.pid });
    expect(Math.abs((doc.verdict.evidence.levelFromSeconds as number) - ended)).toBeLessThanOrEqual(2);
    // It grew by (nearly) all of the load, not by the difference between the medians of its thirds.
    expect(doc.verdict.summary).toMatch(/grew by 3[5-9]\d MiB|grew by 4\d\d MiB/);
  });

  // fork_cow (forked workers reading a big list built by the parent: copy-on-write) runs once, in ci.test.ts's short step.

  it("a child that imported PyTorch and exited leaves page cache charged: cgroup artefact (seed 000)", async () => {
    // The child imports a private copy of PyTorch (the scenario's private_copy, ~550 MB, removed after the file): a
    // neighbour with PyTorch loaded (kept-alive.test's loops, in the other lane) keeps the system's libraries mapped,
    // charged to its own cgroup and not droppable, and a CI run's verdict was then no cgroup artefact at all.
    // Made and written back before the measured run: its 550 MB of dirty pages, charged and then dropped, were not
    // what the run measures (one run in six here was no cgroup artefact when the run made it).
    const env = { TORCH_PRIVATE_COPY: tempDir("torch-copy") };
    await execFileP("python3", ["fixtures/scenarios/torch_child_exits.py", "prepare"], {
      cwd: REPO,
      env: { ...process.env, ...env },
    });
    const { doc, stderr } = await runJson("torch_child_exits", [], env);
    expect(doc.findings.map((f) => `${f.kind}: ${f.summary}`)).toContainEqual(
      expect.stringMatching(/^cgroup-artefact: .*page cache/),
    );
    expect(
      doc.verdict.kind,
      JSON.stringify(
        doc.findings.map((f) => [f.kind, f.summary, f.evidence]),
        null,
        1,
      ),
    ).toBe("cgroup-artefact");
    // As much as the child's cgroup was charged while the child ran, read by the scenario from its own memory.stat: not
    // fincore's count of what the child brought in (printed too), which also holds the pages a neighbour read in that
    // same while and the kernel charged to the neighbour (a CI run: 225 MiB counted, 156 charged, and memleak said 156).
    // With the system's libraries, alone: 461 MiB charged, 461 counted; beside a loop importing PyTorch, 106 charged
    // where fincore counted 25 (memleak: 105), and 38 and 38 (memleak: 38). With the copy, beside a PyTorch loop:
    // 443 charged, memleak 427 (the system's: 254, memleak 251).
    const number = (re: RegExp) => Number(re.exec(stderr)?.[1]);
    const brought = number(/the child brought (\d+) bytes of libraries into the page cache/);
    const charged = number(/the child's cgroup was charged (-?\d+) bytes of page cache/);
    expect(charged, stderr).toBeGreaterThan(200 * 2 ** 20);
    const growth = doc.verdict.evidence.pageCacheGrowth as number;
    const why = `charged ${charged}, fincore counted ${brought}`;
    expect(growth, why).toBeGreaterThan(0.9 * charged);
    expect(growth, why).toBeLessThan(1.1 * charged + 32 * 2 ** 20);
  });

  it("watch: attaches to a running tree and stops at --duration", async () => {
    const target = await startReady(["python3", "fixtures/scripts/forked_holder.py", "40", "60"], /ready/, 3);
    try {
      const r = await memleak(["watch", String(target.pid), "--duration", "18s", "--interval", "0.25", "--json"]);
      const doc = JSON.parse(r.stdout) as VerdictDocument;
      expect(r.code).toBe(0);
      expect(doc.target).toMatchObject({ pid: target.pid, stopReason: "duration", cgroup: { isolated: false } });
      // The processes are steady. Their cgroup is the test session's own, shared with the concurrent scenario runs:
      // memleak must say that its numbers include other processes.
      const processes = doc.findings.filter((f) => f.subject.type === "process");
      expect(
        processes.map((f) => f.kind),
        JSON.stringify(doc.findings.map((f) => [f.kind, f.summary, f.caveats, f.evidence])),
      ).toEqual(["stable", "stable", "stable"]);
      // No leak of the watched tree. The shared cgroup may leak while a concurrent leak scenario runs in it (a CI
      // run had one at 35 MiB/s): then it is said to be the other processes' doing, never the verdict.
      expect(doc.findings.filter((f) => f.kind === "leak" && f.outsideWatchedTree !== true)).toEqual([]);
      expect(doc.verdict.kind).toBe("stable");
      const cg = doc.findings.find((f) => f.subject.type === "cgroup")!;
      expect(cg.caveats.join(" ")).toMatch(/the cgroup also holds \d+ process(es)? outside the watched tree/);
      // The agents injected one after another are memleak's: taken out of the cgroup's usage before it is judged.
      expect(cg.caveats.join(" ")).toMatch(/memleak's agents added [\d.]+ MiB to [23] processes it was injected into/);
      expect(r.stderr).toMatch(/stopped: --duration 18s reached/);
      // How the sampling went: 3 small processes keep PSS within the default 2 s. On time, the oldest reading is 2 s
      // plus a tick (2.25 s); beside a dozen concurrent runs on two cores a tick can come a second or more late, and
      // that lateness adds to the age. What must not happen is a read skipped (4 s and more): the bound is under that.
      expect(doc.sampling).toMatchObject({
        interval: 0.25,
        pssEvery: 2,
        ticks: expect.any(Number),
        lateTicks: expect.any(Number),
      });
      expect(doc.sampling!.pssAge!.median).toBeLessThanOrEqual(2); // the typical reading is within the 2 s
      expect(doc.sampling!.pssAge!.max, JSON.stringify(doc.sampling)).toBeLessThan(4);
    } finally {
      await target.stop();
    }
  });

  it("watch: stops when the process exits, and says so", async () => {
    // The target lives until memleak has started sampling it, then a second more: a fixed 3 s of life was over before
    // memleak's own start-up on a CI machine beside a busy loop (exit 3, no such process, at a first try).
    const target = await startReady(
      ["python3", "-u", "-c", "import time; print('ready', flush=True); time.sleep(120)"],
      /ready/,
    );
    let stopping = false;
    const r = await memleak(["watch", String(target.pid), "--interval", "0.25"], {}, (text) => {
      if (stopping || !/sampling/.test(text)) return;
      stopping = true;
      setTimeout(() => void target.stop(), 1000);
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`stopped: PID ${target.pid} exited`));
    expect(r.stdout).toMatch(/verdict: NOT ENOUGH DATA/);
  });
});

// Concurrent, and right after the scenario runs, so that it shares their slots (a file's consecutive concurrent
// describes run together, 5 tests at once) rather than adding its ~17 s after them. It needs no cgroup of its own, so
// it is not under their skipIf; nor among the exit codes below, which count the cgroups left around each run.
describe.concurrent("memleak run in GitHub Actions", () => {
  it("in GitHub Actions: an ::error annotation per failed gate and a step summary", async () => {
    const dir = tempDir("gh");
    const summary = `${dir}/summary.md`;
    const r = await memleak(
      ["run", "--interval", "0.25", "--max-growth", "5MiB", "--", "python3", "fixtures/scenarios/leak_main.py", "16"],
      {
        GITHUB_ACTIONS: "true",
        GITHUB_STEP_SUMMARY: summary,
      },
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^::error title=memleak max-growth::tree Σ pss grew .*; limit 5\.00 MiB$/m);
    expect(readFileSync(summary, "utf8")).toMatch(/### memleak: leak/);
  });
});

describe("memleak run: exit codes, signals, recordings, clean-up", () => {
  it("passes the command's output on whole: a UTF-8 character cut between two pipe reads is not mangled", async () => {
    // One byte, then 600,000 bytes of two-byte characters through a 64 KiB pipe: reads end mid-character.
    const r = await memleak([
      "run",
      "--json",
      "--no-agent",
      "--interval",
      "0.5s",
      "--",
      "python3",
      "-c",
      "import sys; sys.stdout.write('a' + 'é' * 300000)",
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain("\uFFFD");
    expect(r.stderr.match(/é/g)?.length).toBe(300000);
  });

  it("TERM=dumb: the final report's sparklines in ASCII, no colour", async () => {
    const r = await memleak(
      [
        "run",
        "--no-agent",
        "--interval",
        "0.2s",
        "--",
        "python3",
        "-c",
        "import time\nb=[]\nfor i in range(20):\n    b.append(bytearray(2**20)); time.sleep(0.1)",
      ],
      { TERM: "dumb", NO_COLOR: "", FORCE_COLOR: undefined },
    );
    expect(r.stdout).toMatch(/ {2}[_.\-~=*#@]{4,}/);
    expect(r.stdout).not.toMatch(/[▁▂▃▄▅▆▇█]/);
    expect(r.stdout).not.toContain("\u001b[");
  });

  it("passes the command's own failure through: exit status, or 128 + signal", async () => {
    expect((await memleak(["run", "--", "python3", "-c", "import sys; sys.exit(5)"])).code).toBe(5);
    expect(
      (await memleak(["run", "--", "python3", "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"])).code,
    ).toBe(137);
  });

  it.each([
    [["run", "--", "no-such-command-xyz"], 3, /command not found: no-such-command-xyz/],
    [["run", "--", "./fixtures/README.md"], 3, /cannot run \.\/fixtures\/README\.md: not executable/],
    [["run", "--max-growth", "50MX", "--", "true"], 2, /"50MX" is not a size/],
    [["run", "--fail-on", "leek", "--", "true"], 2, /unknown verdict kind "leek"/],
    [["watch", "999999999"], 3, /no process with PID 999999999/],
    [["analyze", "/nonexistent.jsonl"], 2, /cannot read the recording \/nonexistent.jsonl: no such file/],
    [["analyze", "package.json"], 2, /is not a valid memleak recording: line 1/],
  ])("%j → exit %d, one line, no stack trace", async (args, code, message) => {
    const r = await memleak(args);
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(cgroupsOf(r.pid)).toEqual([]);
  });

  // A service never exits on its own: stopped at --duration by memleak's SIGTERM, it died of it (143), and that status
  // passed on made every such CI step red whatever the gates said.
  it("--duration: a command that dies of memleak's SIGTERM passes when the gates pass (exit 0, not 143)", async () => {
    const r = await memleak([
      "run",
      "--duration",
      "5s",
      "--fail-on",
      "leak",
      "--json",
      "--",
      "python3",
      "-c",
      "import time\nwhile True:\n    time.sleep(0.1)",
    ]);
    const doc = JSON.parse(r.stdout) as VerdictDocument;
    expect(doc.target, r.stderr).toMatchObject({ stopReason: "duration", exitCode: null, signal: "SIGTERM" });
    expect(r.stderr).toMatch(/stopped: --duration 5s reached \(signal SIGTERM, memleak's: not passed on/);
    expect(r.code, r.stderr).toBe(0);
  });

  // A service's shutdown is not the course of its memory: a gunicorn --preload service whose workers copied ~100 MiB
  // in 30 s passed --max-growth 30MiB, its last tenth's readings taken as its workers finalized and went.
  it("--duration: what the command does once sent SIGTERM (a shutdown that allocates) is not sampled, nor gated", async () => {
    const rec = `${tempDir("shutdown")}/r.jsonl`;
    const code = `import signal, sys, time
def on_term(*_):
    keep = bytearray(200 * 2**20)  # a shutdown that writes its state out, and takes its time
    for i in range(0, len(keep), 4096):
        keep[i] = 1
    time.sleep(2.5)
    sys.exit(0)
signal.signal(signal.SIGTERM, on_term)
while True:
    time.sleep(0.1)`;
    const r = await memleak([
      "run",
      "--duration",
      "12s",
      "--max-growth",
      "50MiB",
      "--record",
      rec,
      "--json",
      "--",
      "python3",
      "-c",
      code,
    ]);
    const doc = JSON.parse(r.stdout) as VerdictDocument;
    expect(doc.target).toMatchObject({ stopReason: "duration", exitCode: 0 });
    expect(r.code, r.stderr).toBe(0);
    const anon = readFileSync(rec, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; processes?: { anon?: number }[] })
      .filter((l) => l.type === "sample")
      .map((s) => Math.max(...s.processes!.map((p) => p.anon ?? 0)));
    expect(anon.length).toBeGreaterThanOrEqual(10);
    expect(Math.max(...anon)).toBeLessThan(100 * 2 ** 20); // no reading of the 200 MiB the shutdown wrote
  });

  it("SIGTERM to memleak is forwarded; the report is still printed and the recording is complete", async () => {
    const dir = tempDir("sig");
    const rec = `${dir}/r.jsonl`;
    const child = spawn(
      process.execPath,
      [MEMLEAK, "run", "--interval", "0.25", "--record", rec, "--", ...scenario("leak_main")],
      { cwd: REPO, env: { ...process.env, NO_COLOR: "1" } },
    );
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    // Signalled once the recording has samples to complete (a fixed 4 s was too short under load, long otherwise).
    expect(await eventually(() => samplesIn(rec) >= 8, 30_000), out).toBe(true);
    child.kill("SIGTERM");
    const code = await new Promise<number | null>((r) => child.once("exit", r));
    expect(code).toBe(143); // the command was terminated by the forwarded SIGTERM: 128 + 15
    expect(out).toMatch(/stopped: interrupted \(signal SIGTERM\)/);
    expect(out).toMatch(/verdict: /);
    const lines = readFileSync(rec, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; target?: { signal?: string } });
    expect(lines[0]!.type).toBe("header");
    expect(lines.at(-1)).toMatchObject({ type: "verdict", target: { signal: "SIGTERM" } });
    expect(cgroupsOf(child.pid!)).toEqual([]);
  });

  // The worker ignores SIGTERM, and allocates (its agent woken as it grows) or idles (its agent asleep, no thread, no
  // socket: a CI run on ae93a59 saw the allocating one outlive memleak, killed before it woke it): stopped all the same.
  it.each([
    ["allocating", "keep.append(bytearray(1 << 20)); time.sleep(0.2)", []],
    // one agent at most, the command's: the idle worker's is never woken
    ["idle, its agent asleep", "time.sleep(0.2)", ["--max-agents", "1"]],
  ])(
    "kill -9 of memleak: a valid recording, the command and its forked worker (%s) stopped, and the next run removes what it left",
    async (_kind, body, options) => {
      const dir = tempDir("kill");
      const rec = `${dir}/r.jsonl`;
      const code = `import os, signal, time\nkeep = []\nworker = os.fork()\nif worker == 0:\n    signal.signal(signal.SIGTERM, signal.SIG_IGN)\n    while True:\n        ${body}\nprint("pids", os.getpid(), worker, flush=True)\ntime.sleep(120)`;
      const child = spawn(
        process.execPath,
        [MEMLEAK, "run", "--interval", "0.1", ...options, "--record", rec, "--", "python3", "-c", code],
        {
          cwd: REPO,
          stdio: ["ignore", "pipe", "pipe"],
          env: { ...process.env, MEMLEAK_ORPHAN_GRACE: "1" },
        },
      );
      let out = "";
      let err = "";
      child.stdout.on("data", (d: Buffer) => (out += d.toString()));
      child.stderr.on("data", (d: Buffer) => (err += d.toString()));
      expect(await eventually(() => /^pids \d+ \d+$/m.test(out), 20_000), out).toBe(true);
      const [root, worker] = /^pids (\d+) (\d+)$/m.exec(out)!.slice(1).map(Number) as [number, number];
      expect(await eventually(() => samplesIn(rec) >= 5, 20_000), err).toBe(true); // a few samples in the recording
      const killed = child.pid!;
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
      try {
        // The command by its parent-death signal (setpriv), the worker through its agent (awake: its socket closed;
        // asleep: its parent's death, PR_SET_PDEATHSIG): SIGTERM, then SIGKILL.
        expect(
          await eventually(() => !alive(root) && !alive(worker), 15_000),
          `root ${alive(root)}, worker ${alive(worker)}`,
        ).toBe(true);
      } finally {
        // Never left behind by a failure here: the worker allocates 5 MiB/s until it is stopped.
        for (const pid of [root, worker]) if (alive(pid)) process.kill(pid, "SIGKILL");
      }
      expect(err).toContain(`memleak: the memleak that launched this process is gone (killed); stopping PID ${worker}`);
      const r = await memleak(["analyze", rec]);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/verdict: /);
      // What the killed memleak left — its cgroup and its agent socket's directory — goes at the next run.
      const leftBy = (pid: number) => [
        ...cgroupsOf(pid),
        ...readdirSync(tmpdir()).filter((d) => d.startsWith(`memleak-agent-${pid}-`)),
      ];
      expect(leftBy(killed).length).toBeGreaterThan(0);
      await memleak(["run", "--", "true"]);
      expect(leftBy(killed)).toEqual([]);
    },
  );

  it("a session that ends as usual says goodbye to the agents: a forked child that outlives the command runs on", async () => {
    const mark = `${tempDir("bye")}/survived`;
    const code = `import os, time\nif os.fork() == 0:\n    time.sleep(3)\n    open(${JSON.stringify(mark)}, "w").write("yes")\n    os._exit(0)\ntime.sleep(1)`;
    const r = await memleak(["run", "--", "python3", "-c", code], { MEMLEAK_ORPHAN_GRACE: "0" });
    expect(r.code).toBe(0);
    expect(await eventually(() => existsSync(mark), 10_000)).toBe(true);
    expect(r.stderr).not.toContain("is gone (killed)");
  });

  it("kill -9 of memleak running a command that is not Python: the command gets SIGTERM", async () => {
    const child = spawn(process.execPath, [MEMLEAK, "run", "--", "sleep", "120"], { cwd: REPO, stdio: "ignore" });
    // memleak's child, once setpriv has exec'd it in the same process.
    const sleeper = () => {
      try {
        const kids = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8")
          .trim()
          .split(" ")
          .filter(Boolean);
        return kids.find((k) => readFileSync(`/proc/${k}/cmdline`, "utf8") === "sleep\x00120\x00");
      } catch {
        return undefined;
      }
    };
    expect(await eventually(() => sleeper() !== undefined, 10_000)).toBe(true);
    const pid = Number(sleeper());
    child.kill("SIGKILL");
    expect(await eventually(() => !alive(pid), 5_000)).toBe(true);
  });

  // The parent-death signal reaches the command only; what it started is the orphan guard's (orphan-guard.ts): before
  // it, a program a shell script started ran on unsupervised after a kill -9 of memleak.
  it("kill -9 of memleak: a program the command started, which ignores SIGTERM, is stopped after the grace", async () => {
    const script = `trap '' TERM; sleep 120 & echo "started $!" >&2; wait`;
    const child = spawn(process.execPath, [MEMLEAK, "run", "--", "sh", "-c", script], {
      cwd: REPO,
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, MEMLEAK_ORPHAN_GRACE: "1" },
    });
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    expect(await eventually(() => /^started \d+$/m.test(err), 10_000), err).toBe(true);
    const sleeper = Number(/^started (\d+)$/m.exec(err)![1]);
    const shell = Number(readFileSync(`/proc/${sleeper}/stat`, "utf8").split(") ")[1]!.split(" ")[1]);
    try {
      child.kill("SIGKILL");
      // the shell ignores SIGTERM as its sleep does: both stop at the guard's SIGKILL, a second after its SIGTERM
      expect(
        await eventually(() => !alive(sleeper) && !alive(shell), 8_000),
        `${err}\nsleep ${alive(sleeper)}, sh ${alive(shell)}`,
      ).toBe(true);
    } finally {
      for (const pid of [sleeper, shell]) if (alive(pid)) process.kill(pid, "SIGKILL");
    }
    expect(err).toContain(`memleak: the memleak that launched this process is gone (killed); stopping PID ${sleeper}`);
  });

  it("--no-isolate reads memleak's own cgroup and says so in the document", async () => {
    const r = await memleak(["run", "--no-isolate", "--json", "--", "python3", "-c", "pass"]);
    const doc = JSON.parse(r.stdout) as VerdictDocument;
    expect(doc.target.cgroup).toMatchObject({ isolated: false });
  });
});

// The two 40 s swing runs by themselves, after everything else here: their verdicts rest on ±100 MB swings every 2.5 s,
// and beside the scenario runs above (400 MB loads read from disk, PyTorch imports) the swings blurred: the 1.5 MB/s
// leak under them was judged stable in a full suite on an idle machine (2026-11-26), while alone it was a leak at
// 0.94× its rate every time. Together they still take one 40 s slot, not two (the file: 80 → 104 s).
describe.skipIf(
  lacking(
    !OWN_MEMORY_CGROUP.ok,
    "a memory cgroup of its own",
    "root on a host with a writable memory cgroup (v1, v2 or hybrid)",
  ),
)(`memleak run under big swings, by themselves${skipNote(OWN_MEMORY_CGROUP)}`, { concurrent: true }, () => {
  it("a 1.5 MB/s leak under ±100 MB swings every 2.5 s is a leak within 40 s at the default interval", async () => {
    const r = await memleak(["run", "--json", "--", "python3", "fixtures/scenarios/swing_leak.py", "40"]);
    const doc = JSON.parse(r.stdout) as VerdictDocument;
    const detail = JSON.stringify(
      doc.findings.map((f) => [f.kind, f.summary, f.evidence.pValue]),
      null,
      1,
    );
    expect(doc.verdict, detail).toMatchObject({ kind: "leak", pid: doc.target.pid, metric: "anon" });
    expect(doc.verdict.rate!.bytesPerSecond / (1.5 * 2 ** 20), detail).toBeGreaterThan(0.7);
    expect(doc.verdict.rate!.bytesPerSecond / (1.5 * 2 ** 20), detail).toBeLessThan(1.3);
  });

  it("the same swings with nothing kept are stable: no leak, no plateau, no step", async () => {
    const r = await memleak(["run", "--json", "--", "python3", "fixtures/scenarios/swing_steady.py", "40"]);
    const doc = JSON.parse(r.stdout) as VerdictDocument;
    const processes = doc.findings.filter((f) => f.subject.type === "process");
    expect(
      processes.map((f) => f.kind),
      JSON.stringify(processes.map((f) => f.summary)),
    ).toEqual(["stable"]);
    expect(doc.findings.filter((f) => f.kind === "leak")).toEqual([]);
  });
});
