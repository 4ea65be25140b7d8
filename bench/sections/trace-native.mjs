/**
 * j. What `run --trace-native` costs the target: bench's workload (bench/py/workload.py, as in section b) and an
 * allocation-heavy one (bench/py/alloc_heavy.py: every allocation a malloc) alone, under `memleak run --no-agent`,
 * and under `memleak run --no-agent --trace-native`. The workload times itself (wall and CPU, inside the process:
 * heaptrack's cost of recording each allocation's stack); "wall incl. reading" is the whole command, which under
 * --trace-native includes memleak running heaptrack_interpret and heaptrack_print on the trace after the command
 * exited (heaptrack_print on the whole trace, and up to each cut when a stack could be claimed). Variants interleaved
 * round after round; medians.
 */
import { exec, median, MEMLEAK, SYSTEM_PYTHON } from "../lib/util.mjs";

async function timed(argv) {
  const r = await exec(argv, { timeoutMs: 600_000 });
  const line = [...r.stdout.split("\n"), ...r.stderr.split("\n")].find((l) => l.startsWith('{"seconds"'));
  if (!line)
    throw new Error(
      `workload printed no timing (exit ${r.code}): ${r.stderr.trim().split("\n").slice(-3).join(" / ")}`,
    );
  return { ...JSON.parse(line), wall: r.wallMs / 1000 };
}

export async function traceNativeCost({ workloadRounds, heavyRounds, repeats, log = () => {} }) {
  const workloads = [
    { name: `workload.py ${workloadRounds}`, argv: [SYSTEM_PYTHON, "bench/py/workload.py", String(workloadRounds)] },
    { name: `alloc_heavy.py ${heavyRounds}`, argv: [SYSTEM_PYTHON, "bench/py/alloc_heavy.py", String(heavyRounds)] },
  ];
  const run = (extra, w) => [process.execPath, MEMLEAK, "run", "--json", "--no-agent", ...extra, "--", ...w.argv];
  const out = [];
  for (const w of workloads) {
    const variants = [
      { name: "alone", argv: w.argv },
      { name: "memleak run --no-agent", argv: run([], w) },
      { name: "memleak run --no-agent --trace-native", argv: run(["--trace-native"], w) },
    ];
    const times = variants.map(() => []);
    for (let r = 0; r < repeats; r++) {
      for (const [i, v] of variants.entries()) {
        log(`trace-native: ${w.name}, ${v.name}, round ${r + 1}/${repeats}`);
        times[i].push(await timed(v.argv));
      }
    }
    const med = (i, k) => median(times[i].map((t) => t[k]));
    const rows = variants.map((v, i) => ({
      name: v.name,
      seconds: med(i, "seconds"),
      cpu: med(i, "cpu"),
      wall: med(i, "wall"),
      vsAlone: med(i, "seconds") / med(0, "seconds"),
      cpuVsAlone: med(i, "cpu") / med(0, "cpu"),
      vsUntraced: med(i, "seconds") / med(1, "seconds"),
    }));
    out.push({ workload: w.name, rows, mallocs: times[0][0]?.mallocs });
  }
  return { repeats, workloads: out };
}
