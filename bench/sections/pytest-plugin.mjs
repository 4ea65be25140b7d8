/**
 * h. The pytest plugin's overhead: one generated suite (bench/py/pytest_suite.py) run by pytest alone, under
 * `memleak run` (the agent, no plugin), under `memleak pytest` (the plugin, one call per test) and under `memleak
 * pytest --repeat 5 --warmup-calls 2` (seven calls per test) beside pytest alone looping each test's body seven times
 * (BENCH_CALLS=7: the same work without the plugin). Interleaved round after round, so load elsewhere hits every
 * variant alike; the figure per variant is the median of pytest's own "in N.NNs" (collection and the tests, not the
 * interpreter's or memleak's start-up).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exec, median, MEMLEAK, SYSTEM_PYTHON } from "../lib/util.mjs";

/** pytest's own duration, from its last line ("200 passed in 0.65s"). */
function pytestSeconds(r) {
  const m = /(?:passed|failed)[^\n]* in (\d+(?:\.\d+)?)s\b/.exec(r.stdout + r.stderr);
  if (!m) throw new Error(`pytest printed no duration (exit ${r.code}): ${(r.stdout + r.stderr).trim().split("\n").slice(-3).join(" / ")}`);
  return Number(m[1]);
}

export async function pytestPlugin({ tests, repeats, log = () => {} }) {
  const dir = mkdtempSync(join(tmpdir(), "memleak-bench-pytest-"));
  try {
    const made = await exec([SYSTEM_PYTHON, "bench/py/pytest_suite.py", dir, String(tests)]);
    if (made.code !== 0) throw new Error(`could not write the suite: ${made.stderr}`);
    const pytest = [SYSTEM_PYTHON, "-m", "pytest", "-q", dir];
    const memleakPytest = (extra) => [process.execPath, MEMLEAK, "pytest", "--python", SYSTEM_PYTHON, "--json", ...extra, "--", "-q", dir];
    const variants = [
      { name: "pytest alone", argv: pytest },
      { name: "memleak run -- pytest (agent, no plugin)", argv: [process.execPath, MEMLEAK, "run", "--json", "--", ...pytest] },
      { name: "memleak pytest (1 call per test)", argv: memleakPytest([]) },
      { name: "pytest alone, each body ×7 (BENCH_CALLS=7)", argv: pytest, env: { BENCH_CALLS: "7" } },
      { name: "memleak pytest --repeat 5 --warmup-calls 2 (7 calls)", argv: memleakPytest(["--repeat", "5", "--warmup-calls", "2"]) },
    ];
    const times = variants.map(() => []);
    for (let r = 0; r < repeats; r++) {
      for (const [i, v] of variants.entries()) {
        log(`pytest plugin: ${v.name}, round ${r + 1}/${repeats}`);
        times[i].push(pytestSeconds(await exec(v.argv, { env: v.env ?? {}, timeoutMs: 600_000 })));
      }
    }
    const s = times.map(median);
    const rows = variants.map((v, i) => ({ name: v.name, seconds: s[i] }));
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
