/**
 * Every parser is total: any text yields a value or a typed parse error, never an exception or a hang. Inputs mix
 * pure noise with mutations of real captures (lines dropped, truncated, bytes flipped), which is what a process dying
 * mid-read or a corrupt capture looks like.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseStat } from "../../../src/probes/stat.js";
import { parseStatus } from "../../../src/probes/status.js";
import { parseSmapsRollup } from "../../../src/probes/smaps-rollup.js";
import { parseMappedFiles } from "../../../src/probes/smaps-files.js";
import { parseProcCgroup } from "../../../src/probes/proc-cgroup.js";
import { parseMountinfo } from "../../../src/probes/mountinfo.js";
import { parseMemoryStat } from "../../../src/probes/memory-stat.js";
import { parseBytesFile, parseLimitFile, parseOomFile } from "../../../src/probes/cgroup-files.js";
import { fixture } from "../../helpers/fixtures.js";
import { mutated } from "../../helpers/damaged.js";

type AnyParser = (text: string) => { ok: boolean };

const PARSERS: [string, AnyParser, string][] = [
  ["stat", parseStat, "hybrid/stat.paren-in-comm"],
  ["status", parseStatus, "hybrid/status.torch"],
  ["smaps_rollup", parseSmapsRollup, "hybrid/smaps_rollup.torch"],
  ["smaps (mapped files)", (t) => parseMappedFiles(t), "hybrid/smaps.mapped-file"],
  ["proc cgroup", parseProcCgroup, "hybrid/proc-pid-cgroup"],
  ["mountinfo", parseMountinfo, "hybrid/mountinfo"],
  ["memory.stat", (t) => parseMemoryStat(t), "hybrid/memory.stat"],
  ["memory.stat as v2", (t) => parseMemoryStat(t, 2), "hybrid/memory.stat"],
  ["bytes", (t) => parseBytesFile(t, "x"), "hybrid/memory.usage_in_bytes"],
  ["limit", (t) => parseLimitFile(t, "x"), "hybrid/memory.limit_in_bytes"],
  ["oom v1", (t) => parseOomFile(t, 1), "hybrid/memory.oom_control"],
  ["oom v2", (t) => parseOomFile(t, 2), "hybrid/memory.oom_control"],
];

const noise = fc.oneof(
  fc.string({ maxLength: 400 }),
  fc.string({ unit: "binary", maxLength: 400 }),
  fc.array(fc.tuple(fc.string({ maxLength: 20 }), fc.oneof(fc.bigInt(), fc.double().map(String), fc.string())), {
    maxLength: 30,
  }).map((kv) => kv.map(([k, v]) => `${k}${[":", " ", ":\t"][String(v).length % 3]}${v} kB`).join("\n")),
);

describe.each(PARSERS)("%s parser is total", (_name, parse, capture) => {
  it("on noise", () => {
    fc.assert(
      fc.property(noise, (text) => {
        const r = parse(text);
        expect(typeof r.ok).toBe("boolean");
      }),
      { numRuns: 300 },
    );
  });

  it("on damaged real captures", () => {
    fc.assert(
      fc.property(mutated(fixture(capture)), (text) => {
        const r = parse(text) as { ok: boolean; value?: unknown; message?: string };
        if (r.ok) expect(r.value).toBeDefined();
        else expect(typeof r.message).toBe("string");
      }),
      { numRuns: 300 },
    );
  });

  // Catastrophic regex backtracking would hang here until the test times out; how long the parse takes is measured
  // in `npm run bench` (section f), not asserted.
  it("gives a value or a parse error on a 1 MB line", () => {
    const huge = "x".repeat(1 << 20) + ":" + " ".repeat(1 << 16) + "1 kB";
    const r = parse(huge) as { ok: boolean; value?: unknown; message?: string };
    if (r.ok) expect(r.value).toBeDefined();
    else expect(r.message).toEqual(expect.any(String));
  });
});
