/**
 * The terminal report of one real recording per verdict kind, at 80 columns and without colour, kept as accepted in
 * fixtures/terminal/ (a change to what users read is a reviewed change: `npx vitest run test/unit/report -u`, then
 * `git diff fixtures/terminal`). Every line fits the 80 columns.
 */
import { describe, expect, it } from "vitest";
import { renderVerdict } from "../../../../src/report/terminal/verdict-text.js";
import { displayWidth } from "../../../../src/report/text-width.js";
import { readFileSync } from "node:fs";
import { FIXTURES, REPO } from "../../../helpers/fixtures.js";
import { analyze } from "../../../helpers/analyze.js";
import { analyzeRecording } from "../../../../src/recording/replay.js";

const BY_KIND = [
  ["leak", "leak_main.jsonl"],
  ["leak", "torch_losses_leak.jsonl"],
  ["fragmentation", "frag_burst.jsonl"],
  ["cgroup-artefact", "log_page_cache.jsonl"],
  ["cow", "fork_cow.jsonl"],
  ["plateau", "bounded_cache.jsonl"],
  ["stable", "steady_noisy.jsonl"],
  ["insufficient-data", "gc_cycles_raised.jsonl"],
] as const;

describe("the terminal report at 80 columns, one recording per verdict kind", () => {
  it.each(BY_KIND)("%s: %s", async (kind, name) => {
    const { doc, set } = await analyze(name);
    expect(doc.verdict.kind).toBe(kind);
    const text = renderVerdict(doc, false, set, 80);
    expect(text.split("\n").filter((l) => displayWidth(l) > 80)).toEqual([]);
    await expect(text).toMatchFileSnapshot(`${FIXTURES}terminal/${name.replace(/\.jsonl$/, ".txt")}`);
  });
});

describe("the README's quick start", () => {
  const readme = () => readFileSync(`${REPO}README.md`, "utf8");
  const report = async (path: string, lines: number) => {
    const { doc, set } = await analyzeRecording(path);
    return renderVerdict(doc, false, set, 80).split("\n").slice(0, lines).join("\n").trimEnd();
  };
  // The README shows these reports as the terminal prints them: a change to the words must change the README too
  // (the block is the tool's output; regenerate it with `memleak analyze … ` at COLUMNS=80 NO_COLOR=1).
  it.each([
    [`${FIXTURES}docs/leak_main.jsonl`, Infinity],
    [`${FIXTURES}recordings/steady_noisy.jsonl`, 10],
  ] as const)("shows %s's report as memleak prints it", async (path, lines) => {
    expect(readme()).toContain("```\n" + (await report(path, lines)) + "\n```");
  });

  it("the quick start's report is the quick-start command's own, recorded by today's memleak: the holder named", async () => {
    const header = JSON.parse(readFileSync(`${FIXTURES}docs/leak_main.jsonl`, "utf8").split("\n")[0]!) as {
      target: { command: string[] };
      memleakVersion: string;
    };
    expect(readme()).toContain(`npx memleak run --record leak.jsonl -- ${header.target.command.join(" ")}`);
    const { doc } = await analyzeRecording(`${FIXTURES}docs/leak_main.jsonl`);
    expect(doc.verdict).toMatchObject({ kind: "leak", evidence: { holder: "__main__.history" } });
  });
});
