/**
 * A GPU leak's finding as signals/gpu.ts makes it (PID 7 on cuda:0, its general advice only), and a context holding
 * some of the agent's results: what the tests of what is put on such a finding start from.
 */
import type { AgentResults, Context } from "../../src/analysis/context.js";
import type { JudgedFinding } from "../../src/analysis/judgement.js";
import { phrase } from "../../src/analysis/phrases.js";

export function gpuLeak(bytesPerSecond: number): JudgedFinding {
  const who = { pid: 7, command: "python3 eval.py", device: "cuda:0", source: "torch" as const };
  const rate = { bytesPerSecond, percentPerHour: 1000 };
  return {
    kind: "leak",
    confidence: 0.9,
    subject: { type: "gpu", pid: 7, starttime: 1, command: who.command, device: "cuda:0", source: "torch" },
    pid: 7,
    metric: "gpu-allocated",
    rate,
    summary: phrase("gpu.leak", { ...who, start: 2 ** 20, end: 900 * 2 ** 20, rate, reserved: undefined }),
    evidence: { device: "cuda:0", layer: "CUDA tensors" },
    advice: [phrase("advice.gpu", { variant: "leak", ...who })],
    caveats: [],
  };
}

export const agentContext = (results: Partial<AgentResults>): Context => ({
  from: 0,
  warmup: 0,
  duration: 100,
  agentSeen: true,
  agentResults: { traces: new Map(), trims: new Map(), ...results },
});
