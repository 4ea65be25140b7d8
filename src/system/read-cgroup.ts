/**
 * One reading of a memory cgroup: usage, working set, limit (and v2 memory.high), peak, OOM kills, kernel memory and the memory.stat
 * breakdown. Files a kernel does not have (memory.peak < 5.19, kmem on v1 kernels built without it) stay absent.
 */
import { parseBytesFile, parseLimitFile, parseOomFile } from "../probes/cgroup-files.js";
import { parseMemoryStat } from "../probes/memory-stat.js";
import type { CgroupSample } from "./sample.js";
import type { CgroupLocation } from "./cgroup-locate.js";
import type { HostFs } from "./host-fs.js";

const FILES = {
  1: {
    usage: "memory.usage_in_bytes",
    limit: "memory.limit_in_bytes",
    peak: "memory.max_usage_in_bytes",
    oom: "memory.oom_control",
    kernel: "memory.kmem.usage_in_bytes",
  },
  2: { usage: "memory.current", limit: "memory.max", peak: "memory.peak", oom: "memory.events", kernel: undefined },
} as const;

/** usage − inactive_file, floored at 0 (cadvisor handler.go, docker/cli stats_helpers.go). */
export function workingSet(usage: number | undefined, inactiveFile: number | undefined): number | undefined {
  if (usage === undefined || inactiveFile === undefined) return undefined;
  return Math.max(0, usage - inactiveFile);
}

export function readCgroup(fs: HostFs, loc: CgroupLocation): CgroupSample {
  const names = FILES[loc.version];
  const file = (name: string) => fs.readOptional(`${loc.dir}/${name}`);
  const bytes = (name: string | undefined) => {
    if (name === undefined) return undefined;
    const text = file(name);
    if (text === undefined) return undefined;
    const r = parseBytesFile(text, name);
    return r.ok ? r.value : undefined;
  };
  const out: CgroupSample = {};
  const usage = bytes(names.usage);
  if (usage !== undefined) out.usage = usage;
  const limitText = file(names.limit);
  if (limitText !== undefined) {
    const r = parseLimitFile(limitText, names.limit);
    if (r.ok) out.limit = r.value;
  }
  const highText = loc.version === 2 ? file("memory.high") : undefined;
  if (highText !== undefined) {
    const r = parseLimitFile(highText, "memory.high");
    if (r.ok) out.high = r.value;
  }
  const peak = bytes(names.peak);
  if (peak !== undefined) out.peak = peak;
  const oomText = file(names.oom);
  if (oomText !== undefined) {
    const r = parseOomFile(oomText, loc.version);
    if (r.ok && r.value.oomKill !== undefined) out.oomKills = r.value.oomKill;
  }
  const statText = file("memory.stat");
  if (statText !== undefined) {
    const r = parseMemoryStat(statText, loc.version);
    if (r.ok) {
      const b = r.value.breakdown;
      out.stat = Object.fromEntries(Object.entries(b).filter(([, v]) => v !== undefined));
      const ws = workingSet(usage, b.inactiveFile);
      if (ws !== undefined) out.workingSet = ws;
      if (loc.version === 2 && b.kernel !== undefined) out.kernel = b.kernel;
    }
  }
  const kmem = bytes(names.kernel);
  if (kmem !== undefined) out.kernel = kmem;
  return out;
}
