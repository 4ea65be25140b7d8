/**
 * The pytest plugin's judgement (src/agent/python/memleak_pytest.py `judge`) as a decision table, in a real
 * interpreter: per-call readings of [blocks, malloc in-use, RSS anon] → leak, one-off, fragmentation, stable or
 * insufficient-data; and its size parser, which must read sizes the way memleak's base/units.ts does.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { parseSize } from "../../../src/base/units.js";
import { REPO } from "../../helpers/fixtures.js";
import { SYSTEM_PYTHON } from "../../helpers/processes.js";

const KiB = 1024;
const MiB = 1024 * KiB;

/** Readings are cumulative [blocks, malloc, anon] after 0, 1, … calls; `trimTo` is RssAnon after malloc_trim, or none. */
interface Case {
  readings: [number, number, number][];
  warmup: number;
  trimTo?: number | null;
  /** The full collection's reading after the last call, when the others were young ones. */
  final?: [number, number, number];
}

function judge(cases: Case[]): { kind: string; perCall: number[]; trimmed: boolean }[] {
  const code = `
import json, sys
sys.path.insert(0, ${JSON.stringify(`${REPO}src/agent/python`)})
import memleak_pytest as p
out = []
for c in json.loads(sys.stdin.read()):
    flat = [v for r in c["readings"] for v in r]
    asked = []
    trim = (lambda: asked.append(1) or c.get("trimTo")) if "trimTo" in c else None
    j = p.judge(flat, len(c["readings"]) - 1, c["warmup"], True, trim, c.get("final"))
    out.append({"kind": j["kind"], "perCall": j["perCall"], "trimmed": bool(asked)})
print(json.dumps(out))`;
  return JSON.parse(execFileSync(SYSTEM_PYTHON, ["-c", code], { input: JSON.stringify(cases), encoding: "utf8" }));
}

/** Cumulative readings from per-call growths [blocks, malloc, anon], starting at a baseline. */
const steps = (...deltas: [number, number, number][]): [number, number, number][] => {
  const out: [number, number, number][] = [[100_000, 50 * MiB, 80 * MiB]];
  for (const d of deltas) {
    const last = out[out.length - 1]!;
    out.push([last[0] + d[0], last[1] + d[1], last[2] + d[2]]);
  }
  return out;
};

describe("judge: what a test's readings say", () => {
  it.each<[string, string, Case]>([
    // The fixture suite's shapes
    [
      "256 KiB kept on every call, 2 warm-up calls",
      "leak",
      { readings: steps(...Array(7).fill([2, 256 * KiB, 256 * KiB])), warmup: 2 },
    ],
    [
      "4 MiB on the first call, nothing after",
      "one-off",
      { readings: steps([66, 4 * MiB, 3 * MiB], ...Array(6).fill([0, 0, 0])), warmup: 2 },
    ],
    [
      "one block on every call after the warm-up (CPython's -R rule)",
      "leak",
      { readings: steps([40, 0, 0], [1, 0, 0], [1, 0, 0], [2, 0, 0], [1, 0, 0]), warmup: 1 },
    ],
    // CPython's refleak false positives: not every delta ≥ 1
    [
      "blocks 3, 0, 0 after warm-up",
      "stable",
      { readings: steps([0, 0, 0], [3, 0, 0], [0, 0, 0], [0, 0, 0]), warmup: 1 },
    ],
    ["blocks 8, -8, 1", "stable", { readings: steps([0, 0, 0], [8, 0, 0], [-8, 0, 0], [1, 0, 0]), warmup: 1 }],
    [
      "malloc noise of a few hundred bytes a call",
      "stable",
      { readings: steps(...Array(6).fill([0, 300, 0])), warmup: 1 },
    ],
    [
      "one call that kept 3 MiB: nothing to compare it with",
      "insufficient-data",
      { readings: steps([9, 3 * MiB, 0]), warmup: 0 },
    ],
    ["one call that kept nothing", "stable", { readings: steps([0, 200, 4 * KiB]), warmup: 0 }],
    [
      "a single repeat after the warm-up cannot show growth on every call",
      "stable",
      { readings: steps([0, 0, 0], [1, 2 * KiB, 0]), warmup: 1 },
    ],
  ])("%s → %s", (_name, kind, c) => {
    expect(judge([c])[0]!.kind).toBe(kind);
  });

  it("growth in RSS alone is fragmentation when malloc_trim gives it back, and only then", () => {
    const rssOnly = steps([0, 0, 8 * MiB], [0, 0, 0], [0, 0, 0]);
    const [given, kept, noTrim, live] = judge([
      { readings: rssOnly, warmup: 0, trimTo: 80 * MiB + 16 * KiB },
      { readings: rssOnly, warmup: 0, trimTo: 80 * MiB + 6 * MiB },
      { readings: rssOnly, warmup: 0, trimTo: null },
      // malloc grew too: live memory, so no trim is tried
      { readings: steps([0, 8 * MiB, 8 * MiB], [0, 0, 0], [0, 0, 0]), warmup: 0, trimTo: 80 * MiB },
    ]);
    expect(given).toMatchObject({ kind: "fragmentation", trimmed: true });
    expect(kept).toMatchObject({ kind: "one-off", trimmed: true });
    expect(noTrim).toMatchObject({ kind: "one-off", trimmed: true });
    expect(live).toMatchObject({ kind: "one-off", trimmed: false });
  });

  it("garbage cycles the young readings counted are not a leak once the full collection frees them; a leak still is", () => {
    const young = steps([0, 0, 0], ...Array(5).fill([50, 2 * KiB, 0]));
    const start = young[0]!;
    const [garbage, leak] = judge([
      { readings: young, warmup: 1, final: [start[0] + 1, start[1] + 300, start[2]] },
      { readings: young, warmup: 1, final: [start[0] + 5 * 20, start[1] + 5 * 2 * KiB, start[2]] },
    ]);
    expect(garbage!.kind).toBe("stable");
    expect(leak!.kind).toBe("leak");
    expect(leak!.perCall).toEqual([20, 2 * KiB, 0]);
  });

  it("the growth per call is the mean over the calls after the warm-up", () => {
    const [leak] = judge([
      { readings: steps([50, 5 * MiB, 5 * MiB], [2, 100 * KiB, 0], [2, 300 * KiB, 400 * KiB]), warmup: 1 },
    ]);
    expect(leak!.kind).toBe("leak");
    expect(leak!.perCall).toEqual([2, 200 * KiB, 200 * KiB]);
  });
});

