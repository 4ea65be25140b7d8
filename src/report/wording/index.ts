/**
 * The wording of verdicts: a judgement's facts (analysis/phrases.ts) into the sentences of the VerdictDocument. Each
 * subject's sentences are in a file of their own; this one puts them together and renders findings.
 */
import type { Phrase, PhraseName } from "../../analysis/phrases.js";
import type { JudgedFinding, Judgement } from "../../analysis/judgement.js";
import type { Finding, VerdictDocument } from "../../analysis/types.js";
import { ADVICE_WORDS } from "./advice.js";
import { RECONCILE_WORDS } from "./reconcile.js";
import { TREE_WORDS } from "./tree.js";
import { CGROUP_WORDS } from "./cgroup.js";
import { PROCESS_WORDS } from "./process.js";
import { NOTE_WORDS } from "./notes.js";
import { LAYER_WORDS } from "./layer.js";
import { GPU_WORDS } from "./gpu.js";
import type { Say, Wordings } from "./words.js";
import { renderTimeToLimit } from "./time-to-limit.js";

const WORDS: Wordings<PhraseName> = {
  ...PROCESS_WORDS,
  ...NOTE_WORDS,
  ...LAYER_WORDS,
  ...TREE_WORDS,
  ...CGROUP_WORDS,
  ...RECONCILE_WORDS,
  ...ADVICE_WORDS,
  ...GPU_WORDS,
};

function sayer(short: boolean): Say {
  const s: Say = Object.assign((p: Phrase) => (WORDS[p.say] as (facts: unknown, s: Say) => string)(p.facts, s), {
    short,
  });
  return s;
}

/** The words of one phrase. */
export const say = sayer(false);

/** The words of one phrase, a process's sentence without its "PID n (command)" (the live view's "so far" line). */
export const sayShort = sayer(true);

/** Sections of advice, each worded, joined by a blank line (an empty one left out). */
export const sayAdvice = (parts: readonly Phrase[]) => parts.map(say).filter(Boolean).join("\n\n");

/**
 * A finding in words. Its keys stay where analysis put them: the JSON document lists them in that order, and the
 * recordings' documents (fixtures/verdicts/) are compared byte for byte.
 */
export function renderFinding(f: JudgedFinding): Finding {
  const words = (k: string, v: unknown) =>
    k === "summary"
      ? say(f.summary)
      : k === "advice"
        ? sayAdvice(f.advice)
        : k === "caveats"
          ? f.caveats.map(say)
          : k === "alsoFound"
            ? f.alsoFound!.map(renderFinding)
            : k === "timeToLimit"
              ? renderTimeToLimit(f.timeToLimit!)
              : v;
  // confidenceAtMost is calibration's bookkeeping (analysis/calibration.ts), no part of the document.
  const shown = Object.entries(f).filter(([k]) => k !== "confidenceAtMost");
  return Object.fromEntries(shown.map(([k, v]) => [k, words(k, v)])) as unknown as Finding;
}

/** The verdict document of a judgement. The verdict stays the same object as its finding in the list. */
export function renderVerdict(j: Judgement): VerdictDocument {
  const rendered = new Map(j.findings.map((f) => [f, renderFinding(f)]));
  return {
    ...j,
    verdict: rendered.get(j.verdict) ?? renderFinding(j.verdict),
    findings: j.findings.map((f) => rendered.get(f)!),
  };
}
