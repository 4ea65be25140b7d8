/**
 * The advice that asks for more data fits the command that printed it (issue 48 item 3): "watch for longer
 * (--duration)" under watch, where --duration lengthens the watch; under run (and pytest) --duration only stops the
 * command sooner, so the advice is to run it for longer.
 */
import { describe, expect, it } from "vitest";
import { analyzeRecording } from "../../../src/recording/replay.js";
import { classify } from "../../../src/report/verdict.js";
import { FIXTURES } from "../../helpers/fixtures.js";

// A 10 s CI step under `memleak run`: its process and tree had 12 samples (needs 20).
const RECORDING = `${FIXTURES}recordings/fork_cow.10s-under-load.jsonl`;
const insufficientAdvice = (doc: { findings: { kind: string; advice: string }[] }) =>
  doc.findings.filter((f) => f.kind === "insufficient-data").map((f) => f.advice.replace(/\s+/g, " "));

describe("more data, for the command that was run", () => {
  it("under run: run it for longer; --duration would only stop it sooner", async () => {
    const { doc } = await analyzeRecording(RECORDING);
    const advice = insufficientAdvice(doc);
    expect(advice.length).toBe(2);
    for (const a of advice) {
      expect(a).toContain("Run it for longer (more steps, a longer job: `--duration` only stops it sooner)");
      expect(a).not.toContain("Watch for longer");
    }
  });

  it("the same series watched (no command launched): watch for longer with --duration", async () => {
    const { set, doc } = await analyzeRecording(RECORDING);
    const watched = classify({ set, options: {}, target: { pid: doc.target.pid } });
    const advice = insufficientAdvice(watched);
    expect(advice.length).toBe(2);
    for (const a of advice) expect(a).toContain("Watch for longer (`--duration`), or sample more often (`--interval`)");
  });
});
