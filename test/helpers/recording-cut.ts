/**
 * A recording cut at a moment, as a progress line saw it then: its header, and the samples and events up to `seconds`
 * after it started (agent results that come at the end are left out, as they had not come yet).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { analyzeRecording } from "../../src/recording/replay.js";

export async function analyzedUntil(file: string, seconds: number) {
  const lines = readFileSync(file, "utf8").trim().split("\n");
  const t0 = (JSON.parse(lines[0]!) as { startedAt: number }).startedAt;
  const kept = lines.filter((l) => {
    const r = JSON.parse(l) as { type: string; t?: number };
    return r.type === "header" || ((r.type === "sample" || r.type === "event") && (r.t! - t0) / 1000 <= seconds);
  });
  const path = `${mkdtempSync(`${tmpdir()}/memleak-cut-`)}/cut.jsonl`;
  writeFileSync(path, `${kept.join("\n")}\n`);
  return (await analyzeRecording(path)).doc;
}
