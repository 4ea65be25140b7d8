/**
 * f. Pure functions on the largest inputs they meet: thinning a 72-hour 1 Hz series (260k points) for drawing, and
 * every /proc and cgroup parser on one 1 MB line (what a regex that backtracks catastrophically would choke on).
 * These were "… fast" unit tests that asserted no time at all — a time bound in a test on a shared 2-core machine
 * either flakes or bounds nothing — so the time is measured here; the tests keep what they check about the output.
 * Each input is also timed at half its size: a growth near 2× means the time grows linearly with the input.
 */
import { alignForDrawing, downsample } from "../../dist/report/html/downsample.js";
import { parseBytesFile, parseLimitFile, parseOomFile } from "../../dist/probes/cgroup-files.js";
import { parseMemoryStat } from "../../dist/probes/memory-stat.js";
import { parseMountinfo } from "../../dist/probes/mountinfo.js";
import { parseProcCgroup } from "../../dist/probes/proc-cgroup.js";
import { parseSmapsRollup } from "../../dist/probes/smaps-rollup.js";
import { parseStat } from "../../dist/probes/stat.js";
import { parseStatus } from "../../dist/probes/status.js";
import { median } from "../lib/util.mjs";

/** n points a second apart: a slow wave with jitter, and a one-sample spike every ~10k points. */
function series(n) {
  const xs = Array.from({ length: n }, (_, i) => i);
  const ys = xs.map((i) => 5e8 + 1e6 * Math.sin(i / 5000) + ((i * 7919) % 1000) * 200 + (i % 9973 === 0 ? 4e8 : 0));
  return { xs, ys };
}

/** The unit tests' pathological line: a 1 MB key, a colon, 64 KB of blanks, a size. `scale` 0.5 halves it. */
const hugeLine = (scale) => "x".repeat((1 << 20) * scale) + ":" + " ".repeat((1 << 16) * scale) + "1 kB";

const PARSERS = {
  stat: parseStat,
  status: parseStatus,
  smaps_rollup: parseSmapsRollup,
  "proc cgroup": parseProcCgroup,
  mountinfo: parseMountinfo,
  "memory.stat": (t) => parseMemoryStat(t),
  "memory.stat as v2": (t) => parseMemoryStat(t, 2),
  bytes: (t) => parseBytesFile(t, "x"),
  limit: (t) => parseLimitFile(t, "x"),
  "oom v1": (t) => parseOomFile(t, 1),
  "oom v2": (t) => parseOomFile(t, 2),
};

/**
 * Median milliseconds of `fn` on the input and on its half, over `repeats` calls of each, alternating so that both
 * see the same GC and machine load; one unmeasured call of each first (JIT, first allocation).
 */
function row(name, input, fn, makeInput, repeats) {
  const full = makeInput(1);
  const half = makeInput(0.5);
  fn(full);
  fn(half);
  const ms = [];
  const halfMs = [];
  const time = (x) => {
    const t0 = performance.now();
    fn(x);
    return performance.now() - t0;
  };
  for (let r = 0; r < repeats; r++) {
    ms.push(time(full));
    halfMs.push(time(half));
  }
  return { name, input, ms: median(ms), halfMs: median(halfMs), growth: median(ms) / median(halfMs) };
}

export function largestInputs({ repeats, log = () => {} }) {
  const N = 72 * 3600;
  log(`largest inputs: downsample of ${N.toLocaleString("en-US")} points, ×${repeats}`);
  const rows = [
    row("downsample", `${N.toLocaleString("en-US")} points`, downsample, (s) => series(N * s), repeats),
    // renderHtml's path: a dense line and a sparse one (smaps numbers every 30 s) on one grid.
    row(
      "alignForDrawing, 2 lines",
      `${N.toLocaleString("en-US")} + ${(N / 30).toLocaleString("en-US")} points`,
      alignForDrawing,
      (s) => {
        const dense = series(N * s);
        const sparse = { xs: dense.xs.filter((_, i) => i % 30 === 0), ys: dense.ys.filter((_, i) => i % 30 === 0) };
        return [dense, sparse];
      },
      repeats,
    ),
  ];
  log(`largest inputs: ${Object.keys(PARSERS).length} parsers on a 1 MB line, ×${repeats}`);
  for (const [name, parse] of Object.entries(PARSERS))
    rows.push(row(`${name} parser`, "1 MB line", parse, hugeLine, repeats));
  return { repeats, rows };
}
