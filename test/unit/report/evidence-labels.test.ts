/**
 * Evidence as a person reads it: in the terminal report and the HTML report, every evidence entry is shown under a
 * label in words, never under the JSON document's raw key ("slopeBytesPerSecond", "earlyAlpha", "sharedDrop"). Fed
 * every recording in fixtures/recordings (real runs) and the GPU findings of gpu-outputs.test.ts's kind.
 */
import { describe, expect, it } from "vitest";
import { renderVerdict } from "../../../src/report/terminal/verdict-text.js";
import { renderHtml } from "../../../src/report/html/index.js";
import { evidenceLabel, hasEvidenceLabel } from "../../../src/report/evidence-labels.js";
import { evidenceValue } from "../../../src/report/vocabulary.js";
import { everyFinding } from "../../../src/analysis/every-finding.js";
import { analyze, RECORDINGS } from "../../helpers/analyze.js";

/** A raw identifier: a lower-case letter or digit followed by a capital ("pValue", "slopeBytesPerSecond"). */
const CAMEL = /[a-z0-9][A-Z]/;

/** The terminal's evidence block: the lines after the "evidence" heading, to the blank line. */
function terminalEvidence(text: string): string {
  const lines = text.split("\n");
  const from = lines.indexOf("evidence") + 1;
  return lines.slice(from, lines.indexOf("", from)).join("\n");
}

function htmlLabels(html: string): string[] {
  const section = /<section class="evidence">([\s\S]*?)<\/section>/.exec(html)?.[1] ?? "";
  return [...section.matchAll(/<th scope="row"[^>]*>([^<]*)<\/th>/g)].map((m) => m[1]!);
}

describe("evidence labels in the terminal and the HTML report", () => {
  it.each(RECORDINGS)("%s: every label in words, every key with a label of its own", async (name) => {
    const { doc, set, commands } = await analyze(name);
    const terminal = terminalEvidence(renderVerdict(doc, false, set, 80));
    const html = htmlLabels(renderHtml(doc, set, { commands }));
    const shown = Object.keys(doc.verdict.evidence);
    // Each key under its label (the terminal's words may be wrapped), and no raw key anywhere in the block.
    for (const k of shown) expect(terminal.replace(/\s+/g, " ")).toContain(evidenceLabel(k));
    expect(shown.filter((k) => CAMEL.test(k) && new RegExp(`\\b${k}\\b`).test(terminal))).toEqual([]);
    // No size shown as a raw byte count (the agents' footprint read "8388608").
    expect(terminal).not.toMatch(/\s\d{6,}$/m);
    expect(html.length).toBe(shown.length);
    expect(html.filter((l) => CAMEL.test(l))).toEqual([]);
    // The fallback (camelCase split into words) reads poorly ("early alpha"): every key in use is named on purpose.
    const keys = everyFinding([doc.verdict, ...doc.findings]).flatMap((f) => Object.keys(f.evidence));
    expect([...new Set(keys)].filter((k) => !hasEvidenceLabel(k))).toEqual([]);
  });
});

describe("evidence values", () => {
  it("memleak's agents' own memory in binary units, not a byte count", () => {
    expect(evidenceValue("agentFootprint", 8 * 2 ** 20)).toBe("8.00 MiB");
  });
});
