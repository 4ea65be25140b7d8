/**
 * Advice phrases: the sections of src/advice/<kind>.md (advice/load.ts), their placeholders filled with the facts
 * in words.
 */
import { advice } from "../../advice/load.js";
import { formatBytes } from "../../units.js";
import { groupName, type Wordings } from "./words.js";

export const ADVICE_WORDS: Wordings<"advice.insufficient-data" | "advice.cow-tree"> = {
  "advice.insufficient-data": (f) =>
    advice("insufficient-data", "any", { reason: "reason" in f ? f.reason : `PID ${f.backlogPids} holds garbage cycles waiting for a full collection` }),
  "advice.cow-tree": (f) => advice("cow", "tree", { subject: groupName(f.subject), growth: formatBytes(f.growth), copiers: f.copiers, copied: formatBytes(f.copied) }),
};
