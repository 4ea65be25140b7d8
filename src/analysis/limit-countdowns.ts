/**
 * Which limit each leaking subject grows towards, and when it gets there (time-to-limit.ts), attached to its leak
 * finding. Worked out per subject from the series, after the findings are judged: it reads a finding's kind and
 * subject only, so how a subject carries its findings does not matter here.
 *
 *   the cgroup   anon + shmem + unreclaimable kernel, towards its limit (v1 memory.limit_in_bytes; v2 memory.max,
 *                and memory.high where set), or the machine's available memory, whichever is nearer
 *   a process,   when the cgroup has a limit: the cgroup's countdown (the limit bounds the cgroup, not the process,
 *   the tree     and the OOM killer acts when the cgroup reaches it); otherwise its own RssAnon (the tree's Σ) towards
 *                the machine's available memory
 */
import { processKey } from "../sampling/process-key.js";
import type { JudgedFinding } from "./judgement.js";
import type { SeriesSet } from "../series/series.js";
import { projectToLimit, type TimeToLimitFacts } from "./time-to-limit.js";
import type { MemoryLimit } from "./types.js";

/** The cgroup's limits as read, nearest first is not needed here: projectToLimit sorts them. */
export function cgroupLimits(set: Pick<SeriesSet, "cgroupLimit" | "cgroupHigh">, version: 1 | 2): MemoryLimit[] {
  const out: MemoryLimit[] = [];
  if (set.cgroupLimit != null)
    out.push({
      kind: "container",
      source: version === 2 ? "memory.max" : "memory.limit_in_bytes",
      bytes: set.cgroupLimit,
    });
  if (version === 2 && set.cgroupHigh != null)
    out.push({ kind: "container", source: "memory.high", bytes: set.cgroupHigh });
  return out;
}

/** What the cgroup's counted series holds, in words: shmem and the kernel part only where they were read. */
function cgroupCounted(set: SeriesSet): string {
  return ["anon", set.cgroup["cgroup-shmem"] && "shmem", set.cgroup["cgroup-kernel"] && "kernel"]
    .filter(Boolean)
    .join(" + ");
}

export function cgroupCountdown(set: SeriesSet, version: 1 | 2, from: number): TimeToLimitFacts | undefined {
  const col = set.cgroup["cgroup-unreclaimable"];
  if (!col) return undefined;
  return projectToLimit({
    xs: col.xs,
    ys: col.ys,
    from,
    metric: "cgroup-unreclaimable",
    counted: cgroupCounted(set),
    limits: cgroupLimits(set, version),
    machineAvailable: set.machineAvailable,
    t0: set.t0,
  });
}

function ownCountdown(set: SeriesSet, f: JudgedFinding, from: number): TimeToLimitFacts | undefined {
  const s = f.subject;
  const col =
    s.type === "process"
      ? set.processes.get(processKey(s))?.metrics.anon
      : s.type === "tree"
        ? set.tree.anon
        : undefined;
  if (!col) return undefined;
  return projectToLimit({
    xs: col.xs,
    ys: col.ys,
    from,
    metric: "anon",
    counted: "anon",
    limits: [],
    machineAvailable: set.machineAvailable,
    t0: set.t0,
  });
}

/**
 * The findings, each leak with its countdown where one can be worked out. `cgroupVersion` is the watched cgroup's,
 * when there is one. Findings of other kinds are returned as they are: a plateau or bounded growth has no end to
 * count down to, and page cache (cgroup-artefact) is reclaimed before any OOM.
 */
export function withTimeToLimit(
  findings: JudgedFinding[],
  set: SeriesSet,
  from: number,
  cgroupVersion: 1 | 2 | undefined,
): JudgedFinding[] {
  let cgroup: TimeToLimitFacts | undefined | null = null;
  const ofCgroup = () =>
    cgroup === null
      ? (cgroup = cgroupVersion === undefined ? undefined : cgroupCountdown(set, cgroupVersion, from))
      : cgroup;
  const limited = cgroupVersion !== undefined && cgroupLimits(set, cgroupVersion).length > 0;
  return findings.map((f) => {
    if (f.kind !== "leak") return f;
    const t = f.subject.type === "cgroup" || limited ? ofCgroup() : ownCountdown(set, f, from);
    return t ? { ...f, timeToLimit: t } : f;
  });
}
