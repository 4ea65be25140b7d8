/**
 * signals/unseen.ts `noteMissingAgent` on a finding and a process built by hand: which findings it annotates, with
 * which reason, from which level on, and what it does to a stable finding's confidence — exact values. Through the
 * whole engine: rules/unseen.test.ts and watch-rules.test.ts.
 */
import { describe, expect, it } from "vitest";
import { Column } from "../../../../src/series/column.js";
import type { ProcessSeries } from "../../../../src/series/series.js";
import type { Context } from "../../../../src/analysis/context.js";
import type { JudgedFinding } from "../../../../src/analysis/judgement.js";
import { noteMissingAgent } from "../../../../src/analysis/signals/unseen.js";

const MB = 2 ** 20;
const flat = (v: number) => {
  const c = new Column();
  for (let i = 0; i < 6; i++) c.push(i, v);
  return c;
};
const proc = (o: { anon?: number; rss?: number; agent?: boolean } = {}) =>
  ({
    pid: 42,
    metrics: {
      ...(o.anon !== undefined && { anon: flat(o.anon) }),
      ...(o.rss !== undefined && { rss: flat(o.rss) }),
    },
    agent: o.agent ? { "malloc.inUse": flat(MB) } : {},
  }) as unknown as ProcessSeries;
const ctx = (o: Partial<Context> = {}): Context => ({ from: 0, warmup: 0, duration: 6, agentSeen: false, ...o });
const finding = (kind: JudgedFinding["kind"], confidence = 0.9) =>
  ({ kind, confidence, evidence: {}, caveats: [], advice: [] }) as unknown as JudgedFinding;

/** The finding after the note, as plain data. */
function noted(kind: JudgedFinding["kind"], ps: ProcessSeries, c: Context = ctx(), confidence = 0.9) {
  const f = finding(kind, confidence);
  noteMissingAgent(f, ps, c);
  return f;
}

describe("noteMissingAgent", () => {
  it("a stable 64 MiB process (exactly fragmentation's floor) could hide retention: said, and at most a coin", () => {
    expect(noted("stable", proc({ anon: 64 * MB }))).toEqual({
      kind: "stable",
      confidence: 0.5,
      // …and kept there by calibration (analysis/calibration.ts)
      confidenceAtMost: 0.5,
      evidence: { agent: "missing", agentMissingReason: "no agent in this session" },
      caveats: [{ say: "agent.missing", facts: { why: "no agent in this session", level: 64 * MB } }],
      advice: [{ say: "advice.no-agent", facts: { pid: 42, why: "no agent in this session", level: 64 * MB } }],
    });
    // a stable finding already less sure keeps its own
    expect(noted("stable", proc({ anon: 64 * MB }), ctx(), 0.3).confidence).toBe(0.3);
  });

  it("under 64 MiB a stable or plateau finding is left alone; a leak is always in question", () => {
    for (const kind of ["stable", "plateau"] as const)
      expect(noted(kind, proc({ anon: 64 * MB - 1 }))).toEqual(finding(kind));
    const leak = noted("leak", proc({ anon: 1 * MB }));
    expect(leak.caveats).toEqual([{ say: "agent.missing", facts: { why: "no agent in this session", level: MB } }]);
    expect(leak.confidence).toBe(0.9);
    const plateau = noted("plateau", proc({ anon: 64 * MB }));
    expect(plateau.confidence).toBe(0.9);
    expect(plateau.advice).toHaveLength(1);
  });

  it("under run, where the agent was offered at start-up: a Python it cannot run in, and the run's own advice", () => {
    // A Python 3.6 program under `memleak run` was told "no agent in this session" and to start "under memleak run".
    const why = "it never reported: the agent loads at start-up in CPython 3.8 or later, not under -S or -I";
    const leak = noted("leak", proc({ anon: 5 * MB }), ctx({ launched: true }));
    expect(leak.evidence.agentMissingReason).toBe(why);
    expect(leak.advice).toEqual([{ say: "advice.no-agent", facts: { pid: 42, why, level: 5 * MB, launched: true } }]);
    // `watch` refused under run (a second memleak attaching): its own reason, the general advice.
    const refused = noted(
      "leak",
      proc({ anon: 5 * MB }),
      ctx({ launched: true, agentMissing: new Map([[42, "ptrace"]]) }),
    );
    expect(refused.advice).toEqual([{ say: "advice.no-agent", facts: { pid: 42, why: "ptrace", level: 5 * MB } }]);
  });

  it("reads RSS without anon, and says nothing without either", () => {
    expect(noted("leak", proc({ rss: 5 * MB })).caveats[0]?.facts).toEqual({
      why: "no agent in this session",
      level: 5 * MB,
    });
    expect(noted("leak", proc())).toEqual(finding("leak"));
  });

  it("other kinds are not annotated, and a process the agent reported for never is", () => {
    for (const kind of ["cow", "fragmentation", "insufficient-data"] as const)
      expect(noted(kind, proc({ anon: 500 * MB }))).toEqual(finding(kind));
    expect(
      noted("leak", proc({ anon: 500 * MB, agent: true }), ctx({ agentMissing: new Map([[42, "ptrace"]]) })),
    ).toEqual(finding("leak"));
  });

  it("the reason: an agent that never reported, or watch's refusal, which every finding then carries", () => {
    expect(noted("leak", proc({ anon: MB }), ctx({ agentSeen: true })).evidence.agentMissingReason).toBe(
      "it never reported",
    );
    const refused = ctx({ agentSeen: true, agentMissing: new Map([[42, "ptrace refused"]]) });
    expect(noted("cow", proc({ anon: MB }), refused)).toEqual({
      ...finding("cow"),
      evidence: { agent: "missing", agentMissingReason: "ptrace refused" },
    });
    expect(noted("stable", proc({ anon: MB }), refused)).toEqual({
      ...finding("stable"),
      evidence: { agent: "missing", agentMissingReason: "ptrace refused" },
    });
    // another process's refusal is not this one's
    const other = ctx({ agentMissing: new Map([[7, "ptrace refused"]]) });
    expect(noted("leak", proc({ anon: MB }), other).evidence.agentMissingReason).toBe("no agent in this session");
  });
});
