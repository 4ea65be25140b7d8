/**
 * How the agent's code reaches a target (src/agent/python/memleak_code.py): compiled by the first process of a memleak
 * and loaded by the others from memleak's private directory, because compiling memleak_agent.py left ~3.6 MiB of the
 * compiler's freed memory resident in every process (and every page of it makes each smaps_rollup memleak reads dearer).
 * Real interpreters, real files; the last test is a real `memleak run` with PYTHONDONTWRITEBYTECODE=1, as in most
 * Python container images. Under `watch`, the watched program's interpreter compiles it in a process of its own
 * (agent/attach/precompile.ts).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REPO } from "../../helpers/fixtures.js";
import { MEMLEAK, SYSTEM_PYTHON } from "../../helpers/processes.js";
import { AGENT_CODE_FILES, Precompiler } from "../../../src/agent/attach/precompile.js";

const AGENT_DIR = `${REPO}src/agent/python`;
const dirs: string[] = [];
const scratch = () => {
  const d = mkdtempSync(join(tmpdir(), "memleak-code-test-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

interface Loaded {
  /** The agent's entry (memleak_agent.py) was compiled. */
  compiled: boolean;
  /** Each of its files, the entry's and its rooms' (AGENT_CODE_FILES, in the order it loads them), was compiled. */
  each: boolean[];
  /** RssAnon (KiB) the load added to the process. */
  addedKiB: number;
  /** The loaded module works: one of its functions, called. */
  beat: number;
  registered: boolean;
}

/** Loads `agent` (the agent's source by default; its rooms from beside it) with memleak_code.load in a fresh interpreter of
 * `python`. */
function load(
  cacheDir: string | null,
  o: { python?: string; trim?: boolean; agent?: string; elsewhere?: boolean; executable?: string } = {},
): Loaded {
  const code = `
import json, sys
sys.path.insert(0, ${JSON.stringify(AGENT_DIR)})
import memleak_code, importlib.util, marshal, ctypes  # what load() imports, before the first reading
def anon():
    for line in open("/proc/self/status"):
        if line.startswith("RssAnon"):
            return int(line.split()[1])
compiled = []
real = memleak_code._compiled
memleak_code._compiled = lambda p, d, *e: (lambda r: (compiled.append(r[1]), r)[1])(real(p, d, *e))
${o.executable === undefined ? "" : `sys.executable = ${JSON.stringify(o.executable)}`}
before = anon()
m = memleak_code.load("memleak_agent", ${JSON.stringify(o.agent ?? `${AGENT_DIR}/memleak_agent.py`)}, ${cacheDir === null ? "None" : JSON.stringify(cacheDir)}, trim_after_load=${o.trim ? "True" : "False"}, elsewhere=${o.elsewhere ? "True" : "False"})
added = anon() - before
print(json.dumps({"compiled": compiled[0], "each": compiled, "addedKiB": added, "beat": m.lifecycle._until_next_beat(1.0), "registered": sys.modules.get("memleak_agent") is m}))`;
  return JSON.parse(execFileSync(o.python ?? "python3", ["-c", code], { encoding: "utf8" })) as Loaded;
}

