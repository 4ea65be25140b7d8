/**
 * What `run --try` can change about how the command runs, and how each change is made: an environment assignment
 * (MALLOC_ARENA_MAX=2, MALLOC_TRIM_THRESHOLD_=0, MALLOC_CONF=…), another allocator preloaded (Debian's libjemalloc2 or
 * libmimalloc2.0, found by path), or `trim`: the agent calls malloc_trim(0) every few seconds. These are the remedies
 * the fragmentation advice names; trying them on the user's own program is what settles "leak or allocator?".
 */
import { existsSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { usageError } from "../base/errors.js";
import { ALLOCATORS, type AllocatorName, type SettingRequest } from "./setting-text.js";

export {
  ALLOCATORS,
  parseSetting,
  TRIM_EVERY_DEFAULT,
  type AllocatorName,
  type SettingRequest,
} from "./setting-text.js";

/** A setting ready to run: an allocator's library found on this machine. */
export type TrialSetting =
  | { kind: "baseline"; text: "as it is" }
  | Exclude<SettingRequest, { kind: "allocator" }>
  | { kind: "allocator"; text: string; allocator: AllocatorName; library: string };

export const BASELINE: TrialSetting = { kind: "baseline", text: "as it is" };

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
