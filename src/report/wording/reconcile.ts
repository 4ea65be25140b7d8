/** The sentences of findings that explain each other (analysis/classify.ts reconcile, markOutside). */
import { formatBytes } from "../../base/units.js";
import { becauseOf, formatRate, pidsThatGrow } from "./numbers.js";
import { groupName, pidList, processCount, type Wordings } from "./words.js";

const signed = (bytes: number) => `${bytes >= 0 ? "+" : ""}${formatBytes(bytes)}`;

/** The share of a shared cgroup's growth from which the watched tree's part is said as one ("mostly not because"). */
const TREE_PART_SAID = 0.1;

/** A share of a shared cgroup's growth that neither the watched tree nor the outsiders' anon explains, said as such. */
const UNEXPLAINED_SHARE = 0.25;

export const RECONCILE_WORDS: Wordings<
  | "reconcile.attributed"
  | "reconcile.backlog-waiting"
  | "reconcile.backlog-released"
  | "reconcile.settling"
  | "reconcile.pinning-undecided"
  | "reconcile.kept"
  | "reconcile.importing"
  | "reconcile.starting"
  | "reconcile.stable"
  | "reconcile.cow"
  | "reconcile.outside"
  | "cgroup.others"
  | "verdict.no-samples"
> = {
  "reconcile.attributed": (f, say) =>
    `${say(f.of)} — ${becauseOf(f.part)} ${pidsThatGrow(f.pids)}${f.part ? ` (${formatBytes(f.part.grown)} of the ${formatBytes(f.part.growth)})` : ""}${f.as ? ` (${f.pids.includes(",") ? "whose own findings are" : "whose own finding is"} ${f.as})` : ""}`,
  "reconcile.backlog-waiting": (f) =>
    `the ${groupName(f.subject)} grows by ${formatBytes(f.growth)} as PID ${f.pids} holds garbage cycles waiting for a full collection: the next one decides`,
  "reconcile.backlog-released": (f) =>
    `the ${groupName(f.subject)} rose by ${formatBytes(f.growth)} and came back down when PID ${f.pids} ran a full garbage collection`,
  "reconcile.settling": (f) =>
    `the ${groupName(f.subject)} grows by ${formatBytes(f.growth)} as the allocators of PID ${f.pids} fill up to its working size (its live heap does not grow): waiting for it to level off`,
  "reconcile.pinning-undecided": (f) =>
    `the ${groupName(f.subject)} grows by ${formatBytes(f.growth)} as PID ${f.pids} does, whose census has not yet told a leak that pins freed memory from the allocator keeping it: its next walks decide`,
  "reconcile.kept": (f) =>
    `the ${groupName(f.subject)} grew by ${formatBytes(f.growth)} as malloc in PID ${f.pids} keeps memory the program freed, while its live heap rises under it, not yet by the growth floor: a longer run decides`,
  "reconcile.importing": (f) =>
    `the ${groupName(f.subject)} grows by ${formatBytes(f.growth)} as PID ${f.pids} starts up, still loading its modules and libraries: judged once its imports are done`,
  "reconcile.starting": (f) =>
    `the ${groupName(f.subject)} grows by ${formatBytes(f.growth)} as ${f.pids.includes(",") ? "PIDs" : "PID"} ${f.pids} ${f.pids.includes(",") ? "start" : "starts"} up, seen too briefly to judge yet: ${f.pids.includes(",") ? "their" : "its"} next readings decide`,
  "reconcile.stable": (f) =>
    `the ${groupName(f.subject)} is stable: it rose by ${formatBytes(f.growth)}, ${formatBytes(f.grown)} of it in ${f.pids.includes(",") ? "PIDs" : "PID"} ${f.pids} (stable) and ${formatBytes(Math.max(0, f.growth - f.grown))} besides, each under the ${formatBytes(f.floor)} worth a verdict`,
  "reconcile.cow": (f) =>
    f.besideLeak
      ? `${processCount(f.copiers)} ${f.copiers === 1 ? "copies" : "copy"} pages shared after fork (copy-on-write, +${formatBytes(f.copied)} private) as the ${groupName(f.subject)} grows by ${formatBytes(f.growth)}: that part is bounded, the leak beside it is not`
      : `the ${groupName(f.subject)} grows by ${formatBytes(f.growth)} because ${processCount(f.copiers)} ${f.copiers === 1 ? "copies" : "copy"} pages shared after fork (copy-on-write, +${formatBytes(f.copied)} private): bounded, not a leak`,
  "reconcile.outside": (f, say) => {
    const rate = f.rate ? `, at ${formatRate(f.rate)}` : "";
    const others = `${processCount(f.others.length, "other ")}`;
    const theirs =
      f.othersAnonGrowth !== undefined
        ? `the ${others} in it (PID ${pidList(f.others)}) ${f.others.length === 1 ? "accounts" : "account"} for ${signed(f.othersAnonGrowth)} of anonymous memory`
        : `${others} ${f.others.length === 1 ? "shares" : "share"} it (PID ${pidList(f.others)}), whose memory memleak could not read`;
    const artefact = f.artefact ? `; ${say(f.artefact)}` : "";
    // Without this, "the 6 other processes … account for +44 KiB" stood alone under a 287 MiB growth (a watch in a
    // container whose cgroup also ran a build): the outsiders counted are those there at both ends of the watch, read
    // at those two ends (the cgroup and the tree over the window after warm-up), so the clause says where the rest
    // can be, not where it is.
    const rest = f.growth - Math.max(0, f.tree) - Math.max(0, f.othersAnonGrowth ?? 0);
    const unexplained =
      !f.artefact && f.othersAnonGrowth !== undefined && rest > UNEXPLAINED_SHARE * f.growth
        ? `; ${formatBytes(rest)} more is not accounted for by either (the other processes' anon is read at the watch's two ends): processes that started or ended during the watch, or the kernel's memory charged to the cgroup (page cache, slab), can hold it`
        : "";
    // A tree that added a tenth or more (under a third, or markOutside would not be here) is not nothing: "not
    // because of" it alone denied the +151 MiB of a leak beside others' 359 MiB (a helper's trial).
    const notBecause =
      f.tree >= TREE_PART_SAID * f.growth
        ? "mostly not because of the watched tree"
        : "not because of the watched tree";
    return `the cgroup grows by ${formatBytes(f.growth)}${rate}, but ${notBecause} (${signed(f.tree)}): ${theirs}${artefact}${unexplained}`;
  },
  "cgroup.others": (f) =>
    `the cgroup also holds ${processCount(f.others.length)} outside the watched tree (PID ${pidList(f.others)}): its numbers include theirs`,
  "verdict.no-samples": () => "no samples: the process exited before memleak could read it",
};
