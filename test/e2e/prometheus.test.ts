/**
 * memleak and Prometheus both ways, with a real Prometheus (Debian's `prometheus`, run here on 127.0.0.1 with a
 * temporary config and data directory, scraping every second): it scrapes `memleak watch --metrics` on a leaking
 * Python program and on a steady one; then `memleak analyze --prometheus` judges what it scraped — the leak a leak,
 * the steady one stable, each by its pid.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { VerdictDocument } from "../../src/analysis/types.js";
import { parse, stringify } from "yaml";
import { REPO } from "../helpers/fixtures.js";
import { execFileP, memleak, startReady, type Started } from "../helpers/processes.js";
import { startScenario } from "../helpers/watched.js";
import { tempDir } from "../helpers/temp.js";

const PROMETHEUS = "/usr/bin/prometheus";
const PROMTOOL = "/usr/bin/promtool";
/** The README's recipe: its scrape job is the one this test's Prometheus runs. */
const RECIPE = `${REPO}examples/prometheus/prometheus.yml`;
/** Long enough for the verdict engine (20 samples over 10 s after warm-up, at Prometheus's 1 s) with room to spare. */
const WATCH_SECONDS = 35;

const started: Started[] = [];
let server: ChildProcess | undefined;
afterAll(async () => {
  for (const s of started) await s.stop();
  if (server && server.exitCode === null && server.signalCode === null) {
    const exited = new Promise((r) => server!.once("exit", r));
    server.kill("SIGTERM");
    await exited;
  }
  // Its data directory is under tempDir: removed after this file's tests.
});

/** A port free now: the system chooses one, and it is closed again for the test's server to take. */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** The recipe's config with these targets, scraped every second (the recipe's 15 s would make the test minutes long). */
function recipeWith(targets: string[]): string {
  const config = parse(readFileSync(RECIPE, "utf8")) as {
    global: Record<string, string>;
    scrape_configs: { job_name: string; static_configs: { targets: string[] }[] }[];
  };
  config.global = { ...config.global, scrape_interval: "1s", scrape_timeout: "1s" };
  const [job] = config.scrape_configs;
  job!.static_configs = [{ targets }];
  return stringify(config);
}

async function startPrometheus(targets: string[]): Promise<string> {
  const dir = tempDir("prometheus");
  const config = join(dir, "prometheus.yml");
  writeFileSync(config, recipeWith(targets));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  server = spawn(
    PROMETHEUS,
    [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, "data")}`, `--web.listen-address=127.0.0.1:${port}`],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let log = "";
  server.stderr!.on("data", (d: Buffer) => (log = (log + d.toString()).slice(-4000)));
  for (let i = 0; i < 100; i++) {
    const ready = await fetch(`${base}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return base;
    if (server.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`Prometheus did not start: ${log}`);
}

