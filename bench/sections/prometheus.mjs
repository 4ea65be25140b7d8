/**
 * i. Prometheus both ways (issue 16; h is the pytest plugin's, issue 15).
 *
 * The exporter's extra cost: on a real tree (bench/py/small_tree.py, 9 and 64 processes), memleak's Sampler ticks as a
 * watch does, and each tick the exporter's gauges are updated (SessionMetrics.update) and /metrics is scraped over HTTP
 * from the same process. CPU of each part per tick (process.cpuUsage), as a ratio to the tick itself: the baseline is
 * what every sample costs already. The scrape is timed twice: the exposition alone (registry.metrics(), all the server
 * does) and the whole HTTP round trip with Node's own client in the same process (an upper bound: the scraper's side
 * is counted too).
 *
 * analyze --prometheus on 1,000 series × 6 h at 15 s: 250 containers × cAdvisor's four series (usage, working set,
 * rss, cache), 1,441 points each, served as one query_range answer by a local HTTP server; `memleak analyze
 * --prometheus … --json` as a whole process under /usr/bin/time -v, against the floor of reading that answer at all: a
 * Node process that fetches it and JSON.parses it.
 */
import { createServer } from "node:http";
import { SessionMetrics } from "../../dist/export/session-metrics.js";
import { startMetricsServer } from "../../dist/export/metrics-server.js";
import { Sampler } from "../../dist/sampling/sampler.js";
import { HostFs } from "../../dist/system/host-fs.js";
import { startTree } from "./sampling.mjs";
import { exec, median, MEMLEAK, sleep } from "../lib/util.mjs";

const cpuMs = (f) => {
  const a = process.cpuUsage();
  const r = f();
  const b = process.cpuUsage(a);
  return [r, (b.user + b.system) / 1000];
};

async function cpuMsAsync(f) {
  const a = process.cpuUsage();
  await f();
  const b = process.cpuUsage(a);
  return (b.user + b.system) / 1000;
}

/** Per tick, medians over `ticks` ticks a second apart (after a few unmeasured ones: JIT, the first smaps reads). */
async function exporterOn(workers, ticks, log) {
  const tree = await startTree([String(workers), "8"], "bench/py/small_tree.py");
  const metrics = new SessionMetrics();
  const server = await startMetricsServer(metrics, "127.0.0.1", 0);
  const url = `http://127.0.0.1:${server.address.port}/metrics`;
  try {
    const sampler = new Sampler({ fs: new HostFs(), rootPid: tree.pid, cgroup: undefined });
    const rows = { tick: [], update: [], exposition: [], scrape: [] };
    let bytes = 0;
    let series = 0;
    log(`prometheus: exporter on ${workers + 1} processes, ${ticks} ticks`);
    for (let i = 0; i < ticks + 5; i++) {
      const [sample, tick] = cpuMs(() => sampler.tick());
      const [, update] = cpuMs(() => metrics.update(sample, undefined));
      const exposition = await cpuMsAsync(() => metrics.prometheus.metrics());
      let text = "";
      const scrape = await cpuMsAsync(async () => {
        text = await (await fetch(url)).text();
      });
      if (i >= 5) {
        rows.tick.push(tick);
        rows.update.push(update);
        rows.exposition.push(exposition);
        rows.scrape.push(scrape);
        bytes = text.length;
        series = text.split("\n").filter((l) => l && !l.startsWith("#")).length;
      }
      await sleep(1000);
    }
    const m = Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, median(v)]));
    return { processes: workers + 1, ...m, bytes, series };
  } finally {
    await server.close();
    tree.stop();
  }
}

/** A deterministic generator (mulberry32), so every run judges the same fleet. */
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * 250 containers, 6 h at 15 s: a tenth leak anon (~20 MB/h), a tenth fill page cache (~200 MB/h), the rest hold steady
 * with noise. Each container has cAdvisor's four series.
 */
