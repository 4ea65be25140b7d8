/**
 * g. What a user pays for `memleak watch`, measured from outside: the whole memleak process's CPU (utime + stime from
 * /proc/PID/stat — its parsing, its analysis, its recording, its event loop, Node itself), minute by minute, beside
 *   (i)  a bare reader (bench/lib/bare-reader.mjs): a Node process replaying memleak's own read set on the same
 *        schedule — the files one Sampler tick read, captured from memleak's Sampler on the same tree, cycled;
 *   (ii) psutil (bench/py/psutil_cost.py): memory_full_info() of every process of the tree, on the same schedule;
 * all three watching the same tree at the same time, so they share the machine's noise. Trees: bench/py/torch_tree.py
 * with 8 workers (9 processes, ~2 GB Σ PSS), and bench/py/small_tree.py (64 plain Python processes of ~8 MB).
 * memleak runs with --no-inject:
 * the bare reads are the sampler's, and the agent's reports are not part of them.
 * The first minute (Node's and Python's start-up, the first reads of every command line) is left out of the ratios.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { locateMemoryCgroup } from "../../dist/system/cgroup-locate.js";
import { HostFs } from "../../dist/system/host-fs.js";
import { PSS_EAGER_SECONDS } from "../../dist/sampling/sampler.js";
import { cpuSeconds, killGroup, MEMLEAK, REPO, sleep, sum, SYSTEM_PYTHON } from "../lib/util.mjs";
import { loggingSampler, startTree } from "./sampling.mjs";

/** How long psutil runs beside the others (see measureWhole). */
const PSUTIL_MINUTES = 5;

/** Each tree: the script and its arguments. */
export const TREES = {
  "9 processes (torch, ~2 GB)": ["bench/py/torch_tree.py", []],
  "64 small processes": ["bench/py/small_tree.py", ["63", "8"]],
};

/**
 * memleak's read set on this tree: what `ticks` consecutive ticks of its Sampler read, at `hz`, once its first
 * PSS_EAGER_SECONDS are over. A fresh sampler reads smaps_rollup as often as its budget allows for those seconds (the
 * early test of a CI step wants every reading), then every --pss-every: a read set captured in them gave the bare
 * reader more smaps reads than the long watch it stands beside makes, and flattered memleak.
 */
export async function captureReadSet(rootPid, hz, ticks) {
  const loc = locateMemoryCgroup(new HostFs(), rootPid);
  const { sampler, log } = loggingSampler(rootPid, loc.ok ? loc.location : undefined);
  const out = [];
  const started = performance.now();
  const warm = (PSS_EAGER_SECONDS + 2) * hz;
  for (let i = 0; i < warm + ticks; i++) {
    log.length = 0;
    sampler.tick();
    if (i >= warm) out.push(log.slice());
    await sleep(started + (i + 1) * (1000 / hz) - performance.now());
  }
  return out;
}

function start(argv, { stdout = "ignore" } = {}) {
  const child = spawn(argv[0], argv.slice(1), {
    cwd: REPO,
    stdio: ["ignore", stdout, "ignore"],
    detached: true,
    env: { ...process.env, NO_COLOR: "1" },
  });
  let out = "";
  child.stdout?.on("data", (d) => (out += d));
  const exited = new Promise((resolve) => child.once("exit", () => resolve(out)));
  return { pid: child.pid, exited };
}

/**
 * One configuration: a tree, a rate, a length. Returns the CPU seconds of each watcher per minute (from its start),
 * and memleak's verdict document (its `sampling` block says how late ticks were and how old PSS got).
 */
export async function measureWhole({ tree, hz, minutes, psutil = true, log = () => {} }) {
  const [script, args] = TREES[tree];
  const t = await startTree(args, script);
  const dir = mkdtempSync(join(tmpdir(), "memleak-bench-g-"));
  try {
    const readSet = join(dir, "reads.json");
    writeFileSync(readSet, JSON.stringify(await captureReadSet(t.pid, hz, Math.max(30, 6 * hz))));
    const seconds = minutes * 60;
    const watchers = {
      memleak: start(
        [
          "node",
          MEMLEAK,
          "watch",
          String(t.pid),
          "--no-inject",
          "--interval",
          `${1 / hz}s`,
          "--duration",
          `${seconds}s`,
          "--json",
        ],
        { stdout: "pipe" },
      ),
      bare: start(["node", "bench/lib/bare-reader.mjs", readSet, String(hz), String(seconds)]),
      // psutil for the first PSUTIL_MINUTES only: on 64 processes it takes a quarter of a core, which would
      // disturb an hour-long soak of the others; its cost per minute does not change with time.
      ...(psutil && {
        psutil: start([
          SYSTEM_PYTHON,
          "bench/py/psutil_cost.py",
          String(t.pid),
          String(hz),
          String(Math.min(seconds, PSUTIL_MINUTES * 60)),
        ]),
      }),
    };
    const perMinute = Object.fromEntries(Object.keys(watchers).map((k) => [k, []]));
    const last = Object.fromEntries(Object.keys(watchers).map((k) => [k, cpuSeconds(watchers[k].pid) ?? 0]));
    const t0 = performance.now();
    for (let m = 1; m <= minutes; m++) {
      // Read just before the watchers' end, not after it: a process that has exited has no /proc/PID/stat.
      await sleep(t0 + Math.min(m * 60, seconds - 1) * 1000 - performance.now());
      if (m > PSUTIL_MINUTES && watchers.psutil) perMinute.psutil.push(NaN);
      for (const [k, w] of Object.entries(watchers)) {
        if (k === "psutil" && m > PSUTIL_MINUTES) continue;
        const now = cpuSeconds(w.pid);
        perMinute[k].push(now === undefined ? NaN : now - last[k]);
        if (now !== undefined) last[k] = now;
      }
      if (m % 5 === 0 || m === minutes) log(`whole process: ${tree}, ${hz} Hz, minute ${m}/${minutes}`);
    }
    const doc = JSON.parse((await watchers.memleak.exited) || "{}");
    await Promise.all(Object.values(watchers).map((w) => w.exited));
    return { tree, hz, minutes, perMinute, sampling: doc.sampling };
  } finally {
    t.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Ratios over minutes 2..N, and the flatness of memleak's cost: its last 5 minutes against minutes 2–6. */
export function summarise(r) {
  const after = (xs) => xs.slice(1);
  // Over the minutes a watcher ran (psutil: the first PSUTIL_MINUTES), the first left out.
  const share = (k) => {
    const xs = r.perMinute[k] ? after(r.perMinute[k]).filter(Number.isFinite) : [];
    return xs.length > 0 ? sum(xs) / (60 * xs.length) : NaN;
  };
  const m = r.perMinute.memleak;
  const block = (xs) => sum(xs) / xs.length;
  const early = m.slice(1, Math.min(6, m.length));
  const late = m.slice(Math.max(1, m.length - 5));
  return {
    tree: r.tree,
    hz: r.hz,
    minutes: r.minutes,
    memleak: share("memleak"),
    bare: share("bare"),
    psutil: share("psutil"),
    vsBare: share("memleak") / share("bare"),
    vsPsutil: share("memleak") / share("psutil"),
    // Per-minute CPU is counted in 10 ms clock ticks (~60 of them a minute at 1% of a core): 5-minute blocks.
    lateVsEarly: r.minutes >= 7 ? block(late) / block(early) : NaN,
    lateTicks: r.sampling?.lateTicks,
    ticks: r.sampling?.ticks,
    pssAgeMedian: r.sampling?.pssAge?.median,
    pssAgeMax: r.sampling?.pssAge?.max,
  };
}
