/**
 * The verdict on every real recording in fixtures/recordings must be the one its scenario script declares
 * (fixtures/scenarios/<name>.py, "# expect: KIND" and "# subject: root|worker").
 */
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { analyzedDoc } from "../../helpers/analyzed-once.js";
import { FIXTURES, fixture } from "../../helpers/fixtures.js";

const recordings = readdirSync(`${FIXTURES}recordings`).filter((f) => f.endsWith(".jsonl"));

function expectation(name: string): { kind: string; subject?: string; layer?: string; also?: string } {
  const text = fixture(`scenarios/${name}.py`);
  const kind = /^# expect: (\S+)/m.exec(text)?.[1];
  if (!kind) throw new Error(`${name}.py has no "# expect:" line`);
  return {
    kind,
    subject: /^# subject: (\S+)/m.exec(text)?.[1],
    layer: /^# layer: (.+)$/m.exec(text)?.[1],
    also: /^# also: (\S+)/m.exec(text)?.[1],
  };
}

describe("verdicts on real recordings", () => {
  it("there is a recording for every scenario", () => {
    // _*.py are helpers the scenarios import, not scenarios.
    const scenarios = readdirSync(`${FIXTURES}scenarios`)
      .filter((f) => f.endsWith(".py") && !f.startsWith("_"))
      .map((f) => f.replace(/\.py$/, ""));
    // <scenario>.jsonl, plus variants <scenario>.<variant>.jsonl (e.g. recorded under load).
    const covered = new Set(recordings.map((r) => r.split(".")[0]));
    expect([...covered].sort()).toEqual(scenarios.sort());
  });

  it.each(recordings)("%s", async (file) => {
    const name = file.split(".")[0]!;
    const want = expectation(name);
    const doc = await analyzedDoc(`${FIXTURES}recordings/${file}`);
    expect(doc.verdict.kind).toBe(want.kind);
    if (want.subject === "root") expect(doc.verdict.subject).toMatchObject({ type: "process", isRoot: true });
    if (want.subject === "worker") expect(doc.verdict.subject).toMatchObject({ type: "process", isRoot: false });
    if (want.layer) expect(doc.verdict.evidence.layer).toBe(want.layer);
    // Two causes in one subject: the second is listed beside the verdict, not lost (issue 27).
    if (want.also) expect((doc.verdict.alsoFound ?? []).map((f) => f.kind)).toContain(want.also);
    // Never a false leak where the scenario is not one.
    if (want.kind !== "leak") expect(doc.findings.filter((f) => f.kind === "leak")).toEqual([]);
  });
});
