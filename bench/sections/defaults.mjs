/**
 * g (continued). What users meet: `memleak watch PID` and `memleak run -- CMD` at their defaults, the agent in every
 * Python process, beside `watch PID --no-inject` and psutil's memory_full_info() loop — all at the same time, each on
 * its own copy of bench/py/small_tree.py, so that the ratios share the machine's noise (issue 32). From outside, once a
 * minute: utime + stime of each memleak process (/proc/PID/stat, threads split by name: the main thread, the verdict
 * worker, libuv's and V8's helpers) and of each tree's Python processes (the agents' own cost: the trees otherwise
 * sleep, so a tree watched without the agent costs ~0). Beside them, section g's bare reader (bench/lib/bare-reader.mjs):
 * memleak's own read set of a tree like the `--no-inject` one, captured from its Sampler first (~40 s), replayed on the
 * same schedule by a Node process that does nothing else: what the reads alone cost. It and psutil read a tree of their
 * own: no configuration's tree is read by two readers.
 * Usage as a script: node bench/sections/defaults.mjs [PROCESSES=64] [MINUTES=3] [HZ=1]
 * (MEMLEAK_BENCH_AB=PATH/bin/memleak.js adds that checkout's `run` and `watch` beside ours: an A/B in one run;
 * MEMLEAK_BENCH_MB=64 makes each process own 64 MB instead of 8.)
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { killGroup, MEMLEAK, REPO, sleep, statCpu, sum, SYSTEM_PYTHON } from "../lib/util.mjs";
import { startTree } from "./sampling.mjs";
import { captureReadSet } from "./whole-process.mjs";

/** The name's suffix of a compared watcher's second, on the tree started at the other end of the order. */
const TWIN = " (twin)";

/** The CPU seconds of `pid`'s threads, summed by thread name (comm). */
function threadCpu(pid) {
  const out = {};
  let tids = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const comm = readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim().replace(/\d+$/, "");
      const name = tid === String(pid) ? "main" : comm;
      out[name] = (out[name] ?? 0) + (statCpu(`/proc/${pid}/task/${tid}/stat`) ?? 0);
    } catch {
      /* the thread ended */
    }
  }
  return out;
}

/** Σ PSS (bytes) of `pid` and its descendants (only its descendants: `run`'s memleak), from smaps_rollup. */
function treePss(pid, withRoot = true) {
  let total = 0;
  for (const p of withRoot ? [pid, ...descendants(pid)] : descendants(pid)) {
    try {
      const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${p}/smaps_rollup`, "utf8"));
      total += m ? Number(m[1]) * 1024 : 0;
    } catch {
      /* gone */
    }
  }
  return total;
}

/** Every descendant of `pid` (not itself), from /proc/PID/task/TID/children. */
function descendants(pid) {
  const out = [];
  const stack = [pid];
  while (stack.length > 0) {
    const p = stack.pop();
    let tids = [];
    try {
      tids = readdirSync(`/proc/${p}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      try {
        for (const c of readFileSync(`/proc/${p}/task/${tid}/children`, "utf8").split(" ").filter(Boolean)) {
          out.push(Number(c));
          stack.push(Number(c));
        }
      } catch {
        /* gone */
      }
    }
  }
  return out;
}

/** CPU seconds of a tree's processes, the dead ones' last reading kept (a tree here does not lose processes). */
function treeCpu(root, includeRoot, seen) {
  for (const p of [...(includeRoot ? [root] : []), ...descendants(root)]) {
    const c = statCpu(`/proc/${p}/stat`);
    if (c !== undefined) seen.set(p, c);
  }
  return sum([...seen.values()]);
}

/**
 * MEMLEAK_BENCH_PROF=DIR: each memleak runs under `node --cpu-prof`, its profile written to DIR/<configuration>.cpuprofile
 * as it exits (bench/lib/profile-window.mjs sums a window of it). The profiler costs CPU too: not for the ratios.
 */
