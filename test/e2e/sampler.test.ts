/**
 * The sampler on a real, changing process tree: new workers appear in the next sample, dead ones drop out, and the
 * smaps_rollup reads stay within their CPU budget while every process still gets PSS/USS.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Sampler } from "../../src/sampling/sampler.js";
import { HostFs } from "../../src/system/host-fs.js";
import { locateMemoryCgroup } from "../../src/system/cgroup-locate.js";
import type { Sample } from "../../src/system/sample.js";
import { startReady, type Started } from "../helpers/processes.js";
import { OWN_MEMORY_CGROUP, skipNote } from "../helpers/cgroup.js";
import { CountingFs } from "../helpers/counting-fs.js";
import { AgentChannel } from "../../src/agent/channel.js";
import { agentEnv } from "../../src/agent/preload.js";
import { readdirSync, readFileSync } from "node:fs";
import { lacking } from "../helpers/prerequisite.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function sampleFor(sampler: Sampler, seconds: number, intervalMs: number): Promise<Sample[]> {
  const samples: Sample[] = [];
  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) {
    const s = sampler.tick();
    if (!s) break;
    samples.push(s);
    await sleep(intervalMs);
  }
  return samples;
}

describe("sampler on a real process tree", () => {
  let target: Started | undefined;
  afterEach(() => target?.stop());

  it.skipIf(
    lacking(
      !OWN_MEMORY_CGROUP.ok,
      "a memory cgroup of its own",
      "root on a host with a writable memory cgroup (v1, v2 or hybrid)",
    ),
  )(`follows workers as they come and go, and reads the cgroup every tick${skipNote(OWN_MEMORY_CGROUP)}`, async () => {
    target = await startReady(["python3", "fixtures/scripts/churning_pool.py", "8"], /ready/);
    const fs = new HostFs();
    const loc = locateMemoryCgroup(fs, target.pid);
    expect(loc.ok).toBe(true);
    const sampler = new Sampler({ fs, rootPid: target.pid, cgroup: loc.ok ? loc.location : undefined });
    const samples = await sampleFor(sampler, 4, 100);

    const workerPids = new Set(samples.flatMap((s) => s.processes.slice(1).map((p) => p.pid)));
    expect(workerPids.size).toBeGreaterThanOrEqual(6); // ~13 started in 4 s
    // No sample holds more than the ~4 workers alive at once: dead ones drop out.
    expect(Math.max(...samples.map((s) => s.processes.length))).toBeLessThanOrEqual(1 + 5);
    // Every worker that stayed for a few ticks got a PSS reading while it lived. Each lives ~1 s, ~10 ticks, so most
    // of them stay: a loop that got to check only a few (or none) is a failure too.
    const stayed = [...workerPids].filter(
      (pid) => samples.filter((s) => s.processes.some((p) => p.pid === pid)).length >= 5,
    );
    expect(stayed.length).toBeGreaterThanOrEqual(3);
    for (const pid of stayed) {
      expect(
        samples.some((s) => s.processes.find((p) => p.pid === pid)?.pss !== undefined),
        `PID ${pid}`,
      ).toBe(true);
    }
    expect(samples.every((s) => s.cgroup?.usage !== undefined && s.cgroup.workingSet !== undefined)).toBe(true);
    expect(samples.every((s) => s.processes[0]!.pid === target!.pid)).toBe(true);
  });

  it("keeps smaps_rollup reads within a tiny budget and still refreshes every process", async () => {
    target = await startReady(["python3", "fixtures/scripts/forked_holder.py", "60", "200"], /ready/, 3);
    const budget = 0.002; // 2 ms of reads per second of wall time
    const sampler = new Sampler({ fs: new HostFs(), rootPid: target.pid, smapsBudget: budget });
    // Sample until every process has had a PSS reading (at least 5 s, at most 40 s). How long that takes depends on
    // how slow a 200 MB smaps_rollup read is on this machine right now (2 ms idle, 10+ ms on a loaded CI runner):
    // a fixed 5 s made the test fail on a busy runner although the budget did exactly its job.
    const samples: Sample[] = [];
    const started = Date.now();
    const pids = new Set<number>();
    const read = new Set<number>();
    while (Date.now() - started < 40_000 && (Date.now() - started < 5_000 || read.size < pids.size)) {
      const s = sampler.tick();
      if (!s) break;
      samples.push(s);
      for (const p of s.processes) {
        pids.add(p.pid);
        if (p.pss !== undefined) read.add(p.pid);
      }
      await sleep(50);
    }
    const wallMs = Date.now() - started;
    const { smapsMs, smapsReads } = sampler.totals;
    expect(pids.size).toBe(3); // the parent and both children
    expect(
      [...pids].filter((pid) => !read.has(pid)),
      "processes never read",
    ).toEqual([]);
    // The bucket starts with one second of budget and may overdraw by one read.
    const biggestRead = (smapsMs / Math.max(1, smapsReads)) * 3;
    expect(smapsMs).toBeLessThanOrEqual(budget * (wallMs + 1000) + biggestRead);
    // Many ticks, far fewer reads than ticks × processes: the budget is what limits them.
    expect(samples.length).toBeGreaterThan(40);
    expect(smapsReads).toBeLessThan(samples.length * 3);
  });

  it("returns undefined once the root is gone", async () => {
    target = await startReady(["python3", "fixtures/scripts/churning_pool.py", "0.5"], /ready/);
    const sampler = new Sampler({ fs: new HostFs(), rootPid: target.pid });
    await new Promise((r) => target!.child.once("exit", r));
    expect(sampler.tick()).toBeUndefined();
  });

  it("leaves out the children file of the agent's thread, and finds what a program thread forks later", async () => {
    const channel = await AgentChannel.open();
    try {
      const env = agentEnv(process.env, {
        socketPath: channel.socketPath,
        interval: 1,
        tracePython: false,
        traceWarmup: 0,
        trimProbe: false,
        launcherPid: process.pid,
      });
      target = await startReady(["python3", "fixtures/scripts/thread_forks_later.py", "2"], /ready/, 1, 30_000, {
        env,
      });
      expect(await channel.waitForHello(target.pid, 15_000)).toBe(true);
      const fs = new CountingFs();
      const sampler = new Sampler({ fs, rootPid: target.pid });
      const samples = await sampleFor(sampler, 5, 100);
      const forked = Number(/forked (\d+)/.exec(target.output())?.[1]);
      expect(forked).toBeGreaterThan(0);
      expect(samples.at(-1)!.processes.map((p) => p.pid)).toEqual([target.pid, forked]);
      const threads = (pid: number, name: string) =>
        readdirSync(`/proc/${pid}/task`).filter(
          (tid) => readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim() === name,
        );
      const [agent] = threads(target.pid, "memleak-agent");
      const [loader] = threads(target.pid, "loader");
      const childrenReads = (tid: string | undefined) => fs.count(`/proc/${target!.pid}/task/${tid}/children`);
      expect(samples.length).toBeGreaterThanOrEqual(20);
      expect(childrenReads(String(target.pid))).toBe(samples.length);
      expect(childrenReads(loader)).toBe(samples.length);
      // Read at most once: the agent names its thread as the thread starts, after its hello.
      expect(agent).toBeDefined();
      expect(childrenReads(agent)).toBeLessThanOrEqual(1);
    } finally {
      channel.close();
    }
  });
});
