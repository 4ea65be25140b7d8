/**
 * `watch` must leave a live program as it found it: same output and exit code, no thread or socket of memleak's after
 * memleak ends (normally, Ctrl-C, kill -9), no crash or growth over many attaches; a verdict about the watched tree
 * when its cgroup is shared; and one clear line for each reason it could not load the agent.
 */
import { spawn } from "node:child_process";
import { chmodSync, cpSync, readFileSync, rmSync } from "node:fs";
import { describe, expect, it, type TestContext } from "vitest";
import { AgentChannel } from "../../src/agent/channel.js";
import { Attacher } from "../../src/session/attacher.js";
import type { VerdictDocument } from "../../src/analysis/types.js";
import { HostFs } from "../../src/system/host-fs.js";
import { REPO } from "../helpers/fixtures.js";
import { execFileP, MEMLEAK, memleak, startReady, SYSTEM_PYTHON, type Started } from "../helpers/processes.js";
import { alive, childrenOf, eventually, socketCount, startScenario, threadNames } from "../helpers/watched.js";
import { createTestCgroup, HOST_TEST_CGROUP, skipNote } from "../helpers/cgroup.js";

const MiB = 2 ** 20;
/**
 * A target stopped when the test that started it ends, failed or not: busy targets left running would slow the next
 * tests on 2 cores. Per test (its context's onTestFinished), not an afterEach that stops every target: the tests of
 * the last two describes run side by side, and one test's end must not stop another's target.
 */
const track = (ctx: TestContext, s: Started) => (ctx.onTestFinished(() => s.stop()), s);

/** Several threads doing Python work, a main loop printing a heartbeat: what a busy service looks like. */
const BUSY = `
import sys, threading, time
def work():
    d = {}
    while True:
        for i in range(2000):
            d[i % 500] = [i] * 20
        time.sleep(0.001)
for _ in range(4):
    threading.Thread(target=work, daemon=True).start()
print("ready", flush=True)
n = 0
while True:
    n += 1
    if n % 20 == 0:
        print("beat", n, flush=True)
    time.sleep(0.05)
`;
import { tempDir } from "../helpers/temp.js";
import { lacking } from "../helpers/prerequisite.js";

const statusField = (pid: number, field: string) =>
  Number(new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]);
const starttime = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
};
const agentThreads = (pid: number) => threadNames(pid).filter((n) => n === "memleak-agent").length;

