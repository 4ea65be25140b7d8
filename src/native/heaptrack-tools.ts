/**
 * Finds heaptrack's parts the way its own launcher script (/usr/bin/heaptrack, 1.4) does: the preload library and
 * the interpreter sit at ../lib/heaptrack[/libexec] from the script's real directory, heaptrack_print beside it.
 * memleak starts the command itself (its cgroup, its agent, its signals), so it uses the parts, not the script.
 */
import { existsSync, realpathSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { resolveCommand } from "../system/launch.js";
import { usageError } from "../base/errors.js";

export interface HeaptrackTools {
  /** "heaptrack 1.4.0" */
  version: string;
  preload: string;
  interpret: string;
  print: string;
}

export const INSTALL_HINT =
  "install it with `sudo apt-get install heaptrack` (Debian, Ubuntu) or `sudo dnf install heaptrack` (Fedora)";

export function locateHeaptrack(env: NodeJS.ProcessEnv): HeaptrackTools {
  let script: string;
  try {
    script = realpathSync(resolveCommand("heaptrack", env));
  } catch {
    throw usageError(`--trace-native needs heaptrack, which is not on PATH: ${INSTALL_HINT}`);
  }
  const bin = dirname(script);
  const parts = {
    preload: join(bin, "../lib/heaptrack/libheaptrack_preload.so"),
    interpret: join(bin, "../lib/heaptrack/libexec/heaptrack_interpret"),
    print: join(bin, "heaptrack_print"),
  };
  for (const [what, path] of Object.entries(parts)) {
    if (!existsSync(path))
      throw usageError(`--trace-native: heaptrack at ${script} is incomplete (no ${what}: ${path}): ${INSTALL_HINT}`);
  }
  const v = spawnSync(script, ["--version"], { encoding: "utf8", timeout: 10_000 });
  const version = /heaptrack \S+/.exec(v.stdout ?? "")?.[0] ?? "heaptrack";
  return { version, ...parts };
}
