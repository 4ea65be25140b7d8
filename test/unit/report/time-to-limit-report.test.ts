/**
 * Every report says when a leak reaches its memory limit: the terminal report under the verdict, the live view and
 * the log's progress line (the verdict so far), and the GitHub step summary. None says it for a steady process.
 */
import { describe, expect, it } from "vitest";
import { buildSeries } from "../../../src/analysis/series.js";
import { judge } from "../../../src/analysis/classify.js";
import { renderVerdict as wordJudgement } from "../../../src/report/wording/index.js";
import { renderVerdict } from "../../../src/report/verdict-text.js";
import { renderLive, renderProgress, type LiveState } from "../../../src/report/live.js";
import { stepSummary } from "../../../src/report/github.js";
import type { Sample } from "../../../src/sample.js";
import { MB, synthesize, type SynthScenario } from "../../support/synthetic-samples.js";

function reports(sc: SynthScenario) {
  const samples: Sample[] = synthesize(sc).map((s) => ({ ...s, cgroup: { ...s.cgroup!, limit: 1024 * MB } }));
  const set = buildSeries(samples);
  const judged = judge({ set, options: {}, cgroup: { path: "/ci/job", version: 1 }, target: { pid: 100, command: ["python3", "serve.py"] } });
  const doc = wordJudgement(judged);
  const live: LiveState = { mode: "run", rootPid: 100, command: "python3 serve.py", elapsed: 300, set, latest: samples.at(-1), soFar: judged.verdict, commands: new Map() };
  return { terminal: renderVerdict(doc, false, set, 200), live: renderLive(live, false, 200), progress: renderProgress(live), summary: stepSummary(doc) };
}

const SENTENCE = /container limit 1\.00 GiB, anon \+ shmem \+ kernel \d+ MiB( \(peaks \+[\d.]+ MiB\))?, growing \d+ KiB\/s: ~\d+(\.\d)? min \(/;

describe("time to the limit in the reports", () => {
  it("a leak under a 1 GiB limit: every report says it", () => {
    const r = reports({ seconds: 300, processes: [{ pid: 100, ppid: 1, anon: { shape: { kind: "linear", bytesPerSecond: 1 * MB }, noise: 3 * MB } }] });
    expect(r.terminal).toMatch(new RegExp(`\\ntime to the limit: ${SENTENCE.source}`));
    expect(r.live).toMatch(new RegExp(`\\nlimit: ${SENTENCE.source}`));
    expect(r.progress).toMatch(/, limit in ~\d+(\.\d)? min \([\d.]+–[\d.]+ min\)$/);
    expect(r.summary).toMatch(new RegExp(`\\nTime to the memory limit: ${SENTENCE.source}`));
  });

  it("a steady process: none does", () => {
    const r = reports({ seconds: 300, processes: [{ pid: 100, ppid: 1, anon: { shape: { kind: "stable" }, noise: 3 * MB } }] });
    for (const text of Object.values(r)) expect(text).not.toMatch(/limit in|time to the limit|Time to the memory limit|\nlimit:/);
  });
});
