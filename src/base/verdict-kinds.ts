/** The verdicts memleak gives (the contract in docs/formats.md): what --fail-on names, what the JSON's verdict.kind holds. */
export const VERDICT_KINDS = [
  "leak",
  "fragmentation",
  "cgroup-artefact",
  "cow",
  "plateau",
  "stable",
  "insufficient-data",
] as const;
export type VerdictKind = (typeof VERDICT_KINDS)[number];
