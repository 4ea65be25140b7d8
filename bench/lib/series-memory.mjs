/**
 * What a long watch of a big tree keeps in memory: the series (src/series/series.ts) that `run` and `watch` build, fed
 * N processes' samples at 1 Hz for TICKS ticks, with and without the agents' reports, and the heap they hold (after a
 * full collection) at every CHECK ticks. The samples are real ones: the last of fixtures/recordings/fork_cow.jsonl
 * (a forked worker's RSS, anon, PSS, USS and shared numbers, and its agent's report: threads, py, malloc, census),
 * copied to N pids with the values moved a little each tick so no column is constant. Needs --expose-gc:
 *   node --expose-gc bench/lib/series-memory.mjs [N=64] [TICKS=20000] [CHECK=5000] [DIST=dist]
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { REPO } from "./util.mjs";

const [n = "64", ticks = "20000", check = "5000", dist = "dist"] = process.argv.slice(2);
const N = Number(n);
const T = Number(ticks);
const CHECK = Number(check);
if (typeof globalThis.gc !== "function") throw new Error("run with node --expose-gc");
const DIST = resolve(REPO, dist);
const { SeriesBuilder } = await import(join(DIST, "series/series.js"));
const { DEFAULT_CAPACITY } = await import(join(DIST, "series/column.js"));
const { INTERIM_POINTS } = await import(join(DIST, "session/interim/verdicts.js"));

const last = readFileSync(join(REPO, "fixtures/recordings/fork_cow.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l))
  .filter((r) => r.type === "sample" && r.agent)
  .at(-1);
const [pid0, report] = Object.entries(last.agent).at(-1);
const proc0 = last.processes.find((p) => String(p.pid) === pid0);

const heapMiB = () => {
  globalThis.gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

function run(withAgent) {
  const base = heapMiB();
  const b = new SeriesBuilder(DEFAULT_CAPACITY, INTERIM_POINTS);
  const rows = [];
  for (let t = 0; t < T; t++) {
    const step = (t % 7) * 4096;
    const processes = Array.from({ length: N }, (_, i) => ({
      ...proc0,
      pid: 1000 + i,
      ppid: i === 0 ? 1 : 1000,
      rss: proc0.rss + step,
      anon: proc0.anon + step,
      ...(t % 2 === 0 && { pss: proc0.pss + step, uss: proc0.uss + step }),
    }));
    let agent;
    if (withAgent) {
      agent = {};
      for (let i = 0; i < N; i++)
        agent[String(1000 + i)] = { ...report, malloc: { ...report.malloc, inUse: report.malloc.inUse + step } };
    }
    b.add({ ...last, t: 1e12 + t * 1000, processes, agent });
    if ((t + 1) % CHECK === 0) rows.push([t + 1, heapMiB() - base]);
  }
  const ps = [...b.set.processes.values()][1];
  return { rows, agentColumns: Object.keys(ps.agent).length, metricColumns: Object.keys(ps.metrics).length };
}

const bare = run(false);
const agents = run(true);
console.log(
  `${N} processes; columns a process: ${bare.metricColumns} of /proc numbers, ${agents.agentColumns} of the agent's`,
);
for (let i = 0; i < bare.rows.length; i++) {
  const [t, without] = bare.rows[i];
  const withA = agents.rows[i][1];
  console.log(`${t} ticks: series ${withA.toFixed(1)} MiB with the agents, ${without.toFixed(1)} MiB without`);
}
