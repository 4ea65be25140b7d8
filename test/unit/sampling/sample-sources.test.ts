/**
 * The sample complete when the sampler hands it on (sampling/sample-sources.ts, gpu-driver-readings.ts): the agents'
 * reports and the GPU driver's readings are in it, read on a captured process tree (fixtures/trees/hybrid-v1: PID 5932
 * and its children 5974 and 5975), with a driver that answers what the test gives it.
 */
import { describe, expect, it } from "vitest";
import { GpuDriverReadings } from "../../../src/sampling/gpu-driver-readings.js";
import { Sampler } from "../../../src/sampling/sampler.js";
import { HostFs } from "../../../src/system/host-fs.js";
import { FIXTURES } from "../../helpers/fixtures.js";

const MiB = 2 ** 20;

/** A driver whose readings are the test's: `arrived` is handed over once by take(); poll() counts its calls. */
class StandInDriver {
  arrived: Map<number, Record<string, number>> | undefined;
  polls = 0;
  read: Promise<void> | undefined;
  take() {
    const got = this.arrived;
    this.arrived = undefined;
    return got;
  }
  poll() {
    this.polls++;
    return this.read;
  }
}

const sampler = (o: {
  agentReports?: (pids: number[]) => Record<string, unknown> | undefined;
  gpu?: GpuDriverReadings;
}) => new Sampler({ fs: new HostFs(`${FIXTURES}trees/hybrid-v1`), rootPid: 5932, ...o });

describe("a tick's sample, complete from the sampler", () => {
  it("carries the agents' reports of its processes, asked once a tick with the tree's pids", () => {
    const asked: number[][] = [];
    const sample = sampler({
      agentReports: (pids) => {
        asked.push(pids);
        return { "5974": { census: { containerItems: 7 } } };
      },
    }).tick();
    expect(asked).toEqual([[5932, 5974, 5975]]);
    expect(sample?.agent).toEqual({ "5974": { census: { containerItems: 7 } } });
  });

  it("has no agent part where no agent has reported, nor without the source", () => {
    expect(sampler({ agentReports: () => undefined }).tick()).not.toHaveProperty("agent");
    const bare = sampler({}).tick();
    expect(bare).not.toHaveProperty("agent");
    expect(bare?.processes.some((p) => p.gpu !== undefined)).toBe(false);
  });

  it("carries the GPU driver's readings that arrived since the last tick, once, and starts the next read at each tick", () => {
    const driver = new StandInDriver();
    const s = sampler({ gpu: new GpuDriverReadings(driver) });
    expect(s.tick()?.processes.map((p) => p.gpu)).toEqual([undefined, undefined, undefined]);
    driver.arrived = new Map<number, Record<string, number>>([
      [5975, { "0": 812 * MiB }],
      [4242, { "1": 64 * MiB }], // not in the tree: in no sample
    ]);
    expect(s.tick()?.processes.map((p) => p.gpu)).toEqual([undefined, undefined, { "0": 812 * MiB }]);
    expect(s.tick()?.processes.map((p) => p.gpu)).toEqual([undefined, undefined, undefined]);
    expect(driver.polls).toBe(3);
  });
});

describe("GpuDriverReadings", () => {
  it("waits at the end for the read started last, even after ticks that started none", async () => {
    const driver = new StandInDriver();
    const readings = new GpuDriverReadings(driver);
    let ended = false;
    driver.read = new Promise((resolve) => setTimeout(resolve, 20)).then(() => {
      ended = true;
    });
    readings.addTo([]);
    driver.read = undefined; // the next tick: no read due
    readings.addTo([]);
    await readings.finished();
    expect(ended).toBe(true);
  });

  it("finishes at once when no read was started", async () => {
    await expect(new GpuDriverReadings(new StandInDriver()).finished()).resolves.toBeUndefined();
  });
});
