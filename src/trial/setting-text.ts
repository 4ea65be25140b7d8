/**
 * --try's text and what it asks for, checked for form only: what the CLI's parser reads (cli/option-values.ts) before
 * anything is looked for on the machine (settings.ts finds the allocator's library). No file is read here: --help
 * loads it.
 */
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