describe("watch leaves the program as it found it", { timeout: 120_000 }, () => {
  it("the target's stdout, stderr and exit code are the same watched and unwatched", async () => {
    const script = `import sys, time
for i in range(30):
    print("out", i, "é" * 50, flush=True)
    print("err", i, file=sys.stderr, flush=True)
    time.sleep(0.25)
sys.exit(3)`;
    let printed: () => void = () => {};
    const once = () =>
      new Promise<{ out: string; err: string; code: number | null; pid: number }>((resolve) => {
        const child = spawn("python3", ["-c", script], { stdio: ["ignore", "pipe", "pipe"] });
        let out = "";
        let err = "";
        child.stdout.on("data", (d: Buffer) => ((out += d.toString()), printed()));
        child.stderr.on("data", (d: Buffer) => (err += d.toString()));
        child.on("exit", (code) => resolve({ out, err, code, pid: child.pid! }));
        (once as { pid?: number }).pid = child.pid;
      });
    const plain = await once();
    const running = new Promise<void>((r) => (printed = r)); // the watched run's first line: it is in its loop
    const watchedRun = once();
    await running;
    const w = memleak(["watch", String((once as { pid?: number }).pid), "--interval", "0.5", "--json"]);
    const [watched, report] = await Promise.all([watchedRun, w]);
    expect(report.stderr).toMatch(/agent attached to PID/);
    expect(report.stderr).toMatch(/stopped: PID \d+ exited/);
    expect(watched.out).toBe(plain.out);
    expect(watched.err).toBe(plain.err);
    expect(watched.code).toBe(3);
  });

  // it.for, not it.each: it.for passes the test's context, which track needs.
  it.for(["--duration", "SIGINT", "SIGKILL"])(
    "after memleak ends (%s) the target runs on with no memleak thread or socket",
    async (how, ctx) => {
      const target = track(ctx, await startReady(["python3", "-u", "-c", BUSY], /^ready$/m));
      const sockets = socketCount(target.pid);
      const args = [
        MEMLEAK,
        "watch",
        String(target.pid),
        "--interval",
        "0.5",
        ...(how === "--duration" ? ["--duration", "6"] : []),
      ];
      const m = spawn(process.execPath, args, {
        cwd: REPO,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, NO_COLOR: "1" },
      });
      let err = "";
      m.stderr.on("data", (d: Buffer) => (err += d.toString()));
      const ended = new Promise((r) => m.once("exit", r));
      expect(await eventually(() => /agent attached/.test(err), 20_000), err).toBe(true);
      // The hello is sent just before the agent's thread starts and names itself.
      expect(await eventually(() => agentThreads(target.pid) === 1, 3000)).toBe(true);
      expect(socketCount(target.pid)).toBe(sockets + 1);
      if (how !== "--duration") m.kill(how as NodeJS.Signals);
      await ended;
      expect(await eventually(() => agentThreads(target.pid) === 0 && socketCount(target.pid) === sockets, 5000)).toBe(
        true,
      );
      const beats = target.output().length;
      // Still making progress: a heartbeat comes every second; 10 s allows for a loaded machine.
      expect(await eventually(() => target.output().length > beats, 10_000)).toBe(true);
      expect(alive(target.pid)).toBe(true);
    },
  );

  it("50 attach/detach cycles on a busy multi-threaded target: no crash, no deadlock, no growth", async (ctx) => {
    const target = track(ctx, await startReady(["python3", "-u", "-c", BUSY], /^ready$/m));
    const fs = new HostFs();
    const proc = { pid: target.pid, starttime: starttime(target.pid), comm: "python3" };
    const footprint = () => ({
      threads: statusField(target.pid, "Threads"),
      sockets: socketCount(target.pid),
      // File-backed mappings only (libraries, modules: what an agent could leave loaded). The busy threads' own
      // pymalloc arenas come and go as anonymous mmaps, so the count of all mappings moved by one now and then with
      // no agent involved; anonymous growth is what the RssAnon check below is for.
      maps: readFileSync(`/proc/${target.pid}/maps`, "utf8")
        .split("\n")
        .filter((l) => / \/\S/.test(l)).length,
    });
    let first: ReturnType<typeof footprint> | undefined;
    let anonAfterFirst = 0;
    const attachMs: number[] = [];
    for (let cycle = 0; cycle < 50; cycle++) {
      const channel = await AgentChannel.open();
      const attacher = new Attacher(channel, fs, {
        rootPid: target.pid,
        interval: 0.2,
        env: process.env,
        say: () => {},
      });
      attacher.consider([proc]);
      expect(await eventually(() => attacher.records.get(target.pid) !== undefined, 15_000)).toBe(true);
      const record = attacher.records.get(target.pid)!;
      expect(record, `cycle ${cycle}`).toMatchObject({ status: "attached" });
      attachMs.push(record.ms!);
      await attacher.stop(1000);
      channel.close();
      expect(
        await eventually(() => agentThreads(target.pid) === 0, 5000),
        `cycle ${cycle}: agent thread still there`,
      ).toBe(true);
      // The first attaches may add a malloc arena for the agent's thread (glibc keeps arenas for later threads):
      // from the tenth on, nothing may grow.
      if (cycle === 9) {
        first = footprint();
        anonAfterFirst = statusField(target.pid, "RssAnon");
      }
    }
    expect(alive(target.pid)).toBe(true);
    expect(
      await eventually(() => JSON.stringify(footprint()) === JSON.stringify(first), 3000),
      JSON.stringify({ first, now: footprint() }),
    ).toBe(true);
    expect(statusField(target.pid, "RssAnon") - anonAfterFirst).toBeLessThan(8 * 1024); // kB: under 8 MiB
    const beats = target.output().length;
    expect(await eventually(() => target.output().length > beats, 10_000)).toBe(true); // a heartbeat a second
    attachMs.sort((a, b) => a - b);
    console.log(`attach: median ${attachMs[25]} ms, max ${attachMs[49]} ms over 50 cycles`);
  }, 240_000);
});

