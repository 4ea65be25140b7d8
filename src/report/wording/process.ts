/**
 * A process's sentences (analysis/signals/process.ts). Each starts with the process, "PID n (command)", then says
 * what it does; the short form (the live view, whose line already names the process) says only what it does.
 */
import { formatBytes } from "../../base/units.js";
import { formatRate } from "./numbers.js";
import { inLayer } from "./layer.js";
import type { LeakFacts, PhraseFacts, ProcessFacts } from "../../analysis/phrases.js";
import { gcWaitingReason, keptPart, keptReason, settlingReason } from "./notes.js";
import type { Say, Wordings } from "./words.js";

type ProcessPhrase =
  | "process.insufficient"
  | "process.retention"
  | "process.leak"
  | "process.hidden-leak"
  | "process.cow"
  | "process.plateau"
  | "process.stable";

/** What the process does, and what joins it to the process's name (": " or " "). */
type Predicate<N extends ProcessPhrase> = (facts: PhraseFacts[N]) => [joint: string, says: string];

/** The process's name, then what it does; in the short form, only what it does. */
const withProcess =
  <N extends ProcessPhrase>(predicate: Predicate<N>) =>
  (facts: PhraseFacts[N], say: Say): string => {
    const [joint, says] = predicate(facts);
    const { pid, command } = facts as ProcessFacts;
    return say.short ? says : `PID ${pid} (${command})${joint}${says}`;
  };

function leak(f: LeakFacts): string {
  const { metric, start, end, rate, peak, seconds } = f;
  const grows = f.swings
    ? `grows under its swings: the lows of ${metric} rise ${formatBytes(start)} → ${formatBytes(end)} at ${formatRate(rate)} while it swings up to ${formatBytes(peak)}`
    : f.early
      ? `grows: ${metric} ${formatBytes(start)} → ${formatBytes(end)} at ${formatRate(rate)}, still growing at the end of ${seconds.toFixed(0)} s (called early)`
      : `grows steadily: ${metric} ${formatBytes(start)} → ${formatBytes(end)} at ${formatRate(rate)}, no sign of levelling off`;
  const layered = f.layer ? `${grows} — ${inLayer(f.layer)}` : grows;
  return f.holder ? `${layered}, held by ${f.holder}` : layered;
}

/** From malloc's numbers when the agent read them, else from what the trim probe gave back. */
const retention: Predicate<"process.retention"> = ({ anon, live, mallocInUse, mallocFree, trimmed }) => [
  " ",
  Number.isFinite(mallocInUse)
    ? `holds ${formatBytes(anon)} of anonymous memory, but only ${formatBytes(live)} is live (malloc: ${formatBytes(mallocInUse)} in use, ${formatBytes(mallocFree)} free but kept): the allocator is retaining freed memory`
    : `holds ${formatBytes(anon)} of anonymous memory, and malloc_trim(0) at its end gave ${formatBytes(trimmed)} back: the allocator was retaining freed memory`,
];

const PREDICATES: { [N in ProcessPhrase]: Predicate<N> } = {
  "process.insufficient": (f) => [
    ": ",
    `not enough data (${f.waiting ? gcWaitingReason(f.waiting) : f.settling ? settlingReason(f.settling) : f.kept ? keptReason(f.kept) : f.reason})`,
  ],
  "process.retention": retention,
  "process.leak": (f) => [" ", leak(f)],
  "process.hidden-leak": (f) => {
    const live = "its live heap (malloc in use + Python objects)";
    const course = `steadily ${formatBytes(f.start)} → ${formatBytes(f.end)} at ${formatRate(f.rate)} over ${f.seconds.toFixed(0)} s${f.layer ? ` — ${inLayer(f.layer)}` : ""}`;
    return [
      " ",
      f.kept
        ? `leaks in ${live}, whose lows rise ${course}; ${keptPart(f.kept)}`
        : `leaks inside memory malloc already holds: ${live} grows ${course}, while resident anon memory stays near ${formatBytes(f.anon)}: the leak is filling the ${formatBytes(f.free)} malloc keeps free, and resident memory will grow again once that is used up`,
    ];
  },
  // The root shares its pages with the children it forked, a child with its parent.
  "process.cow": (f) => [
    ": ",
    f.copied === undefined
      ? `private memory (USS) ${formatBytes(f.ussStart)} → ${formatBytes(f.ussEnd)} while RSS stays flat: copy-on-write of pages shared with ${f.isRoot ? "its forked children" : "its parent"}, bounded by ${formatBytes(f.bound)}`
      : `besides its own growth, it copies pages shared with ${f.isRoot ? "its forked children" : "its parent"}: ${formatBytes(f.copied)} of its private memory's rise (USS ${formatBytes(f.ussStart)} → ${formatBytes(f.ussEnd)}) is copy-on-write, as its shared memory fell by ${formatBytes(f.sharedDrop)}, bounded by ${formatBytes(f.bound)}`,
  ],
  "process.plateau": (f) => [
    " ",
    `${f.step ? `one step of ${formatBytes(f.growth)}` : `grew by ${formatBytes(f.growth)}`}, then levelled off at ${formatBytes(f.end)}`,
  ],
  "process.stable": (f) => [" ", `is stable: ${f.metric} ${formatBytes(f.start)} → ${formatBytes(f.end)}`],
};

export const PROCESS_WORDS: Wordings<ProcessPhrase> = {
  "process.insufficient": withProcess(PREDICATES["process.insufficient"]),
  "process.retention": withProcess(PREDICATES["process.retention"]),
  "process.leak": withProcess(PREDICATES["process.leak"]),
  "process.hidden-leak": withProcess(PREDICATES["process.hidden-leak"]),
  "process.cow": withProcess(PREDICATES["process.cow"]),
  "process.plateau": withProcess(PREDICATES["process.plateau"]),
  "process.stable": withProcess(PREDICATES["process.stable"]),
};
