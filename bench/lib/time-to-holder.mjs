/**
 * Issue 49's last target: on a service of WORKERS idle forked workers (bench/py/idle_tree_one_leaks.py, 8 MB each), the
 * last worker starts keeping 1 MiB a second LEAK_AFTER seconds after "ready"; how long from the leak's start to the
 * agent naming what holds it (the holder message's own time, from the recording), under `watch` (agents injected
 * where they tell something) and `run` (the worker's quiet agent woken). Also the tree's Σ PSS read from /proc at the
 * end against a `--no-inject` twin for watch. One run each, one after the other.
 * Usage: node bench/lib/time-to-holder.mjs [WORKERS=64] [LEAK_AFTER=30] [SECONDS=100]
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { killGroup, MEMLEAK, REPO } from "./util.mjs";

const [workers = 64, leakAfter = 30, seconds = 100] = process.argv.slice(2).map(Number);
const PROGRAM = join(REPO, "bench/py/idle_tree_one_leaks.py");

function launch(argv) {
  const child = spawn(argv[0], argv.slice(1), { cwd: REPO, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  return { child, output: () => out, exited: new Promise((r) => child.once("exit", r)) };
}

async function until(test, ms) {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The first holder message of `pid` in a recording: its time (the agent's clock, epoch seconds) and path. */
function holderOf(recording, pid) {
  for (const line of readFileSync(recording, "utf8").split("\n")) {
    if (!line.includes('"agent-holder"')) continue;
    try {
      const e = JSON.parse(line); // { type: "event", t: ms, event: "agent-holder", detail: the agent's message }
      const m = e.detail ?? {};
      if (m.pid === pid && m.t) return { t: m.t, path: m.path };
    } catch {
      /* not an event line */
    }
  }
  return undefined;
}

const dir = mkdtempSync(join(tmpdir(), "memleak-bench-holder-"));
try {
  for (const mode of ["watch", "run"]) {
    const recording = join(dir, `${mode}.jsonl`);
    const program = ["python3", PROGRAM, String(workers), "8", String(leakAfter)];
    let tree;
    let memleak;
    if (mode === "watch") {
      tree = launch(program);
      await until(() => /^ready$/m.test(tree.output()), 120_000);
      memleak = launch([
        "node",
        MEMLEAK,
        "watch",
        String(tree.child.pid),
        "--duration",
        `${seconds}s`,
        "--record",
        recording,
      ]);
    } else {
      memleak = launch(["node", MEMLEAK, "run", "--record", recording, "--", ...program, String(seconds)]);
      tree = memleak;
    }
    await memleak.exited;
    if (mode === "watch") killGroup(tree.child.pid); // the program and its workers
    const leak = /leaking worker: (\d+) since ([\d.]+)/.exec(tree.output());
    const holder = leak && holderOf(recording, Number(leak[1]));
    console.log(
      `${mode}: ${workers} workers, leak from ${leak ? `PID ${leak[1]}` : "?"}; holder ${holder ? `${holder.path} ${(holder.t - Number(leak[2])).toFixed(1)} s after the leak began` : "not named"}`,
    );
    const placement = /agents (?:in|report from) .*$/m.exec(memleak.output());
    if (placement) console.log(`  ${placement[0]}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