// This describe and the next are concurrent: their targets are idle or short, each test stops its own (track), and
// they run together once the busy targets above are gone (a file's consecutive concurrent describes share its slots).
describe
  .skipIf(
    lacking(
      !HOST_TEST_CGROUP.ok,
      "a test memory cgroup",
      "root on a host with a writable memory cgroup (v1, v2 or hybrid)",
    ),
  )
  .concurrent(
    `watch in a cgroup shared with a process that leaks${skipNote(HOST_TEST_CGROUP)}`,
    { timeout: 120_000 },
    () => {
      it("the verdict is about the watched pid (stable); the cgroup's growth is named as outside the watched tree", async () => {
        const shared = createTestCgroup(new HostFs(), HOST_TEST_CGROUP);
        let left: string | undefined;
        // Stopped before the cgroup is removed (it must be empty), so not left to the test's end as track does.
        const mine: Started[] = [];
        try {
          const steady = await startReady(
            [
              "python3",
              "-u",
              "-c",
              "import time\nx = bytearray(40 << 20)\nprint('ready', flush=True)\nwhile True: time.sleep(0.2)",
            ],
            /^ready$/m,
          );
          mine.push(steady);
          const leaker = await startScenario("leak_main", 120);
          mine.push(leaker);
          shared.add(steady.pid);
          shared.add(leaker.pid);
          const r = await memleak([
            "watch",
            String(steady.pid),
            "--duration",
            "25",
            "--interval",
            "0.5",
            "--json",
            "--fail-on",
            "leak",
          ]);
          const doc = JSON.parse(r.stdout) as VerdictDocument;
          expect(doc.verdict).toMatchObject({ kind: "stable", pid: steady.pid });
          const cg = doc.findings.find((f) => f.subject.type === "cgroup")!;
          expect(cg.outsideWatchedTree).toBe(true);
          expect(cg.summary).toMatch(/but not because of the watched tree/);
          expect(cg.summary).toContain(`PID ${leaker.pid}`);
          expect(cg.evidence.otherProcessesAnonGrowth as number).toBeGreaterThan(20 * MiB);
          expect(r.code).toBe(0); // the gate follows the verdict about the watched pid
        } finally {
          for (const s of mine) await s.stop();
          left = shared.remove();
        }
        expect(left).toBeUndefined(); // the test's cgroup is gone again
      });
    },
  );

