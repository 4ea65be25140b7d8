/**
 * Two `watch` configurations against each other with the trees' order balanced (issue 49, BENCHMARKS §g¹⁷): four
 * copies of bench/py/small_tree.py started one after the other, watched A, B, B, A, all at once. The bench's section g
 * gives each configuration one tree, and the tree started first cost its watcher ~10% more than one started later
 * whatever watched it (two `--no-inject` watchers on the first and third trees: 416 and 374 ticks over the same
 * minutes), which is as large as the difference it was measuring. Here each configuration has one early tree and
 * one late one.
 * From outside, utime + stime of each memleak process (/proc/PID/stat; not its children, the debuggers) in minute 1
 * and in minutes 2..N.
 * Usage: node bench/lib/watch-abba.mjs [PROCESSES=64] [MINUTES=5] [A=default] [B=no-inject]
 * (a configuration is `default`, `no-inject`, or the path of another checkout's bin/memleak.js, built: its defaults)
 */
import { spawn } from "node:child_process";
import { startTree } from "../sections/sampling.mjs";
import { cpuSeconds, killGroup, MEMLEAK, REPO, sleep } from "./util.mjs";

/** The command line that watches `tree` as configuration `conf` does, for `seconds`. */
function watchArgv(conf, tree, seconds) {
  const bin = conf === "default" || conf === "no-inject" ? MEMLEAK : conf;
  const extra = conf === "no-inject" ? ["--no-inject"] : [];
  return ["node", bin, "watch", String(tree), ...extra, "--duration", `${seconds}s`, "--json"];
}

export async function watchAbba({ processes = 64, minutes = 5, a = "default", b = "no-inject", log = () => {} }) {
  const seconds = minutes * 60;
  const order = [a, b, b, a];
  const trees = [];
  const watchers = [];
  try {
    for (let i = 0; i < order.length; i++)
      trees.push(await startTree([String(processes - 1), "8"], "bench/py/small_tree.py"));
    for (let i = 0; i < order.length; i++) {
      const argv = watchArgv(order[i], trees[i].pid, seconds);
      const child = spawn(argv[0], argv.slice(1), { cwd: REPO, stdio: "ignore", detached: true });
      watchers.push({ conf: order[i], pid: child.pid, exited: new Promise((r) => child.once("exit", r)) });
    }
    const start = watchers.map((w) => cpuSeconds(w.pid) ?? 0);
    const t0 = performance.now();
    await sleep(60_000);
    const atMinute = watchers.map((w) => cpuSeconds(w.pid) ?? NaN);
    log(`watch-abba: minute 1 of ${minutes}`);
    await sleep(t0 + (seconds - 1) * 1000 - performance.now());
    const atEnd = watchers.map((w) => cpuSeconds(w.pid) ?? NaN);
    await Promise.all(watchers.map((w) => w.exited));
    const slots = watchers.map((w, i) => ({
      conf: w.conf,
      tree: i + 1,
      first: atMinute[i] - start[i],
      steady: (atEnd[i] - atMinute[i]) / (minutes - 1),
    }));
    const of = (conf) => {
      const s = slots.filter((x) => x.conf === conf);
      const first = s.reduce((t, x) => t + x.first, 0) / s.length;
      const steady = s.reduce((t, x) => t + x.steady, 0) / s.length;
      return { first, steady, firstVsSteady: first / steady };
    };
    return { processes, minutes, slots, a: of(a), b: of(b), steadyAvsB: of(a).steady / of(b).steady };
  } finally {
    for (const w of watchers) killGroup(w.pid);
    for (const t of trees) t.stop();
  }
}

function print(r, a, b) {
  for (const s of r.slots)
    console.log(
      `tree ${s.tree} (started ${["1st", "2nd", "3rd", "4th"][s.tree - 1]})  ${s.conf.padEnd(12)} minute 1 ${s.first.toFixed(2)} s  a steady minute ${s.steady.toFixed(3)} s`,
    );
  for (const [name, x] of [
    [a, r.a],
    [b, r.b],
  ])
    console.log(
      `${name.padEnd(12)} minute 1 ${x.first.toFixed(2)} s, a steady minute ${x.steady.toFixed(3)} s, minute 1 ÷ steady ${x.firstVsSteady.toFixed(2)}`,
    );
  console.log(`steady: ${a} ÷ ${b} = ${r.steadyAvsB.toFixed(2)}`);
}

if (process.argv[1]?.endsWith("watch-abba.mjs")) {
  const [processes = "64", minutes = "5", a = "default", b = "no-inject"] = process.argv.slice(2);
  const r = await watchAbba({
    processes: Number(processes),
    minutes: Number(minutes),
    a,
    b,
    log: (l) => console.error(l),
  });
  print(r, a, b);
}