describe("the agent's code, compiled once and shared", () => {
  it("the first process compiles it and leaves it in the directory; the next loads it, with far less memory", () => {
    const dir = scratch();
    const first = load(dir);
    expect(first.compiled).toBe(true);
    expect(first.registered).toBe(true);
    expect(first.beat).toBeGreaterThan(0);
    expect(first.each).toEqual(AGENT_CODE_FILES.map(() => true));
    // One file of compiled code for the entry and each of its rooms.
    const files = readdirSync(dir);
    expect(files).toHaveLength(AGENT_CODE_FILES.length);
    for (const file of AGENT_CODE_FILES)
      expect(files.filter((f) => f.startsWith(file.replace(/\.py$/, "-")) && f.endsWith(".code"))).toHaveLength(1);
    const second = load(dir);
    expect(second.compiled).toBe(false);
    expect(second.each).toEqual(AGENT_CODE_FILES.map(() => false));
    expect(second.registered).toBe(true);
    expect(second.beat).toBeGreaterThan(0);
    // Measured here: +3.4–3.9 MiB compiled, +0.4–0.9 MiB loaded (Python 3.11, pyenv's and Debian's). Resident memory
    // is not timing: the margin is for allocator details across versions, not for load.
    expect(first.addedKiB - second.addedKiB).toBeGreaterThan(1536);
  });

  it("after compiling at start-up (run), the compiler's freed memory goes back to the kernel", () => {
    const kept = load(null);
    const trimmed = load(null, { trim: true });
    expect(kept.compiled && trimmed.compiled).toBe(true);
    // ~2 MiB of the 3.6 returned (malloc_trim(0)); what stays is the code itself and pymalloc's arenas.
    expect(kept.addedKiB - trimmed.addedKiB).toBeGreaterThan(1024);
  });

  // Loaded from the cache, the file's reading and the code's unmarshalling leave freed blocks at the heap's top, and
  // how much glibc keeps there went by where the agent's code happened to end: an agent 7 KB shorter kept 128 KiB more
  // of [heap] in every process (bench/py/agent_footprint.py). Measured here: 276 KiB added, 168 with the trim.
  it("loaded from the cache at start-up (run), what the loading left at the heap's top goes back too", () => {
    const dir = scratch();
    expect(load(dir).compiled).toBe(true);
    const kept = load(dir);
    const trimmed = load(dir, { trim: true });
    expect(kept.compiled || trimmed.compiled).toBe(false);
    expect(trimmed.addedKiB).toBeLessThan(kept.addedKiB);
  });

  it("another Python version compiles its own, beside the first's", () => {
    const dir = scratch();
    expect(load(dir).compiled).toBe(true);
    expect(load(dir, { python: `${pyenvRoot()}/versions/${version("3.8")}/bin/python3` }).compiled).toBe(true);
    expect(readdirSync(dir)).toHaveLength(2 * AGENT_CODE_FILES.length);
    expect(load(dir).compiled).toBe(false);
  });

  it("a changed source is compiled again; a damaged cache file or a directory it may not write are compiled as Python would", () => {
    const dir = scratch();
    const copy = scratch();
    for (const file of AGENT_CODE_FILES) copyFileSync(`${AGENT_DIR}/${file}`, join(copy, file));
    const agent = join(copy, "memleak_agent.py");
    expect(load(dir, { agent }).compiled).toBe(true);
    expect(load(dir, { agent }).compiled).toBe(false);
    utimesSync(agent, new Date(), new Date(Date.now() + 5000)); // a new install: same size, another mtime
    expect(load(dir, { agent }).compiled).toBe(true);
    const file = readdirSync(dir).find((f) => /^memleak_agent-[0-9a-f]{8}\.code$/.test(f));
    writeFileSync(join(dir, file!), "not marshal data");
    const damaged = load(dir, { agent });
    expect(damaged.compiled).toBe(true);
    expect(damaged.beat).toBeGreaterThan(0);
    // /proc: no file can be created there, even by root (a read-only install's directory, another user's /tmp).
    const unwritable = load("/proc", { agent, python: SYSTEM_PYTHON });
    expect(unwritable.compiled && unwritable.registered).toBe(true);
    expect(load(join(dir, "gone"), { agent }).beat).toBeGreaterThan(0);
  });

  it("`watch` has the program's own interpreter compile it outside the program: the program then loads it, compiling nothing", async () => {
    const dir = scratch();
    const exe = execFileSync("python3", ["-c", "import os, sys; print(os.path.realpath(sys.executable))"], {
      encoding: "utf8",
    }).trim();
    const precompiler = new Precompiler();
    expect(await precompiler.ensure({ exe, cacheDir: dir })).toBe(true);
    expect(readdirSync(dir).filter((f) => /^memleak_agent-[0-9a-f]{8}\.code$/.test(f))).toHaveLength(1);
    expect(readdirSync(dir)).toHaveLength(AGENT_CODE_FILES.length);
    expect(load(dir).each).toEqual(AGENT_CODE_FILES.map(() => false));
    // Not run: a binary not named as CPython's interpreter is (a program embedding Python would take the arguments as
    // its own: /usr/bin/env here would run them), one replaced under the program. One that fails: nothing cached.
    const other = scratch();
    expect(await precompiler.ensure({ exe: "/usr/bin/env", cacheDir: other })).toBe(false);
    expect(await precompiler.ensure({ exe: `${exe} (deleted)`, cacheDir: other })).toBe(false);
    const failing = join(scratch(), "python3");
    writeFileSync(failing, "#!/bin/sh\nexit 1\n", { mode: 0o755 });
    expect(await precompiler.ensure({ exe: failing, cacheDir: other })).toBe(false);
    expect(readdirSync(other)).toHaveLength(0);
    expect(load(other).compiled).toBe(true);
  });

  // §g¹⁵: compiling in the program left the compiler's freed memory as holes in its heap, where each worker it forked
  // put its first allocations, copying the pages it shared: ~45 kB an idle worker (3.11).
  it("under `run` the first process has its own interpreter compile it in a process of its own, and loads it", () => {
    const dir = scratch();
    const first = load(dir, { elsewhere: true, trim: true });
    expect(first.each).toEqual(AGENT_CODE_FILES.map(() => false));
    expect(first.registered).toBe(true);
    expect(first.beat).toBeGreaterThan(0);
    expect(readdirSync(dir)).toHaveLength(AGENT_CODE_FILES.length);
    // What it added is a load's, not a compile's (measured here: +3.4–3.9 MiB compiled, +0.4–0.9 MiB loaded).
    expect(load(scratch(), { trim: true }).addedKiB - first.addedKiB).toBeGreaterThan(512);
    // An interpreter that is not CPython's binary by name (a program embedding Python: it would take the arguments as
    // its own), or not the one this process runs: compiled here, as before.
    for (const executable of ["/usr/bin/uwsgi", ""]) {
      const here = load(scratch(), { elsewhere: true, executable });
      expect(here.each, executable).toEqual(AGENT_CODE_FILES.map(() => true));
      expect(here.beat).toBeGreaterThan(0);
    }
    // Debian's python3 where pyenv's runs: another interpreter than this process's.
    expect(load(scratch(), { elsewhere: true, executable: SYSTEM_PYTHON }).compiled).toBe(true);
  });

  it("what the compile elsewhere says (a source that does not compile) reaches nobody: the program's streams are its own", () => {
    const copy = scratch();
    for (const file of AGENT_CODE_FILES) copyFileSync(`${AGENT_DIR}/${file}`, join(copy, file));
    writeFileSync(join(copy, "memleak_census.py"), "def broken(:\n");
    const dir = scratch();
    const r = spawnSync(
      "python3",
      [
        "-c",
        `import sys; sys.path.insert(0, ${JSON.stringify(AGENT_DIR)}); import memleak_code; memleak_code._compile_elsewhere(${JSON.stringify(join(copy, "memleak_agent.py"))}, ${JSON.stringify(dir)}); print("done")`,
      ],
      { encoding: "utf8" },
    );
    expect(r.stdout).toBe("done\n");
    expect(r.stderr).toBe("");
    // The files before the broken one were compiled; the broken one is left to the program, which compiles it itself.
    expect(readdirSync(dir).some((f) => f.startsWith("memleak_agent-"))).toBe(true);
    expect(readdirSync(dir).some((f) => f.startsWith("memleak_census-"))).toBe(false);
  });

  it("under `memleak run` with PYTHONDONTWRITEBYTECODE=1, the processes it starts share the code in its private directory", () => {
    const program = `
import json, os, subprocess, sys
private = os.path.dirname(os.environ["MEMLEAK_AGENT_SOCKET"])
child = subprocess.run([sys.executable, "-c", "import sys; print(sys.modules['memleak_agent'].connected())"], capture_output=True, text=True).stdout.strip()
print("LISTING " + json.dumps({"files": sorted(os.listdir(private)), "child": child, "agent": sys.modules["memleak_agent"].connected()}))`;
    const out = execFileSync(process.execPath, [MEMLEAK, "run", "--", "python3", "-c", program], {
      encoding: "utf8",
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const line = /LISTING (.*)/.exec(out)?.[1];
    expect(line, out).toBeDefined();
    const seen = JSON.parse(line!) as { files: string[]; child: string; agent: boolean };
    expect(seen.agent).toBe(true);
    expect(seen.child).toBe("True");
    expect(seen.files).toContain("agent.sock");
    for (const file of AGENT_CODE_FILES)
      expect(seen.files.filter((f) => f.startsWith(file.replace(/\.py$/, "-")) && f.endsWith(".code"))).toHaveLength(1);
  });
});

function pyenvRoot(): string {
  return execFileSync("pyenv", ["root"], { encoding: "utf8" }).trim();
}

function version(prefix: string): string {
  const found = readdirSync(`${pyenvRoot()}/versions`).find((v) => v.startsWith(`${prefix}.`));
  if (!found) throw new Error(`no pyenv Python ${prefix} here (the machine guide lists 3.8–3.13)`);
  return found;
}
