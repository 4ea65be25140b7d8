/**
 * What a process's finding cannot say when the agent did not see inside it (`watch` could not inject it, `run
 * --no-agent`, not CPython). From outside, memory the allocator keeps after it was freed and live memory look the
 * same: a big flat RSS can be a fragmented heap (not `stable` in the sense a user hopes), and RSS that ratchets up
 * can be retention (not a `leak`). Such a finding says so in its caveats, evidence and advice instead of being
 * confidently wrong — whenever the anonymous memory at stake is big enough for retention to matter.
 */
import { endLevel } from "../assess.js";
import type { Context } from "../context.js";
import type { JudgedFinding } from "../judgement.js";
import { phrase } from "../phrases.js";
import type { ProcessSeries } from "../../series/series.js";
import { HELD_MIN_BYTES } from "./fragmentation.js";

/**
 * A stable finding that could be hiding retention is at most this sure of itself: 0.5, a coin — from outside,
 * retention and live memory look the same, so "stable" is only half of what the user needs to know.
 */
export const UNSEEN_STABLE_CONFIDENCE = 0.5;

export function noteMissingAgent(f: JudgedFinding, ps: ProcessSeries, ctx: Context): void {
  if (Object.keys(ps.agent).length > 0) return;
  const refused = ctx.agentMissing?.get(ps.pid);
  // Under `run` the agent is loaded into every Python process at its start (sitecustomize): one that never reported is
  // a Python the agent cannot run in, not a session without agents (a Python 3.6 program was told to start "under
  // memleak run", which it was).
  const launched = ctx.launched === true && refused === undefined;
  const why =
    refused ??
    (launched
      ? "it never reported: the agent loads at start-up in CPython 3.8 or later, not under -S or -I"
      : ctx.agentSeen
        ? "it never reported"
        : "no agent in this session");
  // `watch` tried and was refused: the finding always says so, whatever it is.
  if (refused !== undefined) {
    f.evidence.agent = "missing";
    f.evidence.agentMissingReason = why;
  }
  if (f.kind !== "leak" && f.kind !== "stable" && f.kind !== "plateau") return;
  const level = endLevel(ps.metrics.anon ?? ps.metrics.rss);
  if (level === undefined) return;
  // Retention smaller than fragmentation's own floor could not change the verdict; a leak is always in question.
  if (f.kind !== "leak" && level < HELD_MIN_BYTES) return;
  f.caveats.push(phrase("agent.missing", { why, level }));
  f.evidence.agent = "missing";
  f.evidence.agentMissingReason = why;
  f.advice.push(phrase("advice.no-agent", { pid: ps.pid, why, level, ...(launched && { launched }) }));
  // And kept under it by calibration (analysis/calibration.ts): the corpus's stables had their agent.
  if (f.kind === "stable") {
    f.confidence = Math.min(f.confidence, UNSEEN_STABLE_CONFIDENCE);
    f.confidenceAtMost = UNSEEN_STABLE_CONFIDENCE;
  }
}
