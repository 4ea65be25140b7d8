/**
 * e. `watch` with the injected agent: how long attaching takes, and how much the agent slows the watched program.
 * The same fixed workload (bench/py/workload.py) runs unwatched and watched, interleaved round after round. It waits
 * for a go-file in a loop of short sleeps (so the agent can be injected at a safe point before the timed work starts);
 * for the watched variant the go-file appears once memleak says the agent is in. The workload times itself.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median, MEMLEAK, REPO, sleep } from "../lib/util.mjs";

const BOOT = (go, rounds) =>
  `import os, runpy, sys, time\nwhile not os.path.exists(${JSON.stringify(go)}): time.sleep(0.02)\nsys.argv = ["workload.py", "${rounds}"]\nrunpy.run_path(${JSON.stringify(join(REPO, "bench/py/workload.py"))}, run_name="__main__")`;

function start(argv, opts = {}) {
  const child = spawn(argv[0], argv.slice(1), { cwd: REPO, stdio: ["ignore", "pipe", "pipe"], ...opts });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const done = new Promise((r) => child.once("exit", (code) => r(code)));
  return { child, done, out: () => out, err: () => err };
}

async function once(watched, rounds, dir, i) {
  const go = join(dir, `go-${i}`);
  const target = start(["python3", "-u", "-c", BOOT(go, rounds)]);
  let attachMs;
  let watcher;
  if (watched) {
    watcher = start([process.execPath, MEMLEAK, "watch", String(target.child.pid), "--interval", "1"], {
      env: { ...process.env, NO_COLOR: "1" },
    });
    const t0 = Date.now();
    while (!/agent attached .* in ([\d.]+) s/.test(watcher.err()) && Date.now() - t0 < 30_000) await sleep(20);
    const m = /agent attached .* in ([\d.]+) s/.exec(watcher.err());
    if (!m) throw new Error(`no attach: ${watcher.err()}`);
    attachMs = Number(m[1]) * 1000;
  } else await sleep(300);
  writeFileSync(go, "");
  await target.done;
  await watcher?.done;
  const line = target
    .out()
    .split("\n")
    .find((l) => l.startsWith('{"seconds"'));
  if (!line) throw new Error(`workload printed no timing: ${target.err()}`);
  return { ...JSON.parse(line), attachMs };
}

export async function attachCost({ rounds, repeats, log = () => {} }) {
  const dir = mkdtempSync(join(tmpdir(), "memleak-bench-attach-"));
  const alone = [];
  const watched = [];
  try {
    for (let r = 0; r < repeats; r++) {
      log(`attach: round ${r + 1}/${repeats}`);
      // ABBA order: whichever runs first in a pair does not always get the colder caches.
      const pair = r % 2 === 0 ? [false, true] : [true, false];
      for (const w of pair) (w ? watched : alone).push(await once(w, rounds, dir, `${w ? "w" : "a"}${r}`));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const a = median(alone.map((x) => x.seconds));
  const w = median(watched.map((x) => x.seconds));
  return {
    rounds,
    repeats,
    alone: a,
    watched: w,
    ratio: w / a,
    attachMs: median(watched.map((x) => x.attachMs)),
    attachMaxMs: Math.max(...watched.map((x) => x.attachMs)),
  };
}

/**
 * Whole-process CPU over minutes, as a user pays it: three identical service-like Python loops started at once, one
 * unwatched, one under `memleak watch` (agent injected), one under `memleak watch --no-inject`; utime+stime of each
 * target and of each memleak from /proc/PID/stat over the same `seconds`, after a 5 s start.
 */
const SERVICE =
  "import time\nd = {}\nwhile True:\n    for i in range(300): d[i % 100] = [i] * 10\n    time.sleep(0.01)";

const cpuTicks = (pid) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(f[11]) + Number(f[12]);
};

export async function idleCost({ seconds, log = () => {} }) {
  const targets = [0, 1, 2].map(() => start(["python3", "-c", SERVICE]));
  await sleep(1000);
  const watchers = [
    start([process.execPath, MEMLEAK, "watch", String(targets[1].child.pid), "--duration", String(seconds + 10)]),
    start([
      process.execPath,
      MEMLEAK,
      "watch",
      String(targets[2].child.pid),
      "--duration",
      String(seconds + 10),
      "--no-inject",
    ]),
  ];
  try {
    await sleep(5000);
    const pids = [...targets.map((t) => t.child.pid), ...watchers.map((w) => w.child.pid)];
    const before = pids.map(cpuTicks);
    log(`attach: whole-process CPU over ${seconds} s`);
    await sleep(seconds * 1000);
    const used = pids.map((p, i) => (cpuTicks(p) - before[i]) / 100 / seconds); // share of one core (USER_HZ = 100)
    return {
      seconds,
      unwatched: used[0],
      injected: used[1],
      noInject: used[2],
      memleakInjecting: used[3],
      memleakNoInject: used[4],
      attached: /agent attached/.test(watchers[0].err()),
    };
  } finally {
    for (const t of targets) t.child.kill("SIGKILL");
    await Promise.all(watchers.map((w) => w.done));
  }
}
