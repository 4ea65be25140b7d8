/**
 * The gate on the time to the memory limit (--min-time-to-limit): a CI soak or a canary stops a rollout when a leak
 * would reach its limit sooner than the given time — judged on the range's far end, so it fails only when even the
 * slowest growth the data allows gets there first. Beside the other gates (gates/gates.ts), reading the findings'
 * timeToLimit (analysis/limit-countdowns.ts) and nothing else.
 */
import type { Finding, VerdictDocument } from "../analysis/types.js";
import { formatDuration } from "../base/units.js";

type Gate = NonNullable<VerdictDocument["gates"]>[number];

export interface MinTimeToLimit {
  seconds: number;
  /** As the user typed it: the message quotes the limit that way. */
  text: string;
}

const subjectOf = (f: Finding) => (f.subject.type === "process" ? `PID ${f.subject.pid}` : f.subject.type);

/** How long until the limit at the far end of the range (Infinity when that end does not grow). */
const farEnd = (f: Finding) => f.timeToLimit?.secondsMax ?? Infinity;

export function timeToLimitGate(
  doc: Pick<VerdictDocument, "findings" | "verdict">,
  min: MinTimeToLimit,
  strict: boolean | undefined,
): Gate {
  const gate = (result: Gate["result"], message: string, subject?: string): Gate => ({
    name: "min-time-to-limit",
    ...(subject !== undefined && { subject }),
    result,
    passed: result === "pass" || (result === "inconclusive" && !strict),
    message,
  });
  // A shared cgroup's growth the watched tree does not explain is someone else's: no gate judges it (gates/gates.ts).
  const counting = doc.findings
    .filter((f) => f.timeToLimit && !f.outsideWatchedTree)
    .sort((a, b) => farEnd(a) - farEnd(b));
  const nearest = counting[0];
  if (nearest && farEnd(nearest) < min.seconds) {
    const far = formatDuration(farEnd(nearest));
    return gate(
      "fail",
      `${subjectOf(nearest)}: ${nearest.timeToLimit!.summary}; even the slow end (${far}) is sooner than --min-time-to-limit ${min.text}`,
      subjectOf(nearest),
    );
  }
  if (nearest) {
    const far = Number.isFinite(farEnd(nearest))
      ? `${formatDuration(farEnd(nearest))} at the slow end`
      : "the slow end does not grow";
    return gate(
      "pass",
      `${subjectOf(nearest)}: ${nearest.timeToLimit!.summary}; ${far}, not sooner than ${min.text}`,
      subjectOf(nearest),
    );
  }
  if (doc.verdict.kind === "insufficient-data")
    return gate("inconclusive", `no time to the limit: nothing could be judged (${doc.verdict.summary})`);
  return gate("pass", "no leak grows towards a memory limit");
}
