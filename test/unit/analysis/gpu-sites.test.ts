/**
 * signals/gpu-sites.ts `putGpuSites` on a GPU leak's finding: the agent's window of the allocator's history becomes
 * the finding's sites (sitesFrom cuda-history) with the window's numbers in the evidence, and the general advice's
 * "find them" is replaced; a window with nothing on this device, or refused, is a note. Findings built by hand; from a
 * real program's agent to the report: test/e2e/gpu.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { GpuSitesResult } from "../../../src/agent/agent-results.js";
import { putGpuSites } from "../../../src/analysis/signals/gpu-sites.js";
import { say } from "../../../src/report/wording/index.js";
import { agentContext, gpuLeak } from "../../helpers/gpu-leak-finding.js";

const MiB = 2 ** 20;

const window = (o: Partial<GpuSitesResult> = {}): GpuSitesResult => ({
  type: "gpu-sites",
  pid: 7,
  t: 100,
  seconds: 10,
  devices: [
    {
      device: "cuda:0",
      sites: [
        { file: "/srv/eval.py", line: 19, name: "validate_batch", size: 40 * MiB, count: 10, via: "/t/linear.py:1 f" },
        { file: "/srv/eval.py", line: 20, name: "validate_batch", size: 4, count: 1 },
      ],
      blocks: 11,
      bytes: 40 * MiB + 4,
      requestsPerSecondBefore: 20,
      requestsPerSecondDuring: 19,
    },
  ],
  ...o,
});

const ctxWith = (r: GpuSitesResult) => agentContext({ gpuSites: new Map([[r.pid, r]]) });

describe("putGpuSites: where a GPU leak was allocated", () => {
  it("the window's lines become the finding's sites, its numbers the evidence; the advice starts from them", () => {
    const f = gpuLeak(4 * MiB);
    putGpuSites(f, 7, "cuda:0", ctxWith(window()));
    expect(f.sitesFrom).toBe("cuda-history");
    expect(f.sites).toEqual([
      {
        file: "/srv/eval.py",
        line: 19,
        sizeDiff: 40 * MiB,
        countDiff: 10,
        size: 40 * MiB,
        function: "validate_batch",
        via: "/t/linear.py:1 f",
      },
      { file: "/srv/eval.py", line: 20, sizeDiff: 4, countDiff: 1, size: 4, function: "validate_batch" },
    ]);
    expect(f.evidence).toMatchObject({
      gpuHistorySeconds: 10,
      gpuHistoryBlocks: 11,
      gpuHistoryBytes: 40 * MiB + 4,
      gpuRequestsPerSecondBefore: 20,
      gpuRequestsPerSecondDuring: 19,
    });
    expect(f.advice).toHaveLength(1);
    expect(say(f.advice[0]!)).toContain("- Start from the lines memleak found (the caching allocator's history");
    expect(say(f.advice[0]!)).not.toContain("_record_memory_history");
    expect(f.caveats).toEqual([]);
  });

  it("a window that found nothing on this device, or could not be recorded: a note, and the advice as it was", () => {
    const none = gpuLeak(4 * MiB);
    putGpuSites(none, 7, "cuda:0", ctxWith(window({ devices: [] })));
    expect(none.sites).toBeUndefined();
    expect(none.caveats.map((c) => say(c))).toEqual([
      "memleak recorded the caching allocator's history for 10 s: no block allocated on cuda:0 in that window was still alive at its end, so the lines of this leak were not found (it may grow in bursts, or between windows)",
    ]);
    const refused = gpuLeak(4 * MiB);
    putGpuSites(refused, 7, "cuda:0", ctxWith(window({ devices: [], why: "TypeError: context" })));
    expect(refused.caveats.map((c) => say(c))).toEqual([
      "memleak could not record where the CUDA memory was allocated (TypeError: context): that needs PyTorch 2.1 or later",
    ]);
    expect(say(refused.advice[0]!)).toContain("_record_memory_history");
  });

  it("on a finding that is not a leak (a plateau, growing requests): the lines kept, nothing said of none", () => {
    const plateau = { ...gpuLeak(4 * MiB), kind: "plateau" as const };
    putGpuSites(plateau, 7, "cuda:0", ctxWith(window()));
    expect(plateau.sites).toHaveLength(2);
    const quiet = { ...gpuLeak(4 * MiB), kind: "plateau" as const };
    putGpuSites(quiet, 7, "cuda:0", ctxWith(window({ devices: [] })));
    putGpuSites(quiet, 7, "cuda:0", ctxWith(window({ devices: [], why: "TypeError" })));
    expect(quiet.caveats).toEqual([]);
    expect(quiet.sites).toBeUndefined();
  });

  it("a window whose blocks are all on another device: said for this one; another process's window: nothing", () => {
    const f = gpuLeak(4 * MiB);
    putGpuSites(f, 7, "cuda:1", ctxWith(window()));
    putGpuSites(f, 8, "cuda:0", ctxWith(window()));
    expect(f.sites).toBeUndefined();
    expect(f.caveats.map((c) => c.say)).toEqual(["gpu.sites-none"]);
  });
});
