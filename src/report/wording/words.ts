/** The shape of a wording module: one function per phrase, from its facts to its words. */
import type { Phrase, PhraseFacts, PhraseName } from "../../analysis/phrases.js";

/**
 * Words a phrase (one nested in another's facts, as "the cgroup grows…; <the artefact's own sentence>"), in full or
 * in the short form of the live view's "so far" line, whose own words already name the process.
 */
export interface Say {
  (p: Phrase): string;
  readonly short: boolean;
}

export type Wordings<K extends PhraseName> = { [N in K]: (facts: PhraseFacts[N], say: Say) => string };

/** "1 process", "3 other processes". */
export const processCount = (n: number, qualifier = "") => `${n} ${qualifier}process${n === 1 ? "" : "es"}`;

/** The first five pids, and an ellipsis for the rest. */
export const pidList = (pids: number[]) => `${pids.slice(0, 5).join(", ")}${pids.length > 5 ? ", …" : ""}`;

/** How a tree's or cgroup's sentence names it. */
export const groupName = (subject: "tree" | "cgroup") => (subject === "tree" ? "process tree" : "cgroup");
