import { describe, expect, it } from "vitest";
import { compareTrials, type TrialResult } from "../../../src/trial/compare.js";
import type { LevelMeasures, TrialMeasures } from "../../../src/trial/measures.js";
import { BASELINE, type TrialSetting } from "../../../src/trial/settings.js";
import type { VerdictKind } from "../../../src/base/verdict-kinds.js";
import { renderTrials } from "../../../src/report/trials/trials-text.js";
import { trialsStepSummary } from "../../../src/report/trials/trials-summary.js";
import { helpsGate, trialsDocument } from "../../../src/trial/trials-document.js";
import { renderTrialsHtml } from "../../../src/report/html/trials-page.js";
import type { SeriesSet } from "../../../src/series/series.js";
import { Column } from "../../../src/series/column.js";
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { REPO } from "../../helpers/fixtures.js";
import { arenaTrials } from "../../helpers/trials.js";
import { compareRuns } from "../../../src/trial/compare.js";

const MiB = 1024 * 1024;
const level = (peak: number, end: number, growth: number): LevelMeasures => ({
  peak: peak * MiB,
  end: end * MiB,
  growth: growth * MiB,
  spread: 0.5 * MiB,
});
const measures = (kind: VerdictKind, tree: LevelMeasures): TrialMeasures => ({
  verdict: { kind, confidence: 0.8, summary: `${kind}, as run said it` },
  seconds: 24,
  metric: "pss",
  tree,
  cgroup: tree,
});
const HOSTILE = "X=<img src=x onerror=alert(1)>|\u001b[2J";
const hostile: TrialSetting = {
  kind: "env",
  text: HOSTILE,
  name: "X",
  value: "<img src=x onerror=alert(1)>|\u001b[2J",
};
const trim: TrialSetting = { kind: "trim", text: "trim=2", every: 2 };
const trial = (setting: TrialSetting, m: TrialMeasures): TrialResult => ({
  setting,
  exit: { code: null, signal: "SIGTERM" },
  stopReason: "duration",
  inEffect: setting.kind === "baseline" ? undefined : { seen: true, how: `seen ${setting.text}` },
  measures: m,
});
const cmp = compareTrials(
  [
    trial(BASELINE, measures("fragmentation", level(460, 450, 120))),
    trial(trim, measures("stable", level(370, 30, -300))),
    trial(hostile, measures("fragmentation", level(455, 449, 119))),
  ],
  5.8,
);

