/**
 * analyze --prometheus on §i's fleet (1,000 series × 6 h), builds side by side: `node bench/lib/prom-pairs.mjs ROUNDS
 * BIN...` serves the answer once and runs, each round, every build's `memleak analyze --prometheus --json` and the
 * floor (a Node process that fetches the same answer and JSON.parses it), in turn, so that each build's CPU is a ratio
 * to a floor measured beside it on the same load. CPU is the child's utime + stime (/usr/bin/time -v). Each build's
 * JSON output is written to OUT_DIR (default /tmp) as prom-<i>.json, for a byte comparison of the verdicts.
 */
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { serveFleet } from "../sections/prometheus.mjs";
import { exec, median } from "./util.mjs";

const [rounds = "3", ...bins] = process.argv.slice(2);
const outDir = process.env.OUT_DIR ?? "/tmp/h-prom";
const { server, base, floorScript } = await serveFleet();

const cpuOf = (stderr) =>
  Number(/User time \(seconds\): ([\d.]+)/.exec(stderr)?.[1]) +
  Number(/System time \(seconds\): ([\d.]+)/.exec(stderr)?.[1]);
const floor = () => exec(["/usr/bin/time", "-v", process.execPath, "--input-type=module", "-e", floorScript]);
const analyze = (bin) =>
  exec([
    "/usr/bin/time",
    "-v",
    process.execPath,
    bin,
    "analyze",
    "--prometheus",
    base,
    "--query",
    "x",
    "--range",
    "6h",
    "--step",
    "15s",
    "--json",
  ]);

const ratios = bins.map(() => []);
const cpus = bins.map(() => []);
const floors = [];
try {
  for (let r = 0; r < Number(rounds); r++) {
    const load = loadavg()[0].toFixed(1);
    const f = cpuOf((await floor()).stderr);
    floors.push(f);
    const line = [`round ${r + 1} load ${load} floor ${f.toFixed(2)} s`];
    for (let i = 0; i < bins.length; i++) {
      const a = await analyze(bins[i]);
      if (a.code !== 0) throw new Error(`${bins[i]} exited ${a.code}: ${a.stderr.slice(-300)}`);
      writeFileSync(`${outDir}/prom-${i}.json`, a.stdout);
      const kinds = {};
      for (const x of JSON.parse(a.stdout).findings) kinds[x.kind] = (kinds[x.kind] ?? 0) + 1;
      const c = cpuOf(a.stderr);
      cpus[i].push(c);
      ratios[i].push(c / f);
      line.push(`${bins[i]} ${c.toFixed(2)} s ${(c / f).toFixed(2)}x ${JSON.stringify(kinds)}`);
    }
    console.log(line.join(" | "));
  }
  console.log(
    `load now ${loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")}; floor median ${median(floors).toFixed(2)} s`,
  );
  for (let i = 0; i < bins.length; i++)
    console.log(
      `${bins[i]}: CPU median ${median(cpus[i]).toFixed(2)} s, ratio median ${median(ratios[i]).toFixed(2)}x`,
    );
} finally {
  server.close();
}