export function fleetAnswer(containers = 250, hours = 6, step = 15) {
  const rnd = random(16);
  const end = 1_800_000_000;
  const n = (hours * 3600) / step + 1;
  const result = [];
  for (let c = 0; c < containers; c++) {
    const kind = c % 10 === 0 ? "leak" : c % 10 === 1 ? "cache" : "steady";
    const anon0 = 200e6 + rnd() * 800e6;
    const cache0 = 50e6 + rnd() * 100e6;
    const cols = { anon: [], cache: [] };
    for (let i = 0; i < n; i++) {
      const h = (i * step) / 3600;
      cols.anon.push(anon0 + (kind === "leak" ? 20e6 * h : 0) + (rnd() - 0.5) * 4e6);
      cols.cache.push(cache0 + (kind === "cache" ? 200e6 * h : 0) + (rnd() - 0.5) * 2e6);
    }
    const labels = { namespace: "ml", pod: `serve-${c}`, container: "app", instance: "node-1" };
    const ts = Array.from({ length: n }, (_, i) => end - (n - 1 - i) * step);
    const series = (name, ys) => ({
      metric: { __name__: name, ...labels },
      values: ts.map((t, i) => [t, String(Math.round(ys[i]))]),
    });
    const usage = cols.anon.map((a, i) => a + cols.cache[i]);
    result.push(
      series("container_memory_usage_bytes", usage),
      series(
        "container_memory_working_set_bytes",
        usage.map((u, i) => u - cols.cache[i] * 0.5),
      ),
      series("container_memory_rss", cols.anon),
      series("container_memory_cache", cols.cache),
    );
  }
  return JSON.stringify({ status: "success", data: { resultType: "matrix", result } });
}

function timeV(stderr) {
  const kb = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1];
  const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)/.exec(stderr) ?? [];
  const cpu =
    Number(/User time \(seconds\): ([\d.]+)/.exec(stderr)?.[1]) +
    Number(/System time \(seconds\): ([\d.]+)/.exec(stderr)?.[1]);
  return {
    peakRss: Number(kb) * 1024,
    wall: Number(wall[1] ?? 0) * 3600 + Number(wall[2]) * 60 + Number(wall[3]),
    cpu,
  };
}

/**
 * Serves the fleet's answer on 127.0.0.1 for `analyze --prometheus`, with the floor it is measured against: a Node
 * script that fetches the same answer and JSON.parses it (§i, and bench/lib/prom-pairs.mjs).
 */
export async function serveFleet() {
  const body = fleetAnswer();
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(body);
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${server.address().port}`;
  const floorScript = `const r = await fetch(${JSON.stringify(base + "/api/v1/query_range")}, { method: "POST", body: "query=x" }); const d = JSON.parse(await r.text()); console.log(d.data.result.length);`;
  return { server, base, floorScript };
}

async function importOf(repeats, log) {
  const { server, base, floorScript } = await serveFleet();
  try {
    const runs = { analyze: [], floor: [] };
    let verdicts;
    for (let i = 0; i < repeats; i++) {
      log(`prometheus: analyze --prometheus on 1,000 series × 6 h, run ${i + 1} of ${repeats}`);
      const a = await exec([
        "/usr/bin/time",
        "-v",
        process.execPath,
        MEMLEAK,
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
      if (a.code !== 0) throw new Error(`analyze --prometheus exited ${a.code}: ${a.stderr.slice(-300)}`);
      const doc = JSON.parse(a.stdout);
      verdicts = {};
      for (const f of doc.findings) verdicts[f.kind] = (verdicts[f.kind] ?? 0) + 1;
      runs.analyze.push(timeV(a.stderr));
      const f = await exec(["/usr/bin/time", "-v", process.execPath, "--input-type=module", "-e", floorScript]);
      runs.floor.push(timeV(f.stderr));
    }
    const pick = (rs, k) => median(rs.map((r) => r[k]));
    return {
      bytes: body.length,
      verdicts,
      analyze: {
        wall: pick(runs.analyze, "wall"),
        cpu: pick(runs.analyze, "cpu"),
        peakRss: pick(runs.analyze, "peakRss"),
      },
      floor: { wall: pick(runs.floor, "wall"), cpu: pick(runs.floor, "cpu"), peakRss: pick(runs.floor, "peakRss") },
    };
  } finally {
    await new Promise((r) => server.close(r));
  }
}

export async function prometheusBoth({ ticks, repeats, log = () => {} }) {
  const exporter = [];
  for (const workers of [8, 63]) exporter.push(await exporterOn(workers, ticks, log));
  return { exporter, import: await importOf(repeats, log) };
}
