/**
 * What the allocator's rules (gpu.ts) and the driver's (gpu-driver.ts) share: the subject, the finding's frame, and
 * the findings that need nothing but the series' shape — too little data, a plateau, stable.
 */
import { stoppedAt, stoppedGrowth, type Assessment } from "../assess.js";
import { confidenceFromP, stableConfidence, trendEvidence } from "../evidence.js";
import type { JudgedFinding } from "../judgement.js";
import { phrase, type GpuFacts, type Phrase } from "../phrases.js";
import type { ProcessSeries } from "../../series/series.js";
import type { MetricName, Subject } from "../types.js";

export type GpuSubject = Subject & { type: "gpu" };

export function gpuSubject(ps: ProcessSeries, command: string, device: string, source: "torch" | "driver"): GpuSubject {
  return { type: "gpu", pid: ps.pid, starttime: ps.starttime, command, device, source };
}

export const gpuFacts = (subject: GpuSubject): GpuFacts => ({
  pid: subject.pid,
  command: subject.command,
  device: subject.device,
  source: subject.source,
});

export function gpuFinding(
  subject: GpuSubject,
  kind: JudgedFinding["kind"],
  metric: MetricName,
  a: Assessment,
  summary: Phrase,
  confidence: number,
  advice: Phrase[],
): JudgedFinding {
  return {
    kind,
    confidence,
    subject,
    pid: subject.pid,
    metric,
    rate: a.rate,
    summary,
    evidence: { device: subject.device, gpuSource: subject.source, ...trendEvidence(a) },
    advice,
    caveats: [],
  };
}

/** insufficient-data, plateau or stable, by the shape of `a` alone (`reserved`: the allocator's, for the sentence). */
export function shapeFinding(
  subject: GpuSubject,
  metric: MetricName,
  a: Assessment,
  reserved: number | undefined,
): JudgedFinding {
  const who = gpuFacts(subject);
  if (a.shape === "insufficient") {
    return gpuFinding(
      subject,
      "insufficient-data",
      metric,
      a,
      phrase("gpu.insufficient", { ...who, reason: a.reason }),
      0,
      [phrase("advice.insufficient-data", { reason: a.reason })],
    );
  }
  if (a.shape === "plateau" || a.shape === "step") {
    const growth = stoppedGrowth(a);
    const levelFrom = stoppedAt(a);
    const f = gpuFinding(
      subject,
      "plateau",
      metric,
      a,
      phrase("gpu.plateau", { ...who, growth, end: a.end }),
      confidenceFromP(a.plateau?.p ?? a.p),
      [phrase("advice.plateau", { growth, level: a.end, levelFrom })],
    );
    if (levelFrom !== undefined) f.evidence.levelFromSeconds = Number(levelFrom.toFixed(1));
    return f;
  }
  const advice = phrase("advice.stable", {
    subject: "gpu",
    metric,
    growth: a.growth,
    seconds: a.to - a.from,
    noise: a.plateau?.noise,
  });
  return gpuFinding(
    subject,
    "stable",
    metric,
    a,
    phrase("gpu.stable", { ...who, start: a.start, end: a.end, reserved }),
    stableConfidence(a.to - a.from),
    [advice],
  );
}