// Concurrent: the short --metrics runs go beside the long scrape rather than after it; each listens on a port of its own.
describe(
  "Prometheus scrapes memleak watch --metrics, and analyze --prometheus judges what it scraped",
  { concurrent: true, timeout: 150_000 },
  () => {
    it("the recipe's scrape config is valid for Prometheus (promtool)", async () => {
      const r = await execFileP(PROMTOOL, ["check", "config", RECIPE]);
      expect(r.stdout).toContain("SUCCESS");
    });

    it("the leaking program is a leak, the steady one stable, each by its pid", async () => {
      expect(existsSync(PROMETHEUS), "Debian's prometheus package (.ci/run installs it)").toBe(true);
      const leaking = await startScenario("dict_cache_leak", WATCH_SECONDS + 30);
      started.push(leaking);
      const steady = await startReady(
        ["python3", "-u", "-c", "import time; held = bytearray(30 << 20); print('ready', flush=True); time.sleep(120)"],
        /^ready$/m,
      );
      started.push(steady);
      const ports = [await freePort(), await freePort()];
      const prometheus = await startPrometheus(ports.map((p) => `127.0.0.1:${p}`));

      const watch = (pid: number, port: number) =>
        memleak([
          "watch",
          String(pid),
          "--metrics",
          `127.0.0.1:${port}`,
          "--interval",
          "0.5",
          "--duration",
          String(WATCH_SECONDS),
          "--no-inject",
          "--json",
        ]);
      const watched = await Promise.all([watch(leaking.pid, ports[0]!), watch(steady.pid, ports[1]!)]);
      for (const [i, w] of watched.entries()) {
        expect(w.code, w.stderr).toBe(0);
        expect(w.stderr).toContain(`memleak: serving metrics on http://127.0.0.1:${ports[i]}/metrics`);
      }

      const targets = (await (await fetch(`${prometheus}/api/v1/targets`)).json()) as {
        data: { activeTargets: { labels: { job: string } }[] };
      };
      expect(targets.data.activeTargets.map((t) => t.labels.job)).toEqual(["memleak-local", "memleak-local"]);

      const query = '{__name__=~"memleak_process_(rss|anon|pss|uss)_bytes"}';
      const r = await memleak([
        "analyze",
        "--prometheus",
        prometheus,
        "--query",
        query,
        "--range",
        `${WATCH_SECONDS + 25}s`,
        "--step",
        "1s",
        "--json",
      ]);
      expect(r.code, r.stderr).toBe(0);
      const doc = JSON.parse(r.stdout) as VerdictDocument;
      const byPid = new Map(doc.findings.map((f) => [f.pid, f]));
      const summary = JSON.stringify(doc.findings.map((f) => [f.pid, f.kind, f.summary]));
      expect(byPid.get(leaking.pid)?.kind, summary).toBe("leak");
      expect(byPid.get(steady.pid)?.kind, summary).toBe("stable");
      expect(doc.verdict).toMatchObject({ kind: "leak", pid: leaking.pid });
      expect(byPid.get(leaking.pid)!.evidence).toMatchObject({
        source: "prometheus",
        metrics: expect.stringContaining("memleak_process_anon_bytes"),
      });
      // The points came from Prometheus's scrapes, one a second, over most of the watch.
      expect(Number(byPid.get(leaking.pid)!.evidence.samples)).toBeGreaterThanOrEqual(20);

      // The verdict gauge reached Prometheus: the leaking pid's memleak_verdict{kind="leak"} was 1 by the end.
      const verdict = (await (
        await fetch(
          `${prometheus}/api/v1/query?query=${encodeURIComponent(`max_over_time(memleak_verdict{kind="leak",subject="process",pid="${leaking.pid}"}[2m])`)}`,
        )
      ).json()) as { data: { result: { value: [number, string] }[] } };
      expect(verdict.data.result.map((r) => r.value[1])).toEqual(["1"]);

      // Everything memleak exported: its bookkeeping (verdict, cost, counts) is left out, and said.
      const all = await memleak([
        "analyze",
        "--prometheus",
        prometheus,
        "--query",
        '{__name__=~"memleak_.*"}',
        "--range",
        `${WATCH_SECONDS + 25}s`,
        "--step",
        "1s",
        "--json",
      ]);
      expect(all.stderr).toMatch(
        /^memleak: left out \d+ series of memleak's own that are not memory figures \(memleak_/m,
      );
      expect((JSON.parse(all.stdout) as VerdictDocument).findings.find((f) => f.pid === leaking.pid)?.kind).toBe(
        "leak",
      );

      // And the text report lists both, the leak first.
      const text = await memleak([
        "analyze",
        "--prometheus",
        prometheus,
        "--query",
        query,
        "--range",
        `${WATCH_SECONDS + 25}s`,
        "--step",
        "1s",
      ]);
      const lines = text.stdout.split("\n");
      expect(lines[1]).toMatch(new RegExp(`^leak .* ${leaking.pid} on 127\\.0\\.0\\.1:${ports[0]}$`));
      expect(lines[2]).toMatch(new RegExp(`^stable .* ${steady.pid} on 127\\.0\\.0\\.1:${ports[1]}$`));

      // A query the real server refuses: its words, exit 2.
      const bad = await memleak(["analyze", "--prometheus", prometheus, "--query", "sum(memleak_process_rss_bytes"]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(
        /^memleak: Prometheus at http:\/\/127\.0\.0\.1:\d+ refused the query \(bad_data: .*parse error.*\)\n$/,
      );
    });

    it("run --metrics serves the launched command's figures while it runs", async () => {
      const port = await freePort();
      const running = memleak([
        "run",
        "--metrics",
        `127.0.0.1:${port}`,
        "--interval",
        "0.5",
        "--",
        "python3",
        "-c",
        "import time; held = bytearray(20 << 20); time.sleep(4)",
      ]);
      let text = "";
      // Until the command is python3 (pyenv's shim is a shell script that execs it) and held its buffer.
      const held = /^memleak_process_rss_bytes\{pid="(\d+)",comm="python3"\} (\d+)$/m;
      for (let i = 0; i < 40 && !(Number(held.exec(text)?.[2]) > 20 * 2 ** 20); i++) {
        await new Promise((r) => setTimeout(r, 200));
        text = await fetch(`http://127.0.0.1:${port}/metrics`).then(
          (r) => r.text(),
          () => "",
        );
      }
      const r = await running;
      expect(r.code, r.stderr).toBe(0);
      const rss = held.exec(text);
      expect(rss, text).not.toBeNull();
      expect(Number(rss![2])).toBeGreaterThan(20 * 2 ** 20);
      expect(text).toMatch(/^memleak_cgroup_usage_bytes\{cgroup="[^"]+"\} \d+$/m);
      expect(text).toMatch(/^memleak_samples_total \d+$/m);
    });

    it("--metrics on a port in use: one line and exit 3, before anything is watched or launched", async () => {
      const taken = createServer();
      await new Promise<void>((r) => taken.listen(0, "127.0.0.1", r));
      const port = (taken.address() as { port: number }).port;
      try {
        const dir = tempDir("metrics-port");
        const marker = join(dir, "started");
        const run = await memleak([
          "run",
          "--metrics",
          `127.0.0.1:${port}`,
          "--",
          "python3",
          "-c",
          `open(${JSON.stringify(marker)}, "w")`,
        ]);
        expect(run.code).toBe(3);
        expect(run.stderr).toBe(
          `memleak: --metrics 127.0.0.1:${port}: cannot listen: the port is in use (choose another, or 0 for any free one)\n`,
        );
        expect(existsSync(marker)).toBe(false);
        const watch = await memleak([
          "watch",
          String(process.pid),
          "--metrics",
          `127.0.0.1:${port}`,
          "--duration",
          "1",
        ]);
        expect(watch.code).toBe(3);
        expect(watch.stderr).toBe(
          `memleak: --metrics 127.0.0.1:${port}: cannot listen: the port is in use (choose another, or 0 for any free one)\n`,
        );
      } finally {
        await new Promise<void>((r) => taken.close(() => r()));
      }
    });

    it("a server that is not there: exit 3, one line", async () => {
      const closed = await freePort();
      const gone = await memleak(["analyze", "--prometheus", `http://127.0.0.1:${closed}`, "--query", "up"]);
      expect(gone.code).toBe(3);
      expect(gone.stderr).toMatch(
        /^memleak: cannot read from Prometheus at http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED.*\n$/,
      );
    });
  },
);
