/** The process tree's sentences (analysis/signals/tree.ts). */
import { formatBytes } from "../../base/units.js";
import { formatRate } from "./numbers.js";
import type { Wordings } from "./words.js";

export const TREE_WORDS: Wordings<"tree.insufficient" | "tree.leak" | "tree.plateau" | "tree.stable"> = {
  "tree.insufficient": (f) => `process tree: not enough data (${f.reason})`,
  "tree.leak": (f) =>
    `the process tree grows: Σ ${f.metric} ${formatBytes(f.start)} → ${formatBytes(f.end)} at ${formatRate(f.rate)}`,
  "tree.plateau": (f) => `the process tree grew, then levelled off at Σ ${f.metric} ${formatBytes(f.end)}`,
  "tree.stable": (f) => `the process tree is stable: Σ ${f.metric} ${formatBytes(f.start)} → ${formatBytes(f.end)}`,
};
