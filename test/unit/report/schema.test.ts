/**
 * schema/verdict.schema.json describes the documents memleak really prints: the analysis of every recording (with
 * gates, as `analyze --max-growth … --fail-on …` adds them), and the verdict line `run` wrote at the end of each
 * recording. A document it does not describe (an unknown kind, a missing pid) fails.
 */
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { VERDICT_KINDS, type VerdictDocument } from "../../../src/analysis/types.js";
import { evaluateGates } from "../../../src/gates/gates.js";
import { readRecording } from "../../../src/recording/format.js";
import { analyzeRecording } from "../../../src/recording/replay.js";
import { FIXTURES, REPO } from "../../helpers/fixtures.js";
import { analyze, docOf, RECORDINGS, recordingPath } from "../../helpers/analyze.js";

const schema = JSON.parse(readFileSync(`${REPO}schema/verdict.schema.json`, "utf8")) as Record<string, unknown>;
// Strict, to catch a typo in the schema; but `then: { required: ["pid"] }` names a property defined one level up,
// which is plain JSON Schema and only ajv's extra strictRequired check objects to; type unions ("integer" or
// "null") are plain JSON Schema too.
const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
const validate = ajv.compile(schema);

/** As a consumer sees it: through JSON (a NaN would arrive as null and must fail here, not downstream). */
function check(doc: unknown): string {
  const ok = validate(JSON.parse(JSON.stringify(doc)));
  return ok ? "valid" : ajv.errorsText(validate.errors, { separator: "\n" });
}

describe("schema/verdict.schema.json", () => {
  it("lists exactly the verdict kinds of src/analysis/types.ts", () => {
    const kinds = (schema.$defs as { kind: { enum: string[] } }).kind.enum;
    expect([...kinds].sort()).toEqual([...VERDICT_KINDS].sort());
  });

  it.each(RECORDINGS)("describes the analysis of %s, gates included", async (file) => {
    const { doc, set } = await analyze(file);
    doc.gates = evaluateGates(doc, set, {
      metric: "pss",
      perProcess: false,
      maxGrowth: { kind: "bytes", bytes: 50 * 2 ** 20 },
      failOn: ["leak"],
    });
    doc.target.stopReason = "exited";
    doc.target.exitCode = 0;
    doc.target.signal = null;
    expect(doc.gates.length).toBeGreaterThan(0);
    expect(check(doc)).toBe("valid");
  });

  it.each(RECORDINGS)("describes the verdict line that run wrote at the end of %s", async (file) => {
    const rec = await readRecording(recordingPath(file), () => {});
    expect(rec.verdict).toBeDefined();
    expect(check(rec.verdict)).toBe("valid");
  });

  it("describes the per-test results of a memleak pytest recording, as analyze rebuilds them and as run wrote them", async () => {
    const file = `${FIXTURES}pytest-runs/suite.repeat5-warmup2.jsonl`;
    const { doc, testGate } = await analyzeRecording(file);
    doc.gates = [testGate!];
    expect(doc.tests!.length).toBeGreaterThan(0);
    expect(check(doc)).toBe("valid");
    const rec = await readRecording(file, () => {});
    expect(rec.verdict!.tests).toHaveLength(doc.tests!.length);
    expect(check(rec.verdict)).toBe("valid");
    const bad = (change: (t: Record<string, any>) => void) => {
      const d = JSON.parse(JSON.stringify(doc)) as Record<string, any>;
      change(d.tests[0]);
      return check(d);
    };
    expect(bad((t) => (t.kind = "memory-goblin"))).toMatch(/kind must be equal to one of the allowed values/);
    expect(bad((t) => delete t.nodeid)).toMatch(/must have required property 'nodeid'/);
    expect(bad((t) => (t.result = "flaky"))).not.toBe("valid");
    expect(bad((t) => (t.growth = { rssAnon: 1 }))).not.toBe("valid");
  });

  describe("rejects", () => {
    let base: VerdictDocument;
    const mutated = (change: (d: Record<string, any>) => void) => {
      const d = JSON.parse(JSON.stringify(base)) as Record<string, any>;
      change(d);
      return check(d);
    };
    it("a document with an unknown kind, a missing pid, a bad subject or a wrong schema name", async () => {
      base = await docOf("leak_worker.jsonl");
      expect(check(base)).toBe("valid");
      expect(mutated((d) => (d.verdict.kind = "memory-goblin"))).toMatch(
        /kind must be equal to one of the allowed values/,
      );
      expect(mutated((d) => (d.findings[1].kind = "LEAK"))).not.toBe("valid");
      expect(mutated((d) => delete d.verdict.pid)).toMatch(/must have required property 'pid'/);
      expect(mutated((d) => (d.verdict.subject = { type: "container", id: "x" }))).not.toBe("valid");
      expect(mutated((d) => (d.schema = "memleak.verdict/2"))).not.toBe("valid");
      expect(mutated((d) => (d.verdict.confidence = 1.5))).not.toBe("valid");
      expect(mutated((d) => (d.verdict.evidence.start = null))).not.toBe("valid");
      expect(mutated((d) => (d.target.cgroup = { path: "/x", version: 3, isolated: false }))).not.toBe("valid");
      expect(mutated((d) => (d.target.stopReason = "crashed"))).not.toBe("valid");
    });
  });
});
