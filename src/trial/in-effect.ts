/**
 * Whether a tried setting was in effect in the command it ran, from what the kernel and the agent say — never
 * assumed from what memleak asked for: a static binary ignores LD_PRELOAD, a launcher can rebuild the environment,
 * and an agent that never loaded calls no malloc_trim. A trial whose setting was not seen is said so, and never
 * recommended.
 */
import { basename } from "node:path";
import type { HostFs } from "../system/host-fs.js";
import { processTree } from "../system/process-tree.js";
import type { SeriesSet } from "../series/series.js";
import type { TrialSetting } from "./settings.js";

export type InEffect = { seen: true; how: string } | { seen: false; why: string };

/** A line of /proc/PID/maps naming the library (by its path, or its file name for a link elsewhere). Pure. */
export function mapsHasLibrary(maps: string, library: string): boolean {
  const name = basename(library);
  for (const line of maps.split("\n")) {
    const path = line.slice(line.indexOf("/"));
    if (line.includes("/") && (path === library || basename(path) === name)) return true;
  }
  return false;
}

/** /proc/PID/environ (NUL-separated) holds NAME=value exactly. Pure. */
export function environHas(environ: string, name: string, value: string): boolean {
  return environ.split("\0").includes(`${name}=${value}`);
}

/** What to look for in one process's files: the allocator's mapping or the variable; trim is read from the agent. */
function seenIn(fs: HostFs, pid: number, s: TrialSetting): string | undefined {
  if (s.kind === "allocator") {
    const maps = fs.readOptional(`/proc/${pid}/maps`);
    return maps !== undefined && mapsHasLibrary(maps, s.library)
      ? `${basename(s.library)} mapped in PID ${pid}`
      : undefined;
  }
  if (s.kind === "env") {
    const environ = fs.readOptional(`/proc/${pid}/environ`);
    return environ !== undefined && environHas(environ, s.name, s.value)
      ? `${s.name}=${s.value} in PID ${pid}'s environment`
      : undefined;
  }
  return undefined;
}

/** The agent's count of malloc_trim calls, most in any one process (the agent sends `malloc.trims` under trim). */
export function trimsSeen(set: SeriesSet): InEffect {
  let best: { pid: number; trims: number } | undefined;
  for (const p of set.processes.values()) {
    const trims = p.agent["malloc.trims"]?.max();
    if (trims !== undefined && trims > 0 && (!best || trims > best.trims)) best = { pid: p.pid, trims };
  }
  return best
    ? { seen: true, how: `${best.trims} malloc_trim call${best.trims === 1 ? "" : "s"} in PID ${best.pid}` }
    : {
        seen: false,
        why: "no agent reported a malloc_trim call (the agent must load: not with --no-agent, nor under jemalloc or mimalloc)",
      };
}

/**
 * Looks at the command's processes every 200 ms from its start until the setting is seen in one of them (at once,
 * nearly always: the loader maps a preload and the kernel copies the environment at exec), then stops looking.
 */
export class EffectWatch {
  private seen: string | undefined;
  private checks = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly fs: HostFs,
    private readonly setting: TrialSetting,
  ) {}

  start(rootPid: number): void {
    if (this.setting.kind !== "allocator" && this.setting.kind !== "env") return;
    const look = () => {
      this.checks++;
      for (const { pid } of processTree(this.fs, rootPid)) {
        this.seen = seenIn(this.fs, pid, this.setting);
        if (this.seen) return this.stop();
      }
    };
    look();
    if (!this.seen) {
      this.timer = setInterval(look, 200);
      this.timer.unref();
    }
  }

  private stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The verdict on the setting, once the command has exited; `set`: its readings (the agent's trims). */
  finish(set: SeriesSet): InEffect | undefined {
    this.stop();
    const s = this.setting;
    if (s.kind === "baseline") return undefined;
    if (s.kind === "trim") return trimsSeen(set);
    if (this.seen) return { seen: true, how: this.seen };
    const where =
      s.kind === "allocator"
        ? `${basename(s.library)} in no process's maps`
        : `${s.name}=${s.value} in no process's environment`;
    return { seen: false, why: `${where} (${this.checks} look${this.checks === 1 ? "" : "s"} while it ran)` };
  }
}
