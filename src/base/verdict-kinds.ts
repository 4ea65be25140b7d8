/** The verdicts memleak gives (DESIGN.md's contract): what --fail-on names, what the JSON's verdict.kind holds. */
export const VERDICT_KINDS = ["leak", "fragmentation", "cgroup-artefact", "cow", "plateau", "stable", "insufficient-data"] as const;
export type VerdictKind = (typeof VERDICT_KINDS)[number];
