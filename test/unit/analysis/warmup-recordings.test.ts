/**
 * Warm-up detection on real recordings: it should find where start-up ends, not fall back to its cap (a quarter of
 * the window) as a fixed cut. Before the growth-floor offset (context.ts WARMUP_MIN_OFFSET_SHARE) 18 of the 27
 * recordings were cut at the cap; the ones still at it now are those whose start-up is still going there.
 */
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { analyzedDoc } from "../../helpers/analyzed-once.js";
import { WARMUP_MAX_FRACTION } from "../../../src/analysis/stats/warmup.js";
import { FIXTURES } from "../../helpers/fixtures.js";

const DIRS = ["recordings", "calibration/recordings"];
const all = DIRS.flatMap((d) =>
  readdirSync(`${FIXTURES}${d}`)
    .filter((f) => f.endsWith(".jsonl"))
    .map((f) => `${d}/${f}`),
);

async function warmup(path: string): Promise<{ seconds: number; cap: number }> {
  const doc = await analyzedDoc(`${FIXTURES}${path}`);
  return { seconds: doc.window.warmup, cap: WARMUP_MAX_FRACTION * doc.window.end };
}

describe("warm-up detection on real recordings", () => {
  it("ends before the cap on at least four in five recordings", async () => {
    const found = await Promise.all(all.map(warmup));
    const atCap = found.filter((w) => w.seconds >= w.cap - 0.5).length;
    expect(all.length).toBeGreaterThanOrEqual(20);
    expect(atCap / all.length).toBeLessThanOrEqual(0.2);
  });

  it.each([
    // recording, warm-up at least, at most (seconds): what the program's own start-up takes
    ["recordings/leak_main.jsonl", 0, 3], // a plain script: the interpreter and its imports
    ["recordings/dict_cache_leak.jsonl", 0, 3],
    ["recordings/bounded_cache.jsonl", 4, 6.1], // an LRU cache that fills in 6 s: still filling at the cap
    ["calibration/recordings/long_warmup.jsonl", 12, 22], // ~20 s of imports and a model loaded shard by shard
    ["calibration/recordings/long_warmup_leak.jsonl", 12, 22.5],
  ])("%s: %d–%d s", async (path, low, high) => {
    const w = await warmup(path);
    expect(w.seconds).toBeGreaterThanOrEqual(low);
    expect(w.seconds).toBeLessThanOrEqual(high);
  });
});