describe("parse_size reads sizes as memleak does", () => {
  it.each(["10MiB", "1.5GB", "100KiB", "4096B", "0", "2k", "3 MB", "1Gi"])("%s", (text) => {
    const py = execFileSync(
      SYSTEM_PYTHON,
      [
        "-c",
        `import sys; sys.path.insert(0, ${JSON.stringify(`${REPO}src/agent/python`)}); import memleak_pytest as p; print(p.parse_size(sys.argv[1]))`,
        text,
      ],
      { encoding: "utf8" },
    );
    const ts = parseSize(text);
    expect(ts.ok && ts.value.kind === "bytes" ? ts.value.bytes : undefined).toBe(Number(py));
  });

  it("refuses what memleak refuses, and a percentage", () => {
    const out = execFileSync(
      SYSTEM_PYTHON,
      [
        "-c",
        `
import sys; sys.path.insert(0, ${JSON.stringify(`${REPO}src/agent/python`)}); import memleak_pytest as p
for v in ["50MX", "10%", "", "-5", True, -1, "50", 4096]:
    try:
        p.parse_size(v); print("accepted", v)
    except p.SizeError as e:
        print(e)`,
      ],
      { encoding: "utf8" },
    );
    expect(out.trim().split("\n")).toEqual([
      '"50MX" is not a size: use a number with B, KiB, MiB, GiB (or kB, MB, GB)',
      '"10%" is not a size: use a number with B, KiB, MiB, GiB (or kB, MB, GB)',
      '"" is not a size: use a number with B, KiB, MiB, GiB (or kB, MB, GB)',
      '"-5" is not a size: use a number with B, KiB, MiB, GiB (or kB, MB, GB)',
      "True is not a size",
      "-1 is not a size: it is negative",
      '"50" has no unit: did you mean 50MiB? (50B for bytes)',
      '"4096" has no unit: did you mean 4096MiB? (4096B for bytes)',
    ]);
  });
});

describe("a test's id as the plugin sends it", () => {
  it("is cut to memleak's limit in UTF-16 units, so an id of emoji is cut short enough, not dropped by memleak", async () => {
    const { parseTestMark } = await import("../../../src/agent/pytest-messages.js");
    const ids = ["t.py::test[" + "😀".repeat(400) + "]", "t.py::test[" + "a".repeat(600) + "]", "t.py::plain"];
    const code = `
import json, sys
sys.path.insert(0, ${JSON.stringify(`${REPO}src/agent/python`)})
import memleak_pytest as p
print(json.dumps([p._short_nodeid(i) for i in json.loads(sys.stdin.read())]))`;
    const cut = JSON.parse(
      execFileSync(SYSTEM_PYTHON, ["-c", code], { input: JSON.stringify(ids), encoding: "utf8" }),
    ) as string[];
    expect(cut[2]).toBe("t.py::plain");
    for (const nodeid of cut)
      expect(parseTestMark({ type: "test-start", nodeid }, 1, 0), nodeid.slice(0, 40)).toBeDefined();
  });
});
