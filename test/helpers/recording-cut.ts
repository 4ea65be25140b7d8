/**
 * A recording cut at a moment, as a progress line saw it then: its header, and the samples and events up to `seconds`
 * after it started (agent results that come at the end are left out, as they had not come yet). The cgroup's other
 * processes stay, without their growth: a session reads who they are at its first tick (session/cgroup-outsiders.ts)
 * and gives them to every interim verdict, and their growth only after its last; the recording writes both at the end.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { analyzeRecording } from "../../src/recording/replay.js";

/** The recording's lines, and the seconds from its start to its last sample. */
export function recordingLines(file: string): { lines: string[]; seconds: number } {
  const lines = readFileSync(file, "utf8").trim().split("\n");
  const t0 = (JSON.parse(lines[0]!) as { startedAt: number }).startedAt;
  let last = 0;
  for (const l of lines) {
    const r = JSON.parse(l) as { type: string; t?: number };
    if (r.type === "sample") last = Math.max(last, (r.t! - t0) / 1000);
  }
  return { lines, seconds: last };
}

export async function analyzedUntil(file: string, seconds: number, lines = recordingLines(file).lines) {
  const t0 = (JSON.parse(lines[0]!) as { startedAt: number }).startedAt;
  const kept = lines.flatMap((l) => {
    const r = JSON.parse(l) as { type: string; t?: number; event?: string; detail?: { anonGrowth?: number } };
    if (r.type === "event" && r.event === "cgroup-outsiders") {
      delete r.detail?.anonGrowth;
      return [JSON.stringify(r)];
    }
    return r.type === "header" || ((r.type === "sample" || r.type === "event") && (r.t! - t0) / 1000 <= seconds)
      ? [l]
      : [];
  });
  const dir = mkdtempSync(`${tmpdir()}/memleak-cut-`);
  try {
    writeFileSync(`${dir}/cut.jsonl`, `${kept.join("\n")}\n`);
    return (await analyzeRecording(`${dir}/cut.jsonl`)).doc;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
