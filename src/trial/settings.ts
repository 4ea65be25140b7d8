/**
 * What `run --try` can change about how the command runs, and how each change is made: an environment assignment
 * (MALLOC_ARENA_MAX=2, MALLOC_TRIM_THRESHOLD_=0, MALLOC_CONF=…), another allocator preloaded (Debian's libjemalloc2 or
 * libmimalloc2.0, found by path), or `trim`: the agent calls malloc_trim(0) every few seconds. These are the remedies
 * the fragmentation advice names; trying them on the user's own program is what settles "leak or allocator?".
 */
import { existsSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { usageError } from "../base/errors.js";

/** The allocators memleak can preload: the file Debian installs, and the package that installs it. */
export const ALLOCATORS = {
  jemalloc: { files: ["libjemalloc.so.2"], package: "libjemalloc2" },
  mimalloc: { files: ["libmimalloc.so.2", "libmimalloc.so.2.0"], package: "libmimalloc2.0" },
} as const;
export type AllocatorName = keyof typeof ALLOCATORS;

/** Seconds between the agent's malloc_trim(0) calls under `trim` (and `trim=SECONDS`). */
export const TRIM_EVERY_DEFAULT = 5;

/** A setting as typed, checked for form only (parseSetting): what --try's parser gives. */
export type SettingRequest =
  | { kind: "env"; text: string; name: string; value: string }
  | { kind: "allocator"; text: string; allocator: AllocatorName }
  | { kind: "trim"; text: string; every: number };

/** A setting ready to run: an allocator's library found on this machine. */
export type TrialSetting =
  | { kind: "baseline"; text: "as it is" }
  | Exclude<SettingRequest, { kind: "allocator" }>
  | { kind: "allocator"; text: string; allocator: AllocatorName; library: string };

export const BASELINE: TrialSetting = { kind: "baseline", text: "as it is" };

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const FORMS = "jemalloc, mimalloc, trim (or trim=SECONDS), or NAME=value (an environment variable)";

/** --try's text → the setting it asks for, or a usage error that lists the forms. Pure. */
export function parseSetting(text: string, flag = "--try"): SettingRequest {
  const t = text.trim();
  if (t === "jemalloc" || t === "mimalloc") return { kind: "allocator", text: t, allocator: t };
  const trim = /^trim(?:=(.*))?$/.exec(t);
  if (trim) {
    const every = trim[1] === undefined ? TRIM_EVERY_DEFAULT : Number(trim[1].replace(/s$/, ""));
    if (!Number.isFinite(every) || every < 0.5 || every > 3600)
      throw usageError(`${flag}: "${text}": trim's period is seconds between 0.5 and 3600 (trim=5)`);
    return { kind: "trim", text: trim[1] === undefined ? "trim" : `trim=${every}`, every };
  }
  const eq = t.indexOf("=");
  if (eq > 0) {
    const name = t.slice(0, eq);
    if (!ENV_NAME.test(name)) throw usageError(`${flag}: "${name}" is not an environment variable's name`);
    if (name === "LD_PRELOAD")
      throw usageError(`${flag}: "${text}": memleak sets LD_PRELOAD for jemalloc and mimalloc: try those by name`);
    if (name.startsWith("MEMLEAK_")) throw usageError(`${flag}: "${text}": MEMLEAK_* variables are memleak's own`);
    return { kind: "env", text: t, name, value: t.slice(eq + 1) };
  }
  throw usageError(`${flag}: "${text}" is not a setting memleak can try: ${FORMS}`);
}

/** Where Debian and most distributions put shared libraries, this machine's multiarch directory first. */
function libraryDirs(arch: string): string[] {
  const triplet = arch === "arm64" ? "aarch64-linux-gnu" : arch === "x64" ? "x86_64-linux-gnu" : undefined;
  const multi = triplet ? [`/usr/lib/${triplet}`, `/lib/${triplet}`] : [];
  return [...multi, "/usr/lib64", "/usr/lib", "/usr/local/lib"];
}

/** The allocator's library on this machine (its real path), or undefined. `root`: a captured tree in tests. */
export function findAllocator(name: AllocatorName, root = "/", arch: string = process.arch): string | undefined {
  for (const dir of libraryDirs(arch))
    for (const file of ALLOCATORS[name].files) {
      const path = join(root, dir, file);
      if (existsSync(path)) return root === "/" ? realpathSync(path) : join(dir, file);
    }
  return undefined;
}

/**
 * Each request made runnable, before anything starts: an allocator missing is refused in one line that names the
 * package; the same setting twice is refused (two trials of one setting would be read as two settings).
 */
export function resolveSettings(requests: readonly SettingRequest[], root = "/"): TrialSetting[] {
  const seen = new Set<string>();
  return requests.map((r) => {
    const key = r.kind === "env" ? `env:${r.name}` : r.kind;
    if (seen.has(key))
      throw usageError(`--try: ${r.kind === "env" ? r.name : r.kind} is tried twice (the second time as ${r.text})`);
    seen.add(key);
    if (r.kind !== "allocator") return r;
    const library = findAllocator(r.allocator, root);
    if (!library)
      throw usageError(
        `--try: ${r.text} needs ${ALLOCATORS[r.allocator].files[0]}, which is not installed here (Debian: apt-get install ${ALLOCATORS[r.allocator].package})`,
      );
    return { ...r, library };
  });
}

/** The environment the command runs with under the setting (the agent's own variables are added by run). */
export function settingEnv(s: TrialSetting, env: NodeJS.ProcessEnv): Record<string, string> {
  switch (s.kind) {
    case "baseline":
      return {};
    case "env":
      return { [s.name]: s.value };
    case "trim":
      return { MEMLEAK_TRIM_EVERY: String(s.every) };
    case "allocator":
      // Before the user's own preloads: the allocator must bind malloc first.
      return { LD_PRELOAD: env.LD_PRELOAD ? `${s.library}:${env.LD_PRELOAD}` : s.library };
  }
}

/** How a user makes the setting theirs, once it helps: the variable, the preload, the call in the program. */
export function settingUse(s: TrialSetting): string {
  switch (s.kind) {
    case "baseline":
      return "";
    case "env":
      return `${s.name}=${s.value} in the program's environment`;
    case "trim":
      return `ctypes.CDLL("libc.so.6").malloc_trim(0) every ${s.every} s in the program (a thread, or after each burst)`;
    case "allocator":
      return `LD_PRELOAD=${s.library} in the program's environment`;
  }
}

/** How the setting is made, for the trial's start line: "LD_PRELOAD=/usr/lib/…/libjemalloc.so.2". */
export function settingHow(s: TrialSetting): string {
  switch (s.kind) {
    case "baseline":
      return "the command as it is";
    case "env":
      return `${s.name}=${s.value}`;
    case "trim":
      return `the agent calls malloc_trim(0) every ${s.every} s`;
    case "allocator":
      return `LD_PRELOAD=${s.library}`;
  }
}
