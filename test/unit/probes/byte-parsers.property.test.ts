/**
 * stat, status and smaps_rollup are parsed from the read buffer's bytes (probes/colon-bytes.ts), not from decoded
 * text. The oracle is how they were read before, from the text: key-value.ts colonFields/kibField and parsed.ts's
 * counts for status and smaps_rollup, and the word-splitting stat parser kept below as it was. On real captures, damaged
 * captures and generated "Key: value" files the two must agree field for field, error messages included.
 * One known difference, left out of the comparison: String.trim stripped Unicode whitespace (a no-break space, C2 A0
 * in UTF-8) from the ends of a value, and the byte parsers strip ASCII's only. A process may name itself with one, so
 * status's Name could keep it where the text parser dropped it; no number is affected. Raw bytes (invalid UTF-8: a
 * comm cut in the middle of a character) are compared too.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { colonFields, kibField } from "../../../src/probes/key-value.js";
import { fail, ok, parseBigCount, parseCount, type Parsed } from "../../../src/probes/parsed.js";
import { parseSmapsRollupBytes } from "../../../src/probes/smaps-rollup.js";
import { parseStatBytes, type ProcStat } from "../../../src/probes/stat.js";
import { parseStatusBytes } from "../../../src/probes/status.js";
import { fixture } from "../../helpers/fixtures.js";
import { mutated } from "../../helpers/damaged.js";

const STATUS_KEYS = [
  "Name",
  "State",
  "Pid",
  "PPid",
  "Uid",
  "VmRSS",
  "VmHWM",
  "RssAnon",
  "RssFile",
  "RssShmem",
  "VmSwap",
  "Threads",
];

function statusOracle(text: string) {
  const f = colonFields(text, new Set(STATUS_KEYS));
  const name = f.get("Name");
  const pid = parseCount(f.get("Pid") ?? "");
  if (name === undefined || pid === undefined)
    return fail("/proc/PID/status", "no Name/Pid lines: not a status file, or truncated");
  const uids = f.get("Uid")?.split(/\s+/).map(parseCount);
  return ok({
    name,
    pid,
    state: /^[A-Za-z]/.test(f.get("State") ?? "") ? f.get("State")![0] : undefined,
    ppid: parseCount(f.get("PPid") ?? ""),
    uids: uids && uids.every((u): u is number => u !== undefined) ? uids : undefined,
    vmRss: kibField(f, "VmRSS"),
    vmHwm: kibField(f, "VmHWM"),
    rssAnon: kibField(f, "RssAnon"),
    rssFile: kibField(f, "RssFile"),
    rssShmem: kibField(f, "RssShmem"),
    vmSwap: kibField(f, "VmSwap"),
    threads: parseCount(f.get("Threads") ?? ""),
  });
}

function rollupOracle(text: string) {
  const f = colonFields(text);
  const rss = kibField(f, "Rss");
  const pss = kibField(f, "Pss");
  if (rss === undefined || pss === undefined)
    return fail("/proc/PID/smaps_rollup", "no Rss/Pss lines: not a smaps_rollup file, or empty");
  const [pc, pd, ph] = [kibField(f, "Private_Clean"), kibField(f, "Private_Dirty"), kibField(f, "Private_Hugetlb")];
  const k = (key: string) => kibField(f, key);
  return ok({
    rss,
    pss,
    pssAnon: k("Pss_Anon"),
    pssFile: k("Pss_File"),
    pssShmem: k("Pss_Shmem"),
    pssDirty: k("Pss_Dirty"),
    sharedClean: k("Shared_Clean"),
    sharedDirty: k("Shared_Dirty"),
    privateClean: pc,
    privateDirty: pd,
    privateHugetlb: ph,
    anonymous: k("Anonymous"),
    lazyFree: k("LazyFree"),
    anonHugePages: k("AnonHugePages"),
    swap: k("Swap"),
    swapPss: k("SwapPss"),
    uss: pc !== undefined && pd !== undefined ? pc + pd + (ph ?? 0) : undefined,
  });
}

/** The stat parser as it was before it read bytes (git show b06ac05:src/probes/stat.ts). */
function statOracle(text: string): Parsed<ProcStat> {
  const SOURCE = "/proc/PID/stat";
  const isSpace = (c: number) => c === 32 || c === 10 || c === 9 || c === 13;
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return fail(SOURCE, "no (comm) in stat line");
  const pid = parseCount(text.slice(0, open));
  if (pid === undefined) return fail(SOURCE, "stat line does not start with a pid");
  const rest: string[] = [];
  let i = close + 1;
  while (rest.length < 22) {
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
    if (i >= text.length) break;
    const start = i;
    while (i < text.length && !isSpace(text.charCodeAt(i))) i++;
    rest.push(text.slice(start, i));
  }
  if (rest.length < 22) return fail(SOURCE, `stat line has ${rest.length + 2} fields, expected at least 24`);
  const field = (n: number) => rest[n - 3]!;
  const nums = {
    ppid: parseCount(field(4)),
    utime: parseBigCount(field(14)),
    stime: parseBigCount(field(15)),
    numThreads: parseCount(field(20)),
    starttime: parseBigCount(field(22)),
    rssPages: parseBigCount(field(24)),
  };
  for (const [key, value] of Object.entries(nums))
    if (value === undefined) return fail(SOURCE, `field ${key} is not a number`);
  return ok({
    pid,
    comm: text.slice(open + 1, close),
    state: field(3),
    ...(nums as Omit<ProcStat, "pid" | "comm" | "state">),
  });
}

