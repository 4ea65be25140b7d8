/**
 * What the allocator's rules (gpu.ts) and the driver's (gpu-driver.ts) share: the subject, the finding's frame, and
 * the findings that need nothing but the series' shape — too little data, a plateau, stable.
 */
import type { Assessment } from "../assess.js";
import { trendEvidence } from "../evidence.js";
import { plateauParts, stableParts } from "./level-findings.js";
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
    const p = plateauParts(a);
    const summary = phrase("gpu.plateau", { ...who, growth: p.growth, end: a.end });
    const f = gpuFinding(subject, p.kind, metric, a, summary, p.confidence, p.advice);
    if (p.levelFromSeconds !== undefined) f.evidence.levelFromSeconds = p.levelFromSeconds;
    return f;
  }
  const s = stableParts(a, "gpu", metric);
  const summary = phrase("gpu.stable", { ...who, start: a.start, end: a.end, reserved });
  return gpuFinding(subject, s.kind, metric, a, summary, s.confidence, s.advice);
}
