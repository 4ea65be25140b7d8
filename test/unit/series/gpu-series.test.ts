/**
 * Which GPU series a process has (gpu-series.ts): the agent's allocated bytes per CUDA device where it read any,
 * else the driver's count per GPU, in the GPUs' order, leaving out empty columns.
 */
import { describe, expect, it } from "vitest";
import { Column } from "../../../src/series/column.js";
import { gpuSeries, processGpuSeries } from "../../../src/series/gpu-series.js";
import type { ProcessSeries, SeriesSet } from "../../../src/series/series.js";

const column = (...ys: number[]) => {
  const c = new Column();
  ys.forEach((y, t) => c.push(t, y));
  return c;
};
const process = (agent: Record<string, Column>, gpuUsed: Record<string, Column> = {}) =>
  ({ pid: 100, agent, gpuUsed }) as unknown as ProcessSeries;

describe("processGpuSeries", () => {
  it("the agent's allocated bytes per device, with its index and label", () => {
    const c1 = column(5, 6);
    const c0 = column(1, 2);
    const ps = process(
      { "gpu.cuda1Allocated": c1, "gpu.cuda0Allocated": c0, "gpu.cuda0Reserved": column(9) },
      { "0": column(7) },
    );
    expect(processGpuSeries(ps)).toEqual([
      { ps, device: "cuda:0", source: "torch", metric: "gpu-allocated", col: c0, index: 0 },
      { ps, device: "cuda:1", source: "torch", metric: "gpu-allocated", col: c1, index: 1 },
    ]);
  });

  it("a device whose column is empty is left out", () => {
    const c0 = column(1);
    const ps = process({ "gpu.cuda0Allocated": c0, "gpu.cuda1Allocated": column() });
    expect(processGpuSeries(ps).map((g) => g.device)).toEqual(["cuda:0"]);
  });

  it("the driver's count per GPU where the agent read none, in the GPUs' order", () => {
    const g2 = column(3);
    const g10 = column(4);
    const ps = process({ "gpu.cuda0Allocated": column() }, { "10": g10, "2": g2, "3": column() });
    expect(processGpuSeries(ps)).toEqual([
      { ps, device: "2", source: "driver", metric: "gpu-used", col: g2 },
      { ps, device: "10", source: "driver", metric: "gpu-used", col: g10 },
    ]);
  });

  it("none from either, none", () =>
    expect(processGpuSeries(process({ "gpu.cuda0Allocated": column() }, { "0": column() }))).toEqual([]));
});

describe("gpuSeries", () => {
  it("every process's, in the set's order", () => {
    const a = process({ "gpu.cuda0Allocated": column(1) });
    const b = process({}, { "1": column(2) });
    const set = {
      processes: new Map([
        ["a", a],
        ["b", b],
      ]),
    } as unknown as SeriesSet;
    expect(gpuSeries(set).map((g) => [g.ps, g.device])).toEqual([
      [a, "cuda:0"],
      [b, "1"],
    ]);
  });
});
