/**
 * What the agents' reports cost memleak's sampling loop, without the /proc reads: N processes' reports parsed
 * (parseAgentMessage), taken into a sample (AgentChannel.snapshot) and added to the series (SeriesBuilder.add, with the
 * coarse twin `run` and `watch` keep), against the same samples without agent data. The report is a real one: the
 * last worker report of fixtures/recordings/torch_loader_item.jsonl (a DataLoader worker: threads, py, malloc, census).
 * CPU µs a tick (process.cpuUsage). Give two builds to compare them in one run, alternately:
 *   node bench/lib/agent-path.mjs [N=64] [TICKS=1500] DIST [DIST...]
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { REPO } from "./util.mjs";

const [n = "64", ticks = "1500", ...dists] = process.argv.slice(2);
const N = Number(n);
const T = Number(ticks);
const rows = readFileSync(join(REPO, "fixtures/recordings/torch_loader_item.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l))
  .filter((r) => r.type === "sample" && r.agent);
const last = rows.at(-1);
const [pid0, data0] = Object.entries(last.agent).at(-1);
const proc0 = last.processes.find((p) => String(p.pid) === pid0);
const lines = Array.from({ length: N }, (_, i) => JSON.stringify({ type: "report", pid: 1000 + i, t: 0, ...data0 }));
const procs = Array.from({ length: N }, (_, i) => ({ ...proc0, pid: 1000 + i, ppid: i === 0 ? 1 : 1000 }));
const cpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

async function measure(dist) {
  const { parseAgentMessage } = await import(`${dist}/agent/messages.js`);
  const { SeriesBuilder } = await import(`${dist}/series/series.js`);
  const { AgentChannel } = await import(`${dist}/agent/channel.js`);
  // The channel's state without its socket: only snapshot() is used.
  const ch = Object.assign(Object.create(AgentChannel.prototype), {
    latest: new Map(),
    sampled: new Map(),
    trims: new Map(),
  });
  const snaps = [];
  let c0 = cpu();
  for (let k = 0; k < T; k++) {
    for (const l of lines) {
      const m = parseAgentMessage(l);
      ch.latest.set(m.pid, m);
    }
    snaps.push(ch.snapshot(procs.map((p) => p.pid)));
  }
  const parse = (cpu() - c0) / T;
  const withAgent = new SeriesBuilder(20_000, 400);
  const without = new SeriesBuilder(20_000, 400);
  c0 = cpu();
  for (let k = 0; k < T; k++) withAgent.add({ ...last, t: 1e12 + k * 1000, processes: procs, agent: snaps[k] });
  const added = (cpu() - c0) / T;
  c0 = cpu();
  for (let k = 0; k < T; k++) without.add({ ...last, t: 1e12 + k * 1000, processes: procs, agent: undefined });
  const bare = (cpu() - c0) / T;
  return { parse, series: added - bare };
}

for (let round = 0; round < 3; round++) {
  for (const d of dists) {
    const r = await measure(resolve(d));
    console.log(
      `${d}: parse + snapshot ${r.parse.toFixed(0)} µs a tick, series (agent part) ${r.series.toFixed(0)} µs a tick, ${N} reports`,
    );
  }
}