describe("run --try's comparison, as each output says it", () => {
  it("the terminal: a table, a line per setting, the answer with how to keep it; the target's text escaped", () => {
    const text = renderTrials(cmp, "python3 app.py", false, 120);
    expect(text).toContain("3 runs of python3 app.py, 24s each: the tree's Σ PSS, its growth after 5.8s of warm-up");
    expect(text).toMatch(/│ trim=2 +│ stable 80% +│ +370 MiB │ +30\.0 MiB │ +−300 MiB │ +30\.0 MiB │ helps +│/);
    expect(text).toContain("trim=2: helps: growth −420 MiB, end −420 MiB, peak −90.0 MiB; in effect: seen trim=2");
    expect(text.replace(/\n {2}/g, " ")).toContain(
      '→ use trim=2: growth −420 MiB, end −420 MiB, peak −90.0 MiB (fragmentation → stable); to keep it: ctypes.CDLL("libc.so.6").malloc_trim(0) every 2 s in the program (a thread, or after each burst)',
    );
    expect(text).not.toContain("\u001b");
    expect(text).toContain("\\x1b[2J");
  });

  it("at 80 columns a trial called insufficient-data keeps the effect: the cgroup, the peak and the growth give way", () => {
    const idle = compareTrials(
      [
        trial(BASELINE, measures("stable", level(13, 13, 0.1))),
        trial(
          { kind: "env", text: "MALLOC_ARENA_MAX=2", name: "MALLOC_ARENA_MAX", value: "2" },
          {
            ...measures("insufficient-data", level(13, 13, 0.1)),
            verdict: { kind: "insufficient-data", confidence: 0, summary: "too short" },
          },
        ),
      ],
      1,
    );
    const text = renderTrials(idle, "python3 idle.py", false, 80);
    expect(text).toMatch(/│ MALLOC_ARENA_MAX=2 +│ insufficient-data 0% +│ +13\.0 MiB +│ no difference +│/);
    expect(text).not.toMatch(/│ +(peak|growth|cgroup end) +│/);
    for (const line of text.split("\n")) expect([...line].length, line).toBeLessThanOrEqual(80);
  });

  it("at 60 columns the cgroup, the peak, the growth and the effect give way, the settings are cut, and no line is longer", () => {
    const text = renderTrials(cmp, "python3 app.py", false, 60);
    expect(text).not.toMatch(/│ +(peak|growth|effect) +│/);
    expect(text).not.toContain("cgroup end");
    expect(text).toMatch(/^│ X=<img src=x onerror=ale… │ fragmentation 80% │ +449 MiB │$/m);
    for (const line of text.split("\n")) expect([...line].length, line).toBeLessThanOrEqual(60);
  });

  it("JSON: each trial's numbers, the answer, the gate", () => {
    const doc = trialsDocument(
      cmp,
      ["python3", "app.py"],
      ["a.as-it-is.jsonl", undefined, undefined],
      [helpsGate(cmp)],
    );
    expect(doc).toMatchObject({
      schema: "memleak.trials/1",
      measuredFrom: 5.8,
      recommendation: { setting: "trim=2" },
      gates: [{ name: "helps", result: "pass", passed: true, message: "trim=2 helps" }],
    });
    expect(doc.trials.map((t) => [t.setting, t.effect, t.how])).toEqual([
      ["as it is", "baseline", "the command as it is"],
      ["trim=2", "helps", "the agent calls malloc_trim(0) every 2 s"],
      [HOSTILE, "no-difference", "X=<img src=x onerror=alert(1)>|\u001b[2J"],
    ]);
    expect(doc.trials[0]!.recording).toBe("a.as-it-is.jsonl");
    expect(doc.trials[1]).not.toHaveProperty("recording");
  });

  it("the step summary: a markdown table whose cells a setting cannot break", () => {
    const md = trialsStepSummary(
      cmp,
      trialsDocument(cmp, ["python3", "app.py"], [], [helpsGate(cmp)]),
      "python3 app.py",
    );
    const rows = md.split("\n").filter((l) => l.startsWith("| "));
    expect(rows).toHaveLength(5);
    for (const r of rows) expect(r.split(/(?<!\\)\|/).length, r).toBe(10);
    expect(md).toContain("**Use trim=2: growth −420 MiB");
    expect(md).toContain("- gate helps: **pass**: trim=2 helps");
  });

  it("the HTML page: the setting's text escaped, each setting a line of the charts' data", () => {
    const col = (ys: number[]) => {
      const c = new Column();
      ys.forEach((y, i) => c.push(i, y));
      return c;
    };
    const set = (y: number) =>
      ({ duration: 3, tree: { pss: col([y, y, y]) }, cgroup: { cgroup: col([y, y, y]) } }) as unknown as SeriesSet;
    const html = renderTrialsHtml(cmp, "python3 app.py", [set(1), set(2), set(3)]);
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("X=&lt;img src=x onerror=alert(1)&gt;");
    expect(html).toContain('"label":"trim=2"');
    expect(html).toContain('"warmup":5.8');
  });
});

describe("schema/trials.schema.json", () => {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  const validate = ajv.compile(JSON.parse(readFileSync(`${REPO}schema/trials.schema.json`, "utf8")) as object);
  const check = (doc: unknown) =>
    validate(JSON.parse(JSON.stringify(doc))) ? "valid" : ajv.errorsText(validate.errors, { separator: "\n" });

  it("describes the document of three real trials, and of settings seen and not seen in effect", async () => {
    const recorded = compareRuns(await arenaTrials());
    expect(
      check(trialsDocument(recorded, ["python3", "x.py"], ["a.jsonl", "b.jsonl", "c.jsonl"], [helpsGate(recorded)])),
    ).toBe("valid");
    expect(check(trialsDocument(cmp, ["python3", "app.py"], [], undefined))).toBe("valid");
    const unseen = {
      ...cmp,
      trials: cmp.trials.map((t, i) => (i === 1 ? { ...t, inEffect: { seen: false as const, why: "not seen" } } : t)),
    };
    expect(check(trialsDocument(unseen, ["python3", "app.py"], [], undefined))).toBe("valid");
  });

  it("fails a document it does not describe", () => {
    const doc = trialsDocument(cmp, ["python3", "app.py"], [], undefined);
    expect(check({ ...doc, schema: "memleak.verdict/1" })).not.toBe("valid");
    expect(check({ ...doc, trials: [{ ...doc.trials[0], effect: "better" }] })).not.toBe("valid");
    expect(check({ ...doc, recommendation: { text: "x" } })).not.toBe("valid");
  });
});
