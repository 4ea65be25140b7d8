/** The verdict document a `--json` run printed, and what a failed expectation on it should show. */
import { readFileSync } from "node:fs";
import { expect } from "vitest";
import type { VerdictDocument } from "../../src/analysis/types.js";

/** The document on stdout; an empty stdout fails with memleak's stderr, which says why. */
export function verdictOf(stdout: string, stderr: string): VerdictDocument {
  expect(stdout, stderr).not.toBe("");
  return JSON.parse(stdout) as VerdictDocument;
}

/** Everything a failed expectation should show: each finding's kind, summary, holder, notes and what is beside it. */
export const shownFindings = (doc: VerdictDocument) =>
  JSON.stringify(
    doc.findings.map((f) => [f.kind, f.summary, f.holder, f.caveats, f.alsoFound?.map((x) => x.kind)]),
    null,
    1,
  );

/**
 * The census walks a recording holds, one line each (seconds from the first sample, the walk's cost, the container it
 * followed and the items it gained, the graph nodes, and capped), and the agent's holder messages: what a verdict that
 * missed a holder had to go on (a CI watch of a running loss was fragmentation at its first try, with no holder).
 */
export function censusWalks(recording: string): string {
  let t0: number | undefined;
  const cost = new Map<string, unknown>(); // each agent's last walk, by its pid
  const lines: string[] = [];
  for (const line of readFileSync(recording, "utf8").split("\n")) {
    if (!line.startsWith("{")) continue;
    const r = JSON.parse(line) as {
      type: string;
      t?: number;
      event?: string;
      detail?: { path?: string; container?: string };
      agent?: Record<string, { census?: Record<string, unknown> }>;
    };
    if (r.type === "sample") t0 ??= r.t;
    const at = r.t !== undefined && t0 !== undefined ? ((r.t - t0) / 1000).toFixed(1) : "?";
    if (r.type === "event" && r.event?.endsWith("holder"))
      lines.push(`${at} s ${r.event}: ${r.detail?.container} at ${r.detail?.path ?? "(not found)"}`);
    for (const [pid, a] of Object.entries(r.agent ?? {})) {
      const c = a.census;
      if (!c || c.costMs === cost.get(pid)) continue;
      cost.set(pid, c.costMs);
      lines.push(
        `${at} s walk in ${pid}: ${c.costMs} ms, ${c.growing ?? "-"} +${c.growingAdded ?? 0}, graph nodes ${c.graphNodes ?? "-"}${c.graphNodesCapped ? " (capped)" : ""}${c.skipped ? `, skipped: ${c.why}` : ""}`,
      );
    }
  }
  return lines.join("\n");
}
