/**
 * What each rule says, word for word: the summary, caveats, advice, confidence and evidence of every finding of one
 * scenario per rule on seeded synthetic series, kept as snapshots (test/unit/analysis/signals/__snapshots__). The text is the user's contract — the numbers
 * that prove the verdict and what to do — so a rule that loses a value (an advice placeholder left as "?", a number
 * dropped from a summary) or changes its wording fails here and shows the change for review.
 */
import { describe, expect, it } from "vitest";
import type { AgentResults } from "../../../../src/analysis/context.js";
import type { Finding } from "../../../../src/analysis/types.js";
import type { SynthScenario } from "../../../helpers/synthetic-samples.js";
import { alone, fill, flat, judge, linear, MB, type JudgeOptions } from "./judge.js";

const worker = (
  pid: number,
  anon: SynthScenario["processes"][0]["anon"],
  uss?: SynthScenario["processes"][0]["uss"],
) => ({ pid, ppid: 100, anon, ...(uss && { uss }) });
const traced: AgentResults = {
  traces: new Map([
    [
      100,
      {
        type: "trace",
        pid: 100,
        t: 299,
        sites: [{ file: "app.py", line: 42, sizeDiff: 180 * MB, countDiff: 9000, size: 190 * MB }],
        traced: 200 * MB,
        tracedPeak: 210 * MB,
      },
    ],
  ]),
  trims: new Map(),
};
const trims: AgentResults = {
  traces: new Map(),
  trims: new Map([[100, { type: "trim", pid: 100, t: 299, anonBefore: 400 * MB, anonAfter: 100 * MB }]]),
};

const CASES: [string, SynthScenario, JudgeOptions?][] = [
  [
    "leak in the root, native layer",
    alone({
      anon: linear(200 * MB, 1 * MB),
      agent: (t) => ({ malloc: { inUse: 50 * MB + 0.8 * t * MB, free: 5 * MB, arenas: 1 } }),
    }),
  ],
  [
    "leak in the root, with --trace-python's sites",
    alone({ anon: linear(200 * MB, 1 * MB) }),
    { agentResults: traced },
  ],
  [
    "leak in a worker",
    { seconds: 300, processes: [{ pid: 100, ppid: 1, anon: flat(50 * MB) }, worker(101, linear(50 * MB, 0.5 * MB))] },
  ],
  [
    "fragmentation from malloc's numbers",
    alone({ anon: flat(400 * MB), agent: () => ({ malloc: { inUse: 50 * MB, free: 300 * MB, arenas: 8 } }) }),
  ],
  [
    "fragmentation by the trim probe",
    alone({ anon: flat(400 * MB), agent: () => ({ py: { allocatedBlocks: 1000 } }) }),
    { agentResults: trims },
  ],
  [
    "copy-on-write in a worker",
    {
      seconds: 300,
      processes: [
        { pid: 100, ppid: 1, anon: flat(260 * MB) },
        worker(101, flat(260 * MB, 0.1 * MB), fill(5 * MB, 40 * MB, 200)),
      ],
    },
  ],
  [
    "copy-on-write under the floor, summed over the tree",
    {
      seconds: 300,
      processes: [
        { pid: 100, ppid: 1, anon: flat(260 * MB, 0.1 * MB) },
        ...[101, 102, 103, 104].map((p) => worker(p, flat(260 * MB, 0.1 * MB), fill(5 * MB, 6 * MB, 200))),
      ],
    },
  ],
  ["page cache in the cgroup", alone({ anon: flat(200 * MB) }, 300, { cache: linear(0, 1 * MB, 0.05 * MB) })],
  [
    "kernel memory in the cgroup",
    alone({ anon: flat(200 * MB) }, 300, { kernel: { ...linear(0, 1 * MB, 0.05 * MB), baseline: 10 * MB } }),
  ],
  ["shmem in the cgroup", alone({ anon: flat(200 * MB) }, 300, { shmem: linear(0, 1 * MB, 0.05 * MB) })],
  ["a plateau", alone({ anon: fill(100 * MB, 100 * MB, 100) })],
  [
    "one late step",
    alone({ anon: { shape: { kind: "step", at: 250, height: 30 * MB }, baseline: 100 * MB, noise: 0.2 * MB } }),
  ],
  ["stable", alone({ anon: flat(100 * MB) })],
  ["not enough data", alone({ anon: flat(100 * MB) }, 15)],
];

/** Everything a finding tells the user and the JSON consumer: its words, its confidence, and its evidence. */
const said = (f: Finding) => ({
  kind: f.kind,
  subject: f.subject,
  confidence: f.confidence,
  metric: f.metric,
  rate: f.rate,
  summary: f.summary,
  caveats: f.caveats,
  advice: f.advice,
  evidence: f.evidence,
  ...(f.outsideWatchedTree && { outsideWatchedTree: true }),
});

describe("what each rule says", () => {
  it.each(CASES)("%s", (_name, sc, options) => {
    const doc = judge(sc, options);
    const findings = doc.findings.map(said);
    expect(doc.window).toMatchSnapshot("window");
    // no placeholder left unfilled, no value missing
    for (const f of findings) {
      expect(f.advice, f.summary).not.toMatch(/\{\{|(^|[\s(`])\?([\s).,`]|$)|undefined|NaN/);
      expect(f.summary).not.toMatch(/undefined|NaN|\?\)/);
    }
    expect(findings).toMatchSnapshot();
  });

  it("with --trace-python's sites in hand, the advice starts from them instead of asking for a run with it", () => {
    const leak = (options?: JudgeOptions) => judge(alone({ anon: linear(200 * MB, 1 * MB) }), options).verdict;
    // Launched (run), or watched: each traced again the way it was observed.
    expect(leak({ command: ["python3", "serve.py"] }).advice).toContain(
      "run again with `memleak run --trace-python -- …`",
    );
    expect(leak().advice).toContain("watch it again with `memleak watch --trace-python 100`");
    const withSites = leak({ agentResults: traced });
    expect(withSites.sites?.[0]?.line).toBe(42);
    expect(withSites.advice).toContain("Start from the allocation sites memleak found");
    expect(withSites.advice).not.toContain("--trace-python");
  });
});
