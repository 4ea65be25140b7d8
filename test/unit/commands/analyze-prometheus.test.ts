/** `analyze --prometheus` end to end over a socket serving Prometheus's captured answers: output, gates, exit codes. */
import { afterEach, describe, expect, it } from "vitest";
import { analyzePrometheusCommand } from "../../../src/commands/analyze-prometheus.js";
import { MemleakError } from "../../../src/base/errors.js";
import { fakeIO } from "../../helpers/command-io.js";
import { replayServer } from "../../helpers/replay-server.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function serving(file: string, status = 200) {
  const server = await replayServer(file, status);
  closers.push(server.close);
  return new URL(server.url);
}

const options = (url: URL, extra: object = {}) => ({
  prometheus: { url, query: "q", range: 120, step: 1 },
  json: false,
  gates: { metric: "pss" as const, perProcess: false },
  ...extra,
});

describe("analyze --prometheus", () => {
  it("prints a line per pod, most serious first, then the headline's report; exit 0 without gates", async () => {
    const io = fakeIO();
    const r = await analyzePrometheusCommand(options(await serving("prometheus/cadvisor-containers.json")), io);
    expect(r.exitCode).toBe(0);
    const text = io.out.join("");
    const lines = text.split("\n");
    expect(lines[1]).toMatch(/^leak .* ml\/leaker-0\/app$/);
    expect(lines[2]).toMatch(/^cgroup-artefact .* ml\/logger-0\/app$/);
    expect(lines[3]).toMatch(/^stable .* ml\/steady-0\/app$/);
    expect(text).toContain("verdict: LEAK — cgroup ml/leaker-0/app");
  });

  it("--fail-on leak fails the step on any pod's leak (exit 1)", async () => {
    const io = fakeIO();
    const r = await analyzePrometheusCommand(
      options(await serving("prometheus/cadvisor-containers.json"), {
        gates: { metric: "pss", perProcess: false, failOn: ["leak"] },
      }),
      io,
    );
    expect(r.exitCode).toBe(1);
    expect(io.err.join("")).toContain("memleak: gate fail-on failed: leak found");
  });

  it("--max-growth on a container measures its usage, not an empty Σ of processes that would pass as 0 B", async () => {
    const io = fakeIO();
    const r = await analyzePrometheusCommand(
      options(await serving("prometheus/cadvisor-containers.json"), {
        gates: { metric: "pss", perProcess: false, maxGrowth: { bytes: 2 ** 20, text: "1 MiB" } },
      }),
      io,
    );
    expect(r.exitCode).toBe(1);
    expect(r.doc.gates).toEqual([
      expect.objectContaining({ name: "max-growth", result: "fail", subject: "cgroup usage" }),
    ]);
  });

  it("--json prints every finding in the verdict document", async () => {
    const io = fakeIO();
    await analyzePrometheusCommand(options(await serving("prometheus/cadvisor-containers.json"), { json: true }), io);
    const doc = JSON.parse(io.out.join(""));
    expect(doc.findings.map((f: { kind: string }) => f.kind)).toEqual(["leak", "cgroup-artefact", "stable"]);
  });

  it("an empty result is exit 3, naming the query and the range", async () => {
    const err = await analyzePrometheusCommand(options(await serving("prometheus/empty.json")), fakeIO()).catch(
      (e: unknown) => e as MemleakError,
    );
    expect(err).toBeInstanceOf(MemleakError);
    expect((err as MemleakError).exitCode).toBe(3);
    expect((err as MemleakError).message).toMatch(/has no data for q over the last 2m/);
  });

  it("a range with too many points is read at a coarser step, and says so", async () => {
    const url = await serving("prometheus/cadvisor-containers.json");
    const io = fakeIO();
    await analyzePrometheusCommand(
      { ...options(url), prometheus: { url, query: "q", range: 30 * 86400, step: 15 } },
      io,
    );
    expect(io.err.join("")).toMatch(
      /--range 720h00m at --step 15s would be 172801 points per series; reading one every 21m37s instead \(downsampled by Prometheus\)/,
    );
  });
});
