/**
 * h. The pytest plugin's overhead: one generated suite (bench/py/pytest_suite.py) run by pytest alone, under
 * `memleak run` (the agent, no plugin), under `memleak pytest` (the plugin, one call per test) and under `memleak
 * pytest --repeat 5 --warmup-calls 2` (seven calls per test) beside pytest alone looping each test's body seven times
 * (BENCH_CALLS=7: the same work without the plugin). Interleaved round after round, so load elsewhere hits every
 * variant alike. The figure per variant is the median of the CPU the pytest process took from its session's start
 * to its summary (the suite's conftest.py prints it; every thread, the agent's included): on a shared two-core
 * machine the wall time counted other processes' work — pytest alone once took longer than under memleak. pytest's
 * own wall time ("in N.NNs") is shown beside it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exec, median, MEMLEAK, SYSTEM_PYTHON } from "../lib/util.mjs";

/** The session's CPU seconds (the suite's conftest.py) and pytest's own wall time ("200 passed in 0.65s"). */
function pytestSeconds(r) {
  const out = r.stdout + r.stderr;
  const cpu = /^BENCH_CPU_SECONDS=(\d+(?:\.\d+)?)$/m.exec(out);
  const wall = /(?:passed|failed)[^\n]* in (\d+(?:\.\d+)?)s\b/.exec(out);
  if (!cpu || !wall)
    throw new Error(`pytest printed no timing (exit ${r.code}): ${out.trim().split("\n").slice(-3).join(" / ")}`);
  return { cpu: Number(cpu[1]), wall: Number(wall[1]) };
}

export async function pytestPlugin({ tests, repeats, log = () => {} }) {
  const dir = mkdtempSync(join(tmpdir(), "memleak-bench-pytest-"));
  try {
    const made = await exec([SYSTEM_PYTHON, "bench/py/pytest_suite.py", dir, String(tests)]);
    if (made.code !== 0) throw new Error(`could not write the suite: ${made.stderr}`);
    const pytest = [SYSTEM_PYTHON, "-m", "pytest", "-q", dir];
    const memleakPytest = (extra) => [
      process.execPath,
      MEMLEAK,
      "pytest",
      "--python",
      SYSTEM_PYTHON,
      "--json",
      ...extra,
      "--",
      "-q",
      dir,
    ];
    const variants = [
      { name: "pytest alone", argv: pytest },
      {
        name: "memleak run -- pytest (agent, no plugin)",
        argv: [process.execPath, MEMLEAK, "run", "--json", "--", ...pytest],
      },
      { name: "memleak pytest (1 call per test)", argv: memleakPytest([]) },
      { name: "pytest alone, each body ×7 (BENCH_CALLS=7)", argv: pytest, env: { BENCH_CALLS: "7" } },
      {
        name: "memleak pytest --repeat 5 --warmup-calls 2 (7 calls)",
        argv: memleakPytest(["--repeat", "5", "--warmup-calls", "2"]),
      },
    ];
    const times = variants.map(() => []);
    for (let r = 0; r < repeats; r++) {
      for (const [i, v] of variants.entries()) {
        log(`pytest plugin: ${v.name}, round ${r + 1}/${repeats}`);
        times[i].push(pytestSeconds(await exec(v.argv, { env: v.env ?? {}, timeoutMs: 600_000 })));
      }
    }
    const s = times.map((ts) => median(ts.map((t) => t.cpu)));
    const rows = variants.map((v, i) => ({ name: v.name, cpu: s[i], wall: median(times[i].map((t) => t.wall)) }));
    return {
      tests,
      repeats,
      rows,
      plugin: { ratio: s[2] / s[0], msPerTest: ((s[2] - s[0]) / tests) * 1000, vsAgent: s[2] / s[1] },
      agent: { ratio: s[1] / s[0] },
      repeat: { ratio: s[4] / s[3], msPerCall: ((s[4] - s[3]) / (tests * 7)) * 1000 },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
