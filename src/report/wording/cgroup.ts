/** The memory cgroup's sentences (analysis/signals/cgroup.ts). */
import { formatBytes } from "../../base/units.js";
import { formatRate } from "./numbers.js";
import type { ArtefactFacts, CgroupUsageFacts } from "../../analysis/phrases.js";
import type { Wordings } from "./words.js";

// The usage shown is the one judged: say so, since memory.current reads higher by the agents' memory.
const judged = (u: CgroupUsageFacts) => (u.agentsTakenOut ? " (memleak's agents taken out)" : "");

const usage = (u: CgroupUsageFacts) => `usage ${formatBytes(u.start)} → ${formatBytes(u.end)}${judged(u)}`;

function artefact(f: ArtefactFacts): string {
  const where =
    f.variant === "kernel"
      ? `kernel memory (+${formatBytes(f.kernel)})`
      : f.variant === "mapped-file"
        ? `page cache of files its processes map (+${formatBytes(f.cache)}${f.files ? `: ${f.files}` : ""}), which the kernel can drop`
        : `page cache (+${formatBytes(f.cache)})`;
  const measured = f.processesMetric ? `Σ ${f.processesMetric}` : "memory";
  const theirs =
    f.variant === "mapped-file"
      ? `its processes' ${measured} only by ${formatBytes(f.processes)}`
      : `its processes did not (${formatBytes(f.processes)})`;
  return `the cgroup grew by ${formatBytes(f.usage)} but ${theirs}: the growth is ${where}; working set ${formatBytes(f.wsStart)} → ${formatBytes(f.wsEnd)}`;
}

export const CGROUP_WORDS: Wordings<
  | "cgroup.insufficient"
  | "cgroup.stable"
  | "cgroup.leak"
  | "cgroup.plateau"
  | "cgroup.shmem"
  | "cgroup.artefact"
  | "cgroup.agents"
> = {
  "cgroup.insufficient": (f) => `cgroup ${f.path}: not enough data (${f.reason})`,
  "cgroup.stable": (f) => `the cgroup is stable: ${usage(f)}`,
  "cgroup.leak": (f) => `the cgroup grows at ${formatRate(f.rate)}: ${usage(f)}, mostly anonymous memory`,
  "cgroup.plateau": (f) =>
    `the cgroup grew by ${formatBytes(f.growth)}, then levelled off at ${formatBytes(f.end)}${judged(f)}`,
  "cgroup.shmem": (f) =>
    `the cgroup's shared memory (tmpfs, /dev/shm) grows: +${formatBytes(f.shmem)}; it is not reclaimable cache`,
  "cgroup.artefact": artefact,
  "cgroup.agents": (f) =>
    `memleak's agents added ${formatBytes(f.bytes)} to ${f.processes === 1 ? "the process" : `${f.processes} processes`} ${f.looks === f.processes ? "whose copying it looked at" : f.looks ? "it was injected into or whose copying it looked at" : "it was injected into"}: judged without it`,
};