function nodeArgs(name) {
  const dir = process.env.MEMLEAK_BENCH_PROF;
  if (!dir) return [];
  return ["--cpu-prof", `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name.replace(/[^a-z-]+/g, "_")}.cpuprofile`];
}

function start(argv) {
  const child = spawn(argv[0], argv.slice(1), {
    cwd: REPO,
    stdio: ["ignore", "pipe", "ignore"],
    detached: true,
    env: { ...process.env, NO_COLOR: "1" },
  });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  const exited = new Promise((resolve) => child.once("exit", () => resolve(out)));
  return { pid: child.pid, exited };
}

/**
 * One run: `processes` per tree, `minutes` long, at `hz`. Returns, per watcher, its CPU seconds minute by minute,
 * its threads' (by name) over the whole run, and its tree's CPU per minute.
 */
export async function measureDefaults({ processes = 64, minutes = 3, hz = 1, log = () => {} }) {
  const workers = String(processes - 1);
  const seconds = minutes * 60;
  const interval = `${1 / hz}s`;
  const common = ["--interval", interval, "--duration", `${seconds}s`, "--json"];
  // MEMLEAK_BENCH_MB: each process's own memory (8 MB by default: the smallest process, where the agent's own pages
  // weigh most in every smaps_rollup read).
  const mb = process.env.MEMLEAK_BENCH_MB ?? "8";
  // The tree started first costs its watcher 10–25% more, whatever watches it, and later ones less (BENCHMARKS §g¹⁷):
  // `watch` and `--no-inject` each watch two trees, started in the order watch, bare, bare, watch, and each figure is
  // the mean of its two watchers (TWIN). Given the first tree alone, `watch` measured 1.19–1.25× where it was ~1.0×.
  const treeWatch = await startTree([workers, mb], "bench/py/small_tree.py");
  const treeBare = await startTree([workers, mb], "bench/py/small_tree.py");
  const treeBareTwin = await startTree([workers, mb], "bench/py/small_tree.py");
  const treeWatchTwin = await startTree([workers, mb], "bench/py/small_tree.py");
  // The bare reader's and psutil's own tree. Read by them as well, the --no-inject tree cost its watcher less than a
  // tree read by one reader alone: the kernel's walk of page tables and page structs another reader had just walked
  // found them in the cache (watch ÷ --no-inject 1.29-1.31 here, 1.04 with the two alone on the machine: §g¹⁵).
  const treeOthers = await startTree([workers, mb], "bench/py/small_tree.py");
  const other = process.env.MEMLEAK_BENCH_AB;
  const treeOther = other ? await startTree([workers, mb], "bench/py/small_tree.py") : undefined;
  const dir = mkdtempSync(join(tmpdir(), "memleak-bench-defaults-"));
  const watchers = {};
  // Σ PSS of the two pre-forked trees before anything watches them, and at the end: what the agents added (issue 49).
  const pss = { before: { watch: treePss(treeWatch.pid), bare: treePss(treeBare.pid) } };
  try {
    const readSet = join(dir, "reads.json");
    log("defaults: capturing memleak's read set of the bare reader's tree");
    writeFileSync(readSet, JSON.stringify(await captureReadSet(treeOthers.pid, hz, Math.max(30, 6 * hz))));
    watchers["watch (default)"] = {
      ...start(["node", ...nodeArgs("watch"), MEMLEAK, "watch", String(treeWatch.pid), ...common]),
      tree: treeWatch.pid,
      treeRoot: true,
    };
    watchers["watch --no-inject"] = {
      ...start(["node", ...nodeArgs("no-inject"), MEMLEAK, "watch", String(treeBare.pid), "--no-inject", ...common]),
      tree: treeBare.pid,
      treeRoot: true,
    };
    watchers[`watch --no-inject${TWIN}`] = {
      ...start([
        "node",
        ...nodeArgs("no-inject-twin"),
        MEMLEAK,
        "watch",
        String(treeBareTwin.pid),
        "--no-inject",
        ...common,
      ]),
      tree: treeBareTwin.pid,
      treeRoot: true,
    };
    watchers[`watch (default)${TWIN}`] = {
      ...start(["node", ...nodeArgs("watch-twin"), MEMLEAK, "watch", String(treeWatchTwin.pid), ...common]),
      tree: treeWatchTwin.pid,
      treeRoot: true,
    };
    // `run` of a memleak (this checkout's, or another's for an A/B) on a small_tree of its own.
    const runOf = (memleak, profileName) => ({
      ...start([
        "node",
        ...nodeArgs(profileName),
        memleak,
        "run",
        ...common,
        "--",
        SYSTEM_PYTHON,
        "bench/py/small_tree.py",
        workers,
        mb,
      ]),
      treeRoot: false,
    });
    watchers["run (default)"] = runOf(MEMLEAK, "run");
    // MEMLEAK_BENCH_AB=/other/checkout/bin/memleak.js: that memleak's `run` as well (another commit, built), on a tree
    // of its own, so that an A/B of a change shares this run's machine and noise.
    if (other && treeOther) {
      watchers["run (A/B other)"] = runOf(other, "run-other");
      // …and its `watch` at the defaults, on a tree of its own started last: the order's bias falls on it alone
      // (§g¹⁷); bench/lib/watch-abba.mjs is the fair A/B of two builds' `watch`.
      watchers["watch (A/B other)"] = {
        ...start(["node", ...nodeArgs("watch-other"), other, "watch", String(treeOther.pid), ...common]),
        tree: treeOther.pid,
        treeRoot: true,
      };
    }
    watchers["bare reads"] = start(["node", "bench/lib/bare-reader.mjs", readSet, String(hz), String(seconds)]);
    watchers.psutil = {
      ...start([SYSTEM_PYTHON, "bench/py/psutil_cost.py", String(treeOthers.pid), String(hz), String(seconds)]),
    };
    for (const w of Object.values(watchers)) {
      w.tree ??= w.treeRoot === false ? w.pid : undefined;
      w.seen = new Map();
      w.perMinute = [];
      w.treePerMinute = [];
      w.last = statCpu(`/proc/${w.pid}/stat`) ?? 0;
      w.lastTree = w.tree === undefined ? 0 : treeCpu(w.tree, w.treeRoot, w.seen);
    }
    const t0 = performance.now();
    for (let m = 1; m <= minutes; m++) {
      await sleep(t0 + Math.min(m * 60, seconds - 1) * 1000 - performance.now());
      for (const w of Object.values(watchers)) {
        const now = statCpu(`/proc/${w.pid}/stat`);
        w.perMinute.push(now === undefined ? NaN : now - w.last);
        if (now !== undefined) w.last = now;
        if (m === minutes) w.threads = threadCpu(w.pid);
        if (w.tree !== undefined) {
          const t = treeCpu(w.tree, w.treeRoot, w.seen);
          w.treePerMinute.push(t - w.lastTree);
          w.lastTree = t;
        }
      }
      log(`defaults: ${processes} processes, minute ${m}/${minutes}`);
    }
    pss.end = {
      watch: treePss(treeWatch.pid),
      bare: treePss(treeBare.pid),
      run: treePss(watchers["run (default)"].pid, false),
    };
    const docs = {};
    for (const [k, w] of Object.entries(watchers)) docs[k] = await w.exited;
    return {
      processes,
      hz,
      minutes,
      pss,
      watchers: Object.fromEntries(
        Object.entries(watchers).map(([k, w]) => [
          k,
          { perMinute: w.perMinute, treePerMinute: w.treePerMinute, threads: w.threads },
        ]),
      ),
      sampling: Object.fromEntries(
        Object.entries(docs)
          .filter(([k]) => k !== "psutil" && k !== "bare reads")
          .map(([k, d]) => [k, safeJson(d)?.sampling]),
      ),
    };
  } finally {
    for (const w of Object.values(watchers)) killGroup(w.pid);
    treeWatch.stop();
    treeBare.stop();
    treeBareTwin.stop();
    treeWatchTwin.stop();
    treeOthers.stop();
    treeOther?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function safeJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The watchers with each twin folded into the watcher it pairs with: per minute, the mean of the two (each watched a
 * tree of the same size), threads summed.
 */
function foldTwins(watchers) {
  const out = {};
  for (const [name, w] of Object.entries(watchers)) if (!name.endsWith(TWIN)) out[name] = w;
  for (const [name, t] of Object.entries(watchers)) {
    if (!name.endsWith(TWIN)) continue;
    const w = out[name.slice(0, -TWIN.length)];
    const mean = (a, b) => a.map((x, i) => (x + (b[i] ?? x)) / 2);
    const threads = { ...w.threads };
    for (const [k, v] of Object.entries(t.threads ?? {})) threads[k] = (threads[k] ?? 0) + v;
    out[name.slice(0, -TWIN.length)] = {
      perMinute: mean(w.perMinute, t.perMinute),
      treePerMinute: mean(w.treePerMinute, t.treePerMinute),
      threads,
    };
  }
  return out;
}

/**
 * Shares of a core: minute 1 alone, and minutes 2..N; each watcher's against `watch --no-inject`'s (each of the two
 * the mean of its pair of trees, started at either end of the order: TWIN).
 */
export function summariseDefaults(r) {
  const share = (xs) => sum(xs) / (60 * xs.length);
  const rows = Object.entries(foldTwins(r.watchers)).map(([name, w]) => ({
    name,
    first: w.perMinute[0] / 60,
    steady: share(w.perMinute.slice(1)),
    agents: w.treePerMinute.length > 1 ? share(w.treePerMinute.slice(1)) : NaN,
    threads: w.threads,
  }));
  const bare = rows.find((x) => x.name === "watch --no-inject");
  const psutil = rows.find((x) => x.name === "psutil");
  const reads = rows.find((x) => x.name === "bare reads");
  for (const x of rows) {
    x.vsNoInject = x.steady / bare.steady;
    x.vsPsutil = x.steady / psutil.steady;
    x.vsBareReads = reads ? x.steady / reads.steady : NaN;
    x.firstVsSteady = x.first / x.steady;
  }
  const MiB = 2 ** 20;
  const pss = r.pss && {
    watchAdded: (r.pss.end.watch - r.pss.before.watch) / MiB,
    bareAdded: (r.pss.end.bare - r.pss.before.bare) / MiB,
    runVsBare: (r.pss.end.run - r.pss.end.bare) / MiB,
  };
  return { processes: r.processes, hz: r.hz, minutes: r.minutes, rows, pss };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [processes = 64, minutes = 3, hz = 1] = process.argv.slice(2).map(Number);
  const r = await measureDefaults({ processes, minutes, hz, log: (s) => console.error(s) });
  const s = summariseDefaults(r);
  console.log(JSON.stringify(r));
  if (s.pss)
    console.log(
      `Σ PSS added: watch (default) ${s.pss.watchAdded.toFixed(1)} MiB, watch --no-inject ${s.pss.bareAdded.toFixed(1)} MiB; run's tree at the end − the --no-inject tree's ${s.pss.runVsBare.toFixed(1)} MiB`,
    );
  for (const x of s.rows) {
    const th = Object.entries(x.threads ?? {})
      .map(([k, v]) => `${k} ${v.toFixed(2)}`)
      .join(", ");
    console.log(
      `${x.name.padEnd(20)} min1 ${(x.first * 100).toFixed(2)}%  min2+ ${(x.steady * 100).toFixed(2)}%  agents ${(x.agents * 100).toFixed(2)}%  ÷no-inject ${x.vsNoInject.toFixed(2)}  ÷psutil ${x.vsPsutil.toFixed(2)}  ÷bare reads ${x.vsBareReads.toFixed(2)}  min1÷steady ${x.firstVsSteady.toFixed(2)}  [${th}]`,
    );
  }
}
