/**
 * A process's memory on one GPU as the driver counts it (nvidia-smi's used_memory: probes/nvidia-smi.ts), judged
 * when memleak's agent did not read the caching allocator (`watch` without it, JAX, CuPy, TensorFlow): growth only,
 * with the host's statistics (assess.ts). The driver's number holds the CUDA context and the framework's cache with
 * the live arrays, so retention and fragmentation cannot be told from it, and a leak found on it says so.
 */
import type { Assessment } from "../assess.js";
import { growthConfidence } from "../evidence.js";
import type { JudgedFinding } from "../judgement.js";
import { phrase } from "../phrases.js";
import { gpuFacts, gpuFinding, shapeFinding, type GpuSubject } from "./gpu-finding.js";

export function decideDriver(subject: GpuSubject, a: Assessment): JudgedFinding {
  if (a.shape !== "growing") return shapeFinding(subject, "gpu-used", a, undefined);
  const who = gpuFacts(subject);
  const facts = { ...who, start: a.start, end: a.end, rate: a.rate, reserved: undefined };
  const f = gpuFinding(subject, "leak", "gpu-used", a, phrase("gpu.leak", facts), growthConfidence(a), [
    phrase("advice.gpu", { variant: "driver-leak", ...who }),
  ]);
  f.caveats.push(phrase("gpu.driver-counts-all", {}));
  return f;
}
