/**
 * nvidia-smi's CSV (src/probes/nvidia-smi.ts) on the files in fixtures/nvidia-smi/: two captured on an H100 (driver
 * 580.159.04, 2026-11-26), the others HAND-WRITTEN from nvidia-smi's documented format before a GPU machine was at
 * hand (fixtures/README.md says which).
 */
import { describe, expect, it } from "vitest";
import { gpuMemoryByPid, parseComputeApps, parseGpuIndices } from "../../../src/probes/nvidia-smi.js";
import { fixture, value } from "../../helpers/fixtures.js";

const MiB = 2 ** 20;
const GPU0 = "GPU-8f3c2a71-5b0e-4f7d-9e61-2c4d8a9b0e13";
const GPU1 = "GPU-1d7e9b40-3a6c-4e28-8f15-7b2c0d5e9a61";

describe("nvidia-smi --query-compute-apps", () => {
  it("reads each process's memory per GPU in bytes (nvidia-smi prints MiB)", () => {
    const { apps, unaccounted } = value(parseComputeApps(fixture("nvidia-smi/compute-apps.two-gpus")));
    expect(apps).toEqual([
      { pid: 4242, used: 1536 * MiB, gpuUuid: GPU0 },
      { pid: 4243, used: 812 * MiB, gpuUuid: GPU0 },
      { pid: 4242, used: 22018 * MiB, gpuUuid: GPU1 },
    ]);
    expect(unaccounted).toBe(0);
  });

  it("reads a real H100's answer: seven processes of fixtures/gpu/capture.sh on one GPU", () => {
    const { apps, unaccounted } = value(parseComputeApps(fixture("nvidia-smi/compute-apps.h100-seven")));
    const h100 = "GPU-dcd46a61-09a6-68e9-a001-1c23335ec270";
    expect(apps).toHaveLength(7);
    expect(apps[0]).toEqual({ pid: 510, used: 1408 * MiB, gpuUuid: h100 });
    expect(apps.every((a) => a.gpuUuid === h100)).toBe(true);
    expect(unaccounted).toBe(0);
    expect(value(parseGpuIndices(fixture("nvidia-smi/gpu-indices.h100")))).toEqual(new Map([[h100, "0"]]));
  });

  it("no process on any GPU is an empty answer, not an error", () => {
    expect(value(parseComputeApps(fixture("nvidia-smi/compute-apps.none")))).toEqual({ apps: [], unaccounted: 0 });
  });

  it("a process whose memory the driver does not account ([N/A]) is left out and counted, never read as 0", () => {
    const { apps, unaccounted } = value(parseComputeApps(fixture("nvidia-smi/compute-apps.not-accounted")));
    expect(apps).toEqual([{ pid: 5001, used: 2048 * MiB, gpuUuid: GPU0 }]);
    expect(unaccounted).toBe(1);
  });

  it.each([
    ["the driver's complaint instead of CSV", fixture("nvidia-smi/no-driver.stdout"), /line 1: 1 field, expected 3/],
    ["a pid that is not a number", `abc, 12, ${GPU0}\n`, /line 1: "abc" is not a pid/],
    ["pid 0", `0, 12, ${GPU0}\n`, /"0" is not a pid/],
    ["memory with its unit (nounits forgotten)", `42, 12 MiB, ${GPU0}\n`, /"12 MiB" is not a number of MiB/],
    ["a name where the UUID goes", `42, 12, python3\n`, /"python3" is not a GPU UUID/],
  ])("refuses %s, saying which line", (_what, text, message) => {
    const r = parseComputeApps(text);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(message);
  });
});

describe("nvidia-smi --query-gpu=index,uuid", () => {
  it("maps each GPU's UUID to its index", () => {
    expect([...value(parseGpuIndices(fixture("nvidia-smi/gpu-indices.two-gpus")))]).toEqual([
      [GPU0, "0"],
      [GPU1, "1"],
    ]);
  });

  it("refuses the driver's complaint", () => {
    expect(parseGpuIndices(fixture("nvidia-smi/no-driver.stdout")).ok).toBe(false);
  });
});

describe("gpuMemoryByPid", () => {
  it("gives each pid its memory by GPU index, the UUID where the index is unknown, two contexts on one GPU summed", () => {
    const { apps } = value(
      parseComputeApps(`${fixture("nvidia-smi/compute-apps.two-gpus")}4242, 100, ${GPU0}\n7, 5, MIG-aa11\n`),
    );
    const indices = value(parseGpuIndices(fixture("nvidia-smi/gpu-indices.two-gpus")));
    expect(Object.fromEntries(gpuMemoryByPid(apps, indices))).toEqual({
      4242: { "0": 1636 * MiB, "1": 22018 * MiB },
      4243: { "0": 812 * MiB },
      7: { "MIG-aa11": 5 * MiB },
    });
  });
});
