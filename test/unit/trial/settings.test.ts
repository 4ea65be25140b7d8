import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  BASELINE,
  findAllocator,
  parseSetting,
  resolveSettings,
  settingEnv,
  settingHow,
  TRIM_EVERY_DEFAULT,
} from "../../../src/trial/settings.js";
import { MemleakError } from "../../../src/base/errors.js";

/** A root holding only these library files (a machine with or without Debian's allocator packages). */
function rootWith(...files: string[]): string {
  const root = mkdtempSync(join(tmpdir(), "memleak-libs-"));
  for (const f of files) {
    mkdirSync(join(root, f, ".."), { recursive: true });
    writeFileSync(join(root, f), "");
  }
  return root;
}

const usage = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(MemleakError);
    expect((err as MemleakError).exitCode).toBe(2);
    return (err as Error).message;
  }
  throw new Error("no error");
};

describe("parseSetting: --try's text", () => {
  it("names the allocators, trim and any environment assignment", () => {
    expect(parseSetting("jemalloc")).toEqual({ kind: "allocator", text: "jemalloc", allocator: "jemalloc" });
    expect(parseSetting("mimalloc")).toEqual({ kind: "allocator", text: "mimalloc", allocator: "mimalloc" });
    expect(parseSetting("trim")).toEqual({ kind: "trim", text: "trim", every: TRIM_EVERY_DEFAULT });
    expect(parseSetting("trim=2s")).toEqual({ kind: "trim", text: "trim=2", every: 2 });
    expect(parseSetting("MALLOC_ARENA_MAX=2")).toEqual({
      kind: "env",
      text: "MALLOC_ARENA_MAX=2",
      name: "MALLOC_ARENA_MAX",
      value: "2",
    });
    // jemalloc's own settings hold commas and colons: the value is taken whole.
    expect(parseSetting("MALLOC_CONF=narenas:2,dirty_decay_ms:1000")).toMatchObject({
      name: "MALLOC_CONF",
      value: "narenas:2,dirty_decay_ms:1000",
    });
    expect(parseSetting("MALLOC_TRIM_THRESHOLD_=")).toMatchObject({ name: "MALLOC_TRIM_THRESHOLD_", value: "" });
  });

  it("refuses anything else in one line that lists the forms", () => {
    expect(usage(() => parseSetting("tcmalloc"))).toBe(
      '--try: "tcmalloc" is not a setting memleak can try: jemalloc, mimalloc, trim (or trim=SECONDS), or NAME=value (an environment variable)',
    );
    expect(usage(() => parseSetting("2X=1"))).toContain('"2X" is not an environment variable\'s name');
    expect(usage(() => parseSetting("=1"))).toContain("is not a setting memleak can try");
    expect(usage(() => parseSetting("trim=0"))).toContain("between 0.5 and 3600");
    expect(usage(() => parseSetting("trim=soon"))).toContain("between 0.5 and 3600");
    expect(usage(() => parseSetting("LD_PRELOAD=/x.so"))).toContain("try those by name");
    expect(usage(() => parseSetting("MEMLEAK_PID=1"))).toContain("memleak's own");
  });
});

describe("findAllocator and resolveSettings: the library on this machine", () => {
  it("finds Debian's files in the multiarch directory, and mimalloc's either name", () => {
    const root = rootWith("usr/lib/x86_64-linux-gnu/libjemalloc.so.2", "usr/lib/libmimalloc.so.2.0");
    expect(findAllocator("jemalloc", root, "x64")).toBe("/usr/lib/x86_64-linux-gnu/libjemalloc.so.2");
    expect(findAllocator("mimalloc", root, "x64")).toBe("/usr/lib/libmimalloc.so.2.0");
    expect(findAllocator("jemalloc", root, "arm64")).toBeUndefined();
  });

  it("refuses a missing allocator with the package that installs it, before anything runs", () => {
    const root = rootWith();
    expect(usage(() => resolveSettings([parseSetting("jemalloc")], root))).toBe(
      "--try: jemalloc needs libjemalloc.so.2, which is not installed here (Debian: apt-get install libjemalloc2)",
    );
    expect(usage(() => resolveSettings([parseSetting("mimalloc")], root))).toContain("apt-get install libmimalloc2.0");
  });

  it("refuses the same setting twice, and the same variable with two values", () => {
    const root = rootWith();
    expect(usage(() => resolveSettings([parseSetting("trim"), parseSetting("trim=2")], root))).toContain("tried twice");
    expect(
      usage(() => resolveSettings([parseSetting("MALLOC_ARENA_MAX=2"), parseSetting("MALLOC_ARENA_MAX=4")], root)),
    ).toBe("--try: MALLOC_ARENA_MAX is tried twice (the second time as MALLOC_ARENA_MAX=4)");
  });
});

describe("settingEnv and settingHow: how each is made", () => {
  const jemalloc = {
    kind: "allocator",
    text: "jemalloc",
    allocator: "jemalloc",
    library: "/l/libjemalloc.so.2",
  } as const;
  it("preloads the allocator before the user's own preloads", () => {
    expect(settingEnv(jemalloc, {})).toEqual({ LD_PRELOAD: "/l/libjemalloc.so.2" });
    expect(settingEnv(jemalloc, { LD_PRELOAD: "/x/libfoo.so" })).toEqual({
      LD_PRELOAD: "/l/libjemalloc.so.2:/x/libfoo.so",
    });
    expect(settingHow(jemalloc)).toBe("LD_PRELOAD=/l/libjemalloc.so.2");
  });

  it("sets the variable, tells the agent trim's period, and leaves the baseline as it is", () => {
    expect(settingEnv(parseSetting("MALLOC_ARENA_MAX=2") as never, {})).toEqual({ MALLOC_ARENA_MAX: "2" });
    expect(settingEnv({ kind: "trim", text: "trim", every: 5 }, {})).toEqual({ MEMLEAK_TRIM_EVERY: "5" });
    expect(settingEnv(BASELINE, { LD_PRELOAD: "/x.so" })).toEqual({});
    expect(settingHow({ kind: "trim", text: "trim", every: 5 })).toBe("the agent calls malloc_trim(0) every 5 s");
  });
});
