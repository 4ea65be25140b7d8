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
  fc
    .array(fc.tuple(fc.string({ maxLength: 20 }), fc.oneof(fc.bigInt(), fc.double().map(String), fc.string())), {
      maxLength: 30,
    })
    .map((kv) => kv.map(([k, v]) => `${k}${[":", " ", ":\t"][String(v).length % 3]}${v} kB`).join("\n")),
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

/**
 * What comes out of a damaged capture, not only that something does: a read cut short or missing lines loses values,
 * it never invents or changes one. Lines are kept in order (fc.subarray), as a partial read keeps them.
 */
describe("lines missing from a real capture: what is left is the capture's own values", () => {
  const linesOf = (capture: string) => fixture(capture).split("\n");
  const valueOf = <T>(r: { ok: boolean; value?: T; message?: string }): T => {
    if (!r.ok) throw new Error(`the whole capture does not parse: ${r.message}`);
    return r.value as T;
  };

  // One entry per non-blank line, in order: the entries of the lines kept, no more, no fewer.
  it.each([
    ["mountinfo", parseMountinfo as AnyParser, "hybrid/mountinfo"],
    ["proc cgroup", parseProcCgroup as AnyParser, "hybrid/proc-pid-cgroup"],
  ])("%s: one entry per line kept, equal to that line's in the whole capture", (_name, parse, capture) => {
    const lines = linesOf(capture);
    const entryOf = lines.map((l) => (l.trim() === "" ? undefined : (valueOf(parse(l) as never) as unknown[])[0]));
    fc.assert(
      fc.property(fc.subarray(lines.map((_, i) => i)), (kept) => {
        const r = parse(kept.map((i) => lines[i]).join("\n")) as { ok: boolean; value?: unknown[] };
        const want = kept.map((i) => entryOf[i]).filter((e) => e !== undefined);
        if (want.length === 0)
          expect(r.ok).toBe(false); // nothing left to read is an error ("empty"), not []
        else expect(r.value).toEqual(want);
      }),
      { numRuns: 200 },
    );
  });

  it("memory.stat: every field read is the capture's, and every field kept is read", () => {
    const lines = linesOf("hybrid/memory.stat");
    const whole = valueOf(parseMemoryStat(lines.join("\n"), 2));
    fc.assert(
      fc.property(fc.subarray(lines), (kept) => {
        const r = parseMemoryStat(kept.join("\n"), 2);
        const raw = r.ok ? r.value.raw : {};
        const want = Object.fromEntries(
          kept
            .filter((l) => l.trim() !== "")
            .map((l) => l.split(" ")[0]!)
            .map((k) => [k, whole.raw[k]]),
        );
        expect(raw).toEqual(want);
        if (r.ok && kept.some((l) => l.startsWith("anon "))) expect(r.value.breakdown.anon).toBe(whole.breakdown.anon);
      }),
      { numRuns: 200 },
    );
  });

  it("smaps_rollup: each field is the capture's or missing, never another number", () => {
    const lines = linesOf("hybrid/smaps_rollup.torch");
    const whole = valueOf(parseSmapsRollup(lines.join("\n"))) as unknown as Record<string, number | undefined>;
    fc.assert(
      fc.property(fc.subarray(lines), (kept) => {
        const r = parseSmapsRollup(kept.join("\n"));
        if (!r.ok) {
          expect(kept.some((l) => l.startsWith("Rss:")) && kept.some((l) => l.startsWith("Pss:"))).toBe(false); // the two it needs
          return;
        }
        for (const [k, v] of Object.entries(r.value)) if (v !== undefined) expect([k, v]).toEqual([k, whole[k]]);
      }),
      { numRuns: 200 },
    );
  });

  it("smaps (mapped files): every file named is in a header kept, with a whole number of KiB", () => {
    const lines = linesOf("hybrid/smaps.mapped-file");
    fc.assert(
      fc.property(fc.subarray(lines), (kept) => {
        const r = parseMappedFiles(kept.join("\n"), Infinity);
        if (!r.ok) return;
        for (const f of r.value) {
          expect(
            kept.some((l) => l.includes(f.path)),
            f.path,
          ).toBe(true);
          expect(f.rss % 1024).toBe(0);
        }
      }),
      { numRuns: 200 },
    );
  });
});
