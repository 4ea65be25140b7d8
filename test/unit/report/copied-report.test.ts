/**
 * What a copying worker copied in every report (Finding.copied, issue 51): the terminal's "what it copied", the HTML
 * panel, the step summary and the JSON schema, on the recorded DataLoader run; and names from the watched program
 * (its globals, its dataset's attributes) escaped as each report must.
 */
import { describe, expect, it } from "vitest";
import type { VerdictDocument } from "../../../src/analysis/types.js";
import { stepSummary } from "../../../src/report/github.js";
import { copiedPanel } from "../../../src/report/html/copied-panel.js";
import { renderVerdict } from "../../../src/report/terminal/verdict-text.js";
import { analyzedDoc } from "../../helpers/analyzed-once.js";
import { FIXTURES } from "../../helpers/fixtures.js";
import { verdictValidator } from "../../helpers/verdict-schema.js";

const recorded = () => analyzedDoc(`${FIXTURES}recordings/cow_dataloader.jsonl`);
const DATASET = "the DataLoader's dataset (TextDataset).samples";

describe("what it copied, in the reports", () => {
  it("the terminal: the share named, each container with how it was copied, and the look's cost", async () => {
    const text = renderVerdict(await recorded(), false, undefined, 120);
    // of what was private to it when it looked, the same moment as the containers' figures (less the look's own)
    expect(text).toMatch(
      /\nwhat it copied\n  PID \d+: 20\.4 MiB of the 35\.4 MiB private to it when it looked is in these containers\n/,
    );
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
    expect(md).toMatch(
      /\*\*What it copied:\*\* PID \d+: 20\.4 MiB of the 35\.4 MiB private to it when it looked is in/,
    );
    expect(md).toContain(`- ${DATASET} (list of str, 400,000 items): ~20.4 MiB private of 43.1 MiB`);
    const html = copiedPanel(doc.verdict);
    expect(html).toContain('<section class="sites copied" id="copied"><h2>What it copied</h2>');
    expect(html).toContain(`<td><code>the DataLoader&#39;s dataset (TextDataset).samples</code></td>`);
    expect(html).toContain("<td>copied as the worker reads its items (reference counts)</td>");
  });

  // A user's DataLoader worker had copied 84 MiB before memleak's first reading: "64.1 MiB of the 15.2 MiB it copied".
  it("without the look's reading of Private_Dirty (an older agent), never more named than copied", async () => {
    const doc = await recorded();
    const { privateAtLook: _, ...older } = doc.verdict.copied!;
    doc.verdict.copied = { ...older, copied: 15 * 2 ** 20 };
    expect(renderVerdict(doc, false, undefined, 200)).toMatch(
      /PID \d+: 20\.4 MiB of what it copied is in these containers/,
    );
    doc.verdict.copied = { ...older, copied: 30 * 2 ** 20 };
    expect(renderVerdict(doc, false, undefined, 200)).toMatch(/PID \d+: 20\.4 MiB of the 30\.0 MiB it copied is in/);
  });

  it("a container whose items a larger one holds too says whose they are, in each report", async () => {
    const doc = await recorded();
    const first = doc.verdict.copied!.objects[0]!;
    const keys = { ...first, name: "__main__.KEYS", private: 0, how: "none" as const, sharedWith: first.name };
    doc.verdict.copied = { ...doc.verdict.copied!, objects: [first, keys] };
    const said = `__main__.KEYS (list of str, 400,000 items): its items are ${first.name}'s too, counted there`;
    expect(renderVerdict(doc, false, undefined, 300)).toContain(said);
    expect(stepSummary(doc)).toContain(said);
    expect(copiedPanel(doc.verdict)).toContain(
      "<td>its items are the DataLoader&#39;s dataset (TextDataset).samples&#39;s too, counted there</td>",
    );
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
