/**
 * a. Sampling cost: CPU per sample of memleak's Sampler over a real ~2 GB PyTorch process tree, against
 *   (i)  psutil memory_full_info() over the same tree (what a psutil-based monitor pays), and
 *   (ii) the bare reads memleak chose: every file and directory one tick read, logged by wrapping HostFs, read again
 *        half a period later by a loop that does nothing but open/read/close (the kernel's share of the cost).
 * Ratios are per window (Σ CPU / samples), medians over repeated windows: the machine is shared and noisy, and
 * paired measurements taken seconds apart share its noise.
 */
import { spawn } from "node:child_process";
import { Sampler } from "../../dist/sampling/sampler.js";
import { locateMemoryCgroup } from "../../dist/system/cgroup-locate.js";
import { HostFs } from "../../dist/system/host-fs.js";
import { bareReads } from "../lib/bare-reads.mjs";
import { exec, killGroup, median, REPO, sleep, sum, SYSTEM_PYTHON } from "../lib/util.mjs";

const cpuMicros = (since) => {
  const d = process.cpuUsage(since);
  return d.user + d.system;
};

/**
 * Starts bench/py/torch_tree.py (with `args`: WORKERS PARENT_MB WORKER_MB), or another tree `script` that prints
 * "ready", in a process group of its own; resolves when every worker holds its memory.
 */
export async function startTree(args = [], script = "bench/py/torch_tree.py") {
  const child = spawn(SYSTEM_PYTHON, [script, ...args], {
    cwd: REPO,
    stdio: ["ignore", "pipe", "inherit"],
    detached: true,
  });
  await new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => {
      killGroup(child.pid);
      reject(new Error(`${script} not ready after 120 s`));
    }, 120_000);
    child.stdout.on("data", (d) => {
      out += d;
      if (out.includes("ready")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code} (is python3-torch installed?)`)));
  });
  return { pid: child.pid, stop: () => killGroup(child.pid) };
}

/** A HostFs that logs every path it reads or lists, so a tick's reads can be replayed exactly. */
function loggingFs() {
  const fs = new HostFs();
  const log = [];
  // readWith is every file read's door (read and readOptional go through it).
  const readWith = fs.readWith.bind(fs);
  const list = fs.list.bind(fs);
  fs.readWith = (p, parse) => (log.push(["read", p]), readWith(p, parse));
  fs.list = (p) => (log.push(["list", p]), list(p));
  return { fs, log };
}

/** A Sampler reading through a logging HostFs, kept for all windows of one rate (as one long watch would be). */
export function loggingSampler(rootPid, cgroup) {
  const { fs, log } = loggingFs();
  return { sampler: new Sampler({ fs, rootPid, cgroup }), log };
}

/**
 * One window of ticks at `hz`, each followed by its bare replay; per-sample means in µs. The first `settleS` seconds
 * are ticked but not counted: after an idle spell (the psutil window) the smaps token bucket is full, and the first
 * seconds would be charged reads the steady state does not make.
 */
async function memleakWindow({ sampler, log }, hz, seconds, settleS = 1) {
  const memleak = [];
  const bare = [];
  let smapsBefore = 0;
  let smapsMsBefore = 0;
  let measuredFrom;
  const started = performance.now();
  for (let i = 0; performance.now() - started < (seconds + settleS) * 1000; i++) {
    const counted = performance.now() - started >= settleS * 1000 - 1;
    if (counted && measuredFrom === undefined) {
      measuredFrom = performance.now();
      smapsBefore = sampler.totals.smapsReads;
      smapsMsBefore = sampler.totals.smapsMs;
    }
    log.length = 0;
    const c0 = process.cpuUsage();
    const sample = sampler.tick();
    const cpu = cpuMicros(c0);
    if (!sample) throw new Error("the benchmark's process tree is gone");
    const paths = log.slice();
    // The replay waits half a period too: code and caches that have sat idle through a sleep are slower, and the
    // tick always runs after one, so the replay must not run hot right behind it.
    await sleep(started + (i + 0.5) * (1000 / hz) - performance.now());
    const c1 = process.cpuUsage();
    bareReads(paths);
    const bareCpu = cpuMicros(c1);
    if (counted) {
      memleak.push(cpu);
      bare.push(bareCpu);
    }
    await sleep(started + (i + 1) * (1000 / hz) - performance.now());
  }
  const wallS = (performance.now() - measuredFrom) / 1000;
  return {
    samples: memleak.length,
    memleakUs: sum(memleak) / memleak.length,
    bareUs: sum(bare) / bare.length,
    coreShare: sum(memleak) / 1e6 / wallS,
    smapsPerSample: (sampler.totals.smapsReads - smapsBefore) / memleak.length,
    /** The share of one core the smaps_rollup reads took by the budget's own clock (wall time of each read). */
    smapsShare: (sampler.totals.smapsMs - smapsMsBefore) / 1000 / wallS,
  };
}

async function psutilWindow(rootPid, hz, seconds) {
  const r = await exec([SYSTEM_PYTHON, "bench/py/psutil_cost.py", String(rootPid), String(hz), String(seconds)]);
  if (r.code !== 0) throw new Error(`psutil_cost.py failed: ${r.stderr.trim()}`);
  const cpu = JSON.parse(r.stdout.trim().split("\n").pop()).cpu;
  return { samples: cpu.length, psutilUs: (sum(cpu) / cpu.length) * 1e6 };
}

export async function samplingCost({ windowS, repeats, rates = [1, 10], log = () => {} }) {
  const tree = await startTree();
  try {
    const fs = new HostFs();
    const loc = locateMemoryCgroup(fs, tree.pid);
    const cgroup = loc.ok ? loc.location : undefined;
    const described = describeTree(fs, tree.pid);
    const out = [];
    for (const hz of rates) {
      // A new sampler re-reads every command line for its first 3 s (exec chains at start-up), and the JIT has not
      // compiled the parsers yet: 4 s of unmeasured ticks leave the steady state a long watch spends its time in.
      const sampler = loggingSampler(tree.pid, cgroup);
      await memleakWindow(sampler, hz, 4, 0);
      const windows = [];
      for (let r = 0; r < repeats; r++) {
        log(`sampling: ${hz} Hz, window ${r + 1}/${repeats}`);
        const m = await memleakWindow(sampler, hz, windowS);
        const p = await psutilWindow(tree.pid, hz, windowS);
        windows.push({ ...m, ...p, vsBare: m.memleakUs / m.bareUs, vsPsutil: m.memleakUs / p.psutilUs });
      }
      const pick = (k) => median(windows.map((w) => w[k]));
      out.push({
        hz,
        windows: windows.length,
        samples: sum(windows.map((w) => w.samples)),
        memleakUs: pick("memleakUs"),
        bareUs: pick("bareUs"),
        psutilUs: pick("psutilUs"),
        vsBare: pick("vsBare"),
        vsPsutil: pick("vsPsutil"),
        coreShare: pick("coreShare"),
        smapsPerSample: pick("smapsPerSample"),
        smapsShare: pick("smapsShare"),
      });
    }
    return { tree: described, cgroup: cgroup?.path, rates: out };
  } finally {
    tree.stop();
  }
}

/** The tree as the report describes it: processes, Σ RSS (double-counts shared pages) and Σ PSS (its footprint). */
function describeTree(fs, pid) {
  const s = new Sampler({ fs, rootPid: pid, smapsBudget: 1 }).tick(); // a budget of a whole core: read every smaps
  const ps = s?.processes ?? [];
  return { processes: ps.length, rss: sum(ps.map((p) => p.rss ?? 0)), pss: sum(ps.map((p) => p.pss ?? 0)) };
}
