/**
 * signals/holder.ts `putGpuHolder` on a GPU leak's finding: the container the census saw grow is its answer when its
 * items keep tensors on that device and what it gains a second is at least GPU_HOLDER_EXPLAINS of the growth, a
 * bystander under it, nothing on another device or on the host. Exact values on findings built by hand; the whole
 * path from a real program's agent to the report: test/e2e/gpu.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { HolderResult } from "../../../src/agent/agent-results.js";
import type { JudgedFinding } from "../../../src/analysis/judgement.js";
import { GPU_HOLDER_EXPLAINS, putGpuHolder } from "../../../src/analysis/signals/holder.js";
import { say } from "../../../src/report/wording/index.js";
import { agentContext, gpuLeak } from "../../helpers/gpu-leak-finding.js";

const MiB = 2 ** 20;

const logits = (o: Partial<HolderResult> = {}): HolderResult => ({
  type: "holder",
  pid: 7,
  t: 100,
  container: "list of Tensor",
  length: 120,
  found: true,
  path: "__main__.all_logits",
  root: "module global",
  hops: [{ kind: "module global", name: "__main__.all_logits" }],
  levels: 1,
  calls: 1,
  objects: 1,
  ms: 1.1,
  longestMs: 0.8,
  itemsPerSecond: 10,
  device: "cuda:0",
  deviceBytesPerItem: 4 * MiB,
  ...o,
});

const ctxWith = (h: HolderResult) => agentContext({ holders: new Map([[h.pid, h]]) });

/** Each piece of advice as [phrase, variant]. */
const variants = (f: JudgedFinding) => f.advice.map((p) => [p.say, (p.facts as { variant?: string }).variant]);

describe("putGpuHolder: the holder of a GPU leak", () => {
  it("a list of logits that gains as fast as allocated grows is the answer: its advice first, the snapshot advice gone", () => {
    const f = gpuLeak(40 * MiB);
    putGpuHolder(f, 7, "cuda:0", ctxWith(logits()));
    expect(f.holder).toMatchObject({ path: "__main__.all_logits", device: "cuda:0", deviceBytesPerItem: 4 * MiB });
    expect(f.evidence).toMatchObject({ holder: "__main__.all_logits", holderDeviceBytesPerSecond: 40 * MiB });
    expect(variants(f)).toEqual([["advice.holder", "holder-cuda"]]);
    expect(say(f.advice[0]!)).toBe(
      "**`__main__.all_logits` holds it**: the list of Tensor there (120 items when its holder was found; it gains ~10 items a second) keeps\n" +
        "tensors on cuda:0, 4.00 MiB each: ~40.0 MiB/s, all of the 40.0 MiB/s that allocated grows. Keep what you need of them as numbers (`loss.item()`,\n" +
        "`logits.argmax(1).tolist()`) or on the host (`t.detach().cpu()`): `.detach()` alone keeps the device memory, and\n" +
        "`torch.cuda.empty_cache()` cannot free a tensor the list still holds. Compute the metric as the loop goes, or clear the\n" +
        "list once it is computed.",
    );
    expect(f.caveats).toEqual([]);
  });

  it(`explains at ${GPU_HOLDER_EXPLAINS * 100}% of the growth: 55% is the answer (its share said), 45% a bystander`, () => {
    const at = (share: number) => {
      const f = gpuLeak(40 * MiB);
      putGpuHolder(f, 7, "cuda:0", ctxWith(logits({ deviceBytesPerItem: (share * 40 * MiB) / 10 })));
      return f;
    };
    const answer = at(0.55);
    expect(answer.advice[0]).toMatchObject({ say: "advice.holder", facts: { variant: "holder-cuda" } });
    expect(say(answer.advice[0]!)).toContain("~22.0 MiB/s, 55% of the 40.0 MiB/s that allocated grows");
    const bystander = at(0.45);
    expect(bystander.holder?.path).toBe("__main__.all_logits");
    expect(variants(bystander)).toEqual([["advice.gpu", "leak"]]);
    expect(bystander.caveats.map((c) => c.say)).toEqual(["layer.holder-bystander"]);
    expect(say(bystander.caveats[0]!)).toContain("(the growth is in the CUDA tensors), so it may be a bystander");
  });

  it("without the rate of items, the container of tensors on the device is still the answer, without a share", () => {
    const f = gpuLeak(40 * MiB);
    putGpuHolder(f, 7, "cuda:0", ctxWith(logits({ itemsPerSecond: undefined })));
    expect(variants(f)[0]).toEqual(["advice.holder", "holder-cuda"]);
    expect(say(f.advice[0]!)).toContain("keeps growing) keeps\ntensors on cuda:0, 4.00 MiB each. Keep");
    expect(f.evidence.holderDeviceBytesPerSecond).toBeUndefined();
  });

  it("a holder on another device, on the host, or none: the finding is left as it was", () => {
    for (const h of [logits({ device: "cuda:1" }), logits({ device: undefined, deviceBytesPerItem: undefined })]) {
      const f = gpuLeak(40 * MiB);
      putGpuHolder(f, 7, "cuda:0", ctxWith(h));
      expect(f.holder).toBeUndefined();
      expect(variants(f)).toEqual([["advice.gpu", "leak"]]);
    }
    const f = gpuLeak(40 * MiB);
    putGpuHolder(f, 8, "cuda:0", ctxWith(logits()));
    expect(f.holder).toBeUndefined();
  });

  it("a search that found no root: kept with its reason, and the snapshot advice stays (the way to look further)", () => {
    const f = gpuLeak(40 * MiB);
    putGpuHolder(f, 7, "cuda:0", ctxWith(logits({ found: false, path: undefined, hops: undefined, why: "bound" })));
    expect(f.holder).toMatchObject({ found: false, device: "cuda:0" });
    expect(variants(f)).toEqual([
      ["advice.holder", "holder-not-found"],
      ["advice.gpu", "leak"],
    ]);
  });
});