describe.concurrent(
  "watch says why it could not load the agent, and the verdict says what it could not see",
  { timeout: 120_000 },
  () => {
    const missing = (doc: VerdictDocument) =>
      doc.findings.find((f) => f.pid === doc.target.pid)?.evidence.agentMissingReason;

    it("not a Python process", async (ctx) => {
      const target = track(ctx, await startReady(["sh", "-c", "echo ready; exec sleep 60"], /^ready$/m));
      const record = `${tempDir("watch-rec")}/r.jsonl`;
      const r = await memleak([
        "watch",
        String(target.pid),
        "--duration",
        "3",
        "--interval",
        "0.5",
        "--json",
        "--record",
        record,
      ]);
      expect(r.stderr).toMatch(
        new RegExp(`no agent in PID ${target.pid} \\(sleep\\): not a Python process; watching it from outside`),
      );
      expect(missing(JSON.parse(r.stdout))).toBe("not a Python process");
      // The recording keeps the reason, so `analyze` says the same.
      const again = await memleak(["analyze", record, "--json"]);
      expect(missing(JSON.parse(again.stdout))).toBe("not a Python process");
      rmSync(record.replace(/\/r\.jsonl$/, ""), { recursive: true, force: true });
    });

    it("gdb missing: says how to install it", async (ctx) => {
      const target = track(ctx, await startScenario("frag_burst", 60));
      // The burst is done: 600 MB resident, flat (it starts 1 s in and takes about a second, more under load).
      expect(await eventually(() => statusField(target.pid, "RssAnon") > 500 * 1024, 30_000)).toBe(true);
      const r = await memleak(["watch", String(target.pid), "--duration", "3", "--interval", "0.5", "--json"], {
        PATH: "/nonexistent",
      });
      expect(r.stderr).toMatch(/no agent in PID \d+ \(python3\): gdb is not installed.*apt-get install gdb/);
      const doc = JSON.parse(r.stdout) as VerdictDocument;
      expect(missing(doc)).toMatch(/gdb is not installed/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    });

    it("an interpreter stuck in a long C call holding the GIL: no hang, no kill, one line", async (ctx) => {
      const target = track(
        ctx,
        await startReady(
          ["python3", "-u", "-c", "import re\nprint('ready', flush=True)\nre.match(r'(a+)+$', 'a' * 40 + 'b')"],
          /^ready$/m,
        ),
      );
      const t0 = Date.now();
      const r = await memleak(["watch", String(target.pid), "--duration", "4", "--interval", "0.5", "--json"]);
      expect(Date.now() - t0).toBeLessThan(40_000);
      expect(r.stderr).toMatch(
        /no agent in PID \d+ \(python3\): the interpreter did not run the agent, and its main thread is not blocked in a system call/,
      );
      expect(alive(target.pid)).toBe(true);
      expect(missing(JSON.parse(r.stdout))).toMatch(/no safe point/);
    });

    it("root without CAP_SYS_PTRACE (a container) watching another user's process: says which capability to add", async (ctx) => {
      const target = track(
        ctx,
        await startReady(
          [
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            SYSTEM_PYTHON,
            "-u",
            "-c",
            "import time\nprint('ready', flush=True)\ntime.sleep(60)",
          ],
          /^ready$/m,
        ),
      );
      // setpriv execs the interpreter (same pid); were it to fork instead, the child is the interpreter.
      const pid = childrenOf(target.pid)[0] ?? target.pid;
      const r = await execFileP(
        "setpriv",
        [
          "--bounding-set=-sys_ptrace",
          process.execPath,
          MEMLEAK,
          "watch",
          String(pid),
          "--duration",
          "3",
          "--interval",
          "0.5",
          "--json",
        ],
        { cwd: REPO, env: { ...process.env, NO_COLOR: "1" } },
      );
      expect(r.stderr).toMatch(/memleak runs as root but without CAP_SYS_PTRACE .*--cap-add SYS_PTRACE/);
      expect(missing(JSON.parse(r.stdout))).toMatch(/CAP_SYS_PTRACE/);
    });

    it("another user's process, memleak not root: says whose it is", async (ctx) => {
      const target = track(ctx, await startScenario("frag_burst", 60));
      // The checkout may sit under a directory only root can enter (/root): give the other user its own copy.
      const copy = tempDir("nobody");
      for (const part of [
        "bin",
        "dist",
        "node_modules",
        "package.json",
        "src/advice",
        "src/agent/python",
        "src/agent/attach",
      ]) {
        cpSync(`${REPO}${part}`, `${copy}/${part}`, { recursive: true });
      }
      chmodSync(copy, 0o755);
      try {
        const r = await execFileP(
          "setpriv",
          [
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
            process.execPath,
            `${copy}/bin/memleak.js`,
            "watch",
            String(target.pid),
            "--duration",
            "3",
            "--interval",
            "0.5",
            "--json",
          ],
          { cwd: copy, env: { ...process.env, NO_COLOR: "1" } },
        );
        expect(r.stderr).toMatch(/no agent in PID \d+ \(python3\): PID \d+ belongs to another user \(uid 0\)/);
        expect(
          r.stderr.match(/^memleak: warning: PSS and USS unreadable for PID \d+: .*CAP_SYS_PTRACE/gm),
        ).toHaveLength(1);
        expect(missing(JSON.parse(r.stdout))).toMatch(/another user/);
      } finally {
        rmSync(copy, { recursive: true, force: true });
      }
    });
  },
);