/** Unicode whitespace outside ASCII, which String.trim strips and the kernel never writes, made visible. */
const kernelish = (text: string) => text.replace(/(?![\t\n\v\f\r ])\s/gu, "_");
const bytesOf = (text: string) => Buffer.from(text, "utf8");

const padding = fc.constantFrom("", " ", "\t", "  \t", "\v", "\r");
const number = fc.oneof(
  fc.nat().map(String),
  fc.bigInt({ min: 0n, max: 10n ** 22n }).map(String),
  fc.constantFrom("", "-1", "1e3", "0x10", "12a", "007"),
);
/** "Key:<pad>value<pad>[kB]" files from the parser's own keys, numbers of every kind, and strangers. */
const colonFile = (keys: string[]) =>
  fc
    .array(
      fc.tuple(
        fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 12 })),
        padding,
        number,
        padding,
        fc.constantFrom("kB", "", "KB", "kB x", "B"),
        padding,
      ),
      { maxLength: 24 },
    )
    .map((lines) => lines.map(([k, p1, n, p2, unit, p3]) => `${k}:${p1}${n}${p2}${unit}${p3}`).join("\n"));

const anyText = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.string({ unit: "binary", maxLength: 300 }),
  fc.string({ unit: "binary-ascii", maxLength: 300 }),
);

describe.each([
  [
    "status",
    parseStatusBytes,
    statusOracle,
    [
      "hybrid/status.torch",
      "hybrid/status.paren-in-comm",
      "hybrid/status.kthread",
      "hybrid/status.zombie",
      "old-kernel/status.2.6.32-openvz",
    ],
    colonFile(STATUS_KEYS),
  ],
  [
    "smaps_rollup",
    parseSmapsRollupBytes,
    rollupOracle,
    ["hybrid/smaps_rollup.torch", "old-kernel/smaps_rollup.pre-5.3"],
    colonFile(["Rss", "Pss", "Pss_Anon", "Private_Clean", "Private_Dirty", "Private_Hugetlb", "Shared_Clean", "Swap"]),
  ],
  [
    "stat",
    parseStatBytes,
    statOracle,
    ["hybrid/stat.torch", "hybrid/stat.paren-in-comm", "hybrid/stat.kthread", "hybrid/stat.zombie"],
    fc
      .tuple(
        fc.nat(),
        fc.string({ maxLength: 20 }),
        fc.array(fc.tuple(number, fc.constantFrom(" ", "  ", "\t", "\n", "\f", "\r", "\v")), {
          minLength: 18,
          maxLength: 52,
        }),
      )
      .map(([pid, comm, fields]) => `${pid} (${comm}) ${fields.map(([n, sep]) => n + sep).join("")}`),
  ],
] as const)(
  "%s from bytes agrees with the text parser it replaced",
  (_name, fromBytes, oracle, captures, generated) => {
    const agree = (raw: string) => {
      const text = kernelish(raw);
      // The oracle reads the text as the old HostFs decoded it: the bytes as UTF-8.
      const decoded = bytesOf(text).toString("utf8");
      expect((fromBytes as (b: Uint8Array) => unknown)(bytesOf(text))).toEqual(
        (oracle as (t: string) => unknown)(decoded),
      );
    };

    it.each(captures)("on the capture %s", (capture) => {
      const r = (fromBytes as (b: Uint8Array) => { ok: boolean })(bytesOf(fixture(capture)));
      agree(fixture(capture));
      expect(r.ok || capture.includes("kthread") || capture.includes("zombie")).toBe(true);
    });

    it("on damaged captures", () => {
      fc.assert(
        fc.property(
          fc.constantFrom(...captures).chain((c) => mutated(fixture(c))),
          agree,
        ),
        { numRuns: 1500 },
      );
    });

    it("on generated files", () => {
      fc.assert(fc.property(generated, agree), { numRuns: 1500 });
    });

    it("on noise", () => {
      fc.assert(fc.property(anyText, agree), { numRuns: 500 });
    });

    it("on raw bytes, invalid UTF-8 included", () => {
      const unicodeBlank = /(?![\t\n\v\f\r ])\s/u;
      const raw = fc.oneof(
        fc.uint8Array({ maxLength: 300 }),
        // A real capture with a few bytes replaced by arbitrary ones (a multi-byte name cut at its end).
        fc
          .tuple(fc.constantFrom(...captures), fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 3 }))
          .map(([c, at, junk]) => {
            const bytes = Buffer.from(fixture(c), "utf8");
            const i = at % Math.max(1, bytes.length);
            return Buffer.concat([bytes.subarray(0, i), junk, bytes.subarray(i + junk.length)]);
          }),
      );
      fc.assert(
        fc.property(raw, (bytes) => {
          const buf = Buffer.from(bytes);
          const decoded = buf.toString("utf8");
          fc.pre(!unicodeBlank.test(decoded));
          expect((fromBytes as (b: Uint8Array) => unknown)(buf)).toEqual((oracle as (t: string) => unknown)(decoded));
        }),
        { numRuns: 1500 },
      );
    });
  },
);
