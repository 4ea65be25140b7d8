/**
 * Every report says when a leak reaches its memory limit: the terminal report under the verdict, the live view and
 * the log's progress line (the verdict so far), and the GitHub step summary. None says it for a steady process.
 */
import { describe, expect, it } from "vitest";
import { buildSeries } from "../../../src/series/series.js";
import { judge } from "../../../src/analysis/classify.js";
import { renderVerdict as wordJudgement } from "../../../src/report/wording/index.js";
import { renderVerdict } from "../../../src/report/terminal/verdict-text.js";
import { renderLive, renderProgress, type LiveState } from "../../../src/report/live/view.js";
import { stepSummary } from "../../../src/report/github.js";
import type { Sample } from "../../../src/system/sample.js";
import { MB, synthesize, type SynthScenario } from "../../helpers/synthetic-samples.js";
import { buildCharts } from "../../../src/report/html/chart-data.js";
import { renderHtml } from "../../../src/report/html/index.js";
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { REPO } from "../../helpers/fixtures.js";

function reports(sc: SynthScenario, high?: number) {
  const samples: Sample[] = synthesize(sc).map((s) => ({
    ...s,
    cgroup: { ...s.cgroup!, limit: 1024 * MB, ...(high !== undefined && { high }) },
  }));
  const set = buildSeries(samples);
  const judged = judge({
    set,
    options: {},
    cgroup: { path: "/ci/job", version: high === undefined ? 1 : 2 },
    target: { pid: 100, command: ["python3", "serve.py"] },
  });
  const doc = wordJudgement(judged);
  const live: LiveState = {
    mode: "run",
    rootPid: 100,
    command: "python3 serve.py",
    elapsed: 300,
    set,
    latest: samples.at(-1),
    soFar: judged.verdict,
    commands: new Map(),
  };
  return {
    doc,
    charts: buildCharts(doc, set),
    html: renderHtml(doc, set),
    terminal: renderVerdict(doc, false, set, 200),
    live: renderLive(live, false, 200),
    progress: renderProgress(live),
    summary: stepSummary(doc),
  };
}

const SENTENCE =
  /container limit 1\.00 GiB, anon \+ shmem \+ kernel \d+ MiB( \(peaks \+[\d.]+ MiB\))?, growing 1\.00 MiB\/s: ~\d+(\.\d)? min \(/;

describe("time to the limit in the reports", () => {
  it("a leak under a 1 GiB limit: every report says it", () => {
    const r = reports({
      seconds: 300,
      processes: [{ pid: 100, ppid: 1, anon: { shape: { kind: "linear", bytesPerSecond: 1 * MB }, noise: 3 * MB } }],
    });
    expect(r.terminal).toMatch(new RegExp(`\\ntime to the limit: ${SENTENCE.source}`));
    expect(r.live).toMatch(new RegExp(`\\nlimit: ${SENTENCE.source}`));
    expect(r.progress).toMatch(/, limit in ~\d+(\.\d)? min \([\d.]+–[\d.]+ min\)$/);
    expect(r.summary).toMatch(new RegExp(`\\nTime to the memory limit: ${SENTENCE.source}`));
    expect(r.html).toMatch(new RegExp(`<p class="rate">time to the limit: ${SENTENCE.source}`));
  });

  it("a steady process: none does", () => {
    const r = reports({
      seconds: 300,
      processes: [{ pid: 100, ppid: 1, anon: { shape: { kind: "stable" }, noise: 3 * MB } }],
    });
    for (const text of [r.terminal, r.live, r.progress, r.summary, r.html])
      expect(text).not.toMatch(/limit in|time to the limit|Time to the memory limit|\nlimit:/);
  });
});

const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
const validate = ajv.compile(
  JSON.parse(readFileSync(`${REPO}schema/verdict.schema.json`, "utf8")) as Record<string, unknown>,
);
const leak: SynthScenario = {
  seconds: 300,
  processes: [{ pid: 100, ppid: 1, anon: { shape: { kind: "linear", bytesPerSecond: 1 * MB }, noise: 3 * MB } }],
};

describe("timeToLimit in --json and the HTML report", () => {
  it("the document with a countdown is valid against the schema", () => {
    const { doc } = reports(leak);
    expect(doc.verdict.timeToLimit).toBeDefined();
    const ok = validate(JSON.parse(JSON.stringify(doc)));
    expect(ok ? "valid" : ajv.errorsText(validate.errors)).toBe("valid");
  });

  it("the cgroup chart draws the counted memory, memory.high and the projection past the end of the run", () => {
    const { doc, charts } = reports(leak, 900 * MB);
    const t = doc.verdict.timeToLimit!;
    const chart = charts.charts.find((c) => c.id === "cgroup")!;
    const label = (re: RegExp) => chart.series.find((s) => re.test(s.label));
    expect(label(/^memory\.high$/)?.constant).toBe(900 * MB);
    const counted = label(/what the limit counts/)!;
    expect(counted.values!.filter((v) => v !== null).length).toBeGreaterThan(100);
    const projection = label(/^projection: reaches the limit in ~\d+ s$/)!;
    // From the trend level at the last reading to the limit, past the run's end.
    expect(chart.xs.at(-1)!).toBeCloseTo(t.at + t.seconds, 0);
    expect(chart.xMax!).toBeGreaterThan(charts.duration);
    expect(projection.values!.at(-2)).toBe(Math.round(t.level));
    expect(projection.values!.at(-1)! / MB).toBeCloseTo(900, -1);
    // Every series has a value (or null) at every x.
    for (const s of chart.series) if (s.values) expect(s.values).toHaveLength(chart.xs.length);
  });

  it("no countdown: the chart is as it was (no projection, no extra time)", () => {
    const { charts } = reports({
      seconds: 300,
      processes: [{ pid: 100, ppid: 1, anon: { shape: { kind: "stable" }, noise: 3 * MB } }],
    });
    const chart = charts.charts.find((c) => c.id === "cgroup")!;
    expect(chart.xMax).toBeUndefined();
    expect(chart.series.some((s) => /projection/.test(s.label))).toBe(false);
  });
});
