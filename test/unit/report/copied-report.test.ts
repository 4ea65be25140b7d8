/**
 * What a copying worker copied in every report (Finding.copied, issue 51): the terminal's "what it copied", the HTML
 * panel, the step summary and the JSON schema, on the recorded DataLoader run; and names from the watched program
 * (its globals, its dataset's attributes) escaped as each report must.
 */
import { describe, expect, it } from "vitest";
import type { VerdictDocument } from "../../../src/analysis/types.js";
import { stepSummary } from "../../../src/report/github.js";
import { copiedPanel } from "../../../src/report/html/copied-panel.js";
import { renderVerdict } from "../../../src/report/verdict-text.js";
import { analyzedDoc } from "../../helpers/analyzed-once.js";
import { FIXTURES } from "../../helpers/fixtures.js";
import { verdictValidator } from "../../helpers/verdict-schema.js";

const recorded = () => analyzedDoc(`${FIXTURES}recordings/cow_dataloader.jsonl`);
const DATASET = "the DataLoader's dataset (TextDataset).samples";

describe("what it copied, in the reports", () => {
  it("the terminal: the share named, each container with how it was copied, and the look's cost", async () => {
    const text = renderVerdict(await recorded(), false, undefined, 120);
    expect(text).toMatch(/\nwhat it copied\n  PID \d+: 20\.4 MiB of the 21\.6 MiB it copied is in these containers\n/);
    // wrapped at 120 columns, as printed
    expect(text).toContain(
      `  - ${DATASET} (list of str, 400,000 items): ~20.4 MiB private of 43.1 MiB — copied\n    as the worker reads its items (reference counts)\n`,
    );
    expect(text).toMatch(
      /looked at its own page flags \(\/proc\/self\/pagemap\) in [\d.]+ ms \([\d.]+ ms CPU\); the look/,
    );
    // the advice names it first
    expect(text.slice(text.indexOf("what to do"))).toMatch(/^what to do\n`?the DataLoader's dataset/);
  });

  it("the step summary and the HTML panel", async () => {
    const doc = await recorded();
    const md = stepSummary(doc);
    expect(md).toMatch(/\*\*What it copied:\*\* PID \d+: 20\.4 MiB of the 21\.6 MiB it copied is in these containers/);
    expect(md).toContain(`- ${DATASET} (list of str, 400,000 items): ~20.4 MiB private of 43.1 MiB`);
    const html = copiedPanel(doc.verdict);
    expect(html).toContain('<section class="sites copied" id="copied"><h2>What it copied</h2>');
    expect(html).toContain(`<td><code>the DataLoader&#39;s dataset (TextDataset).samples</code></td>`);
    expect(html).toContain("<td>copied as the worker reads its items (reference counts)</td>");
  });

  it("names from the program are escaped: no markup, no terminal control", async () => {
    const doc = await recorded();
    const hostile = "__main__.DATA['<script>x</script>|`\u001b[31m']";
    doc.verdict.copied = { ...doc.verdict.copied!, objects: [{ ...doc.verdict.copied!.objects[0]!, name: hostile }] };
    expect(renderVerdict(doc, false)).not.toContain("\u001b[31m");
    expect(copiedPanel(doc.verdict)).not.toContain("<script>");
    expect(stepSummary(doc)).not.toContain("<script>");
  });

  it("the JSON schema takes the field, and refuses a container without its `how`", async () => {
    const validate = verdictValidator();
    const doc: VerdictDocument = await recorded();
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
    const { how: _, ...noHow } = doc.verdict.copied!.objects[0]!;
    const broken = { ...doc, verdict: { ...doc.verdict, copied: { ...doc.verdict.copied!, objects: [noHow] } } };
    expect(validate(broken)).toBe(false);
  });
});
