/**
 * `analyze` on random and adversarial recordings — CI often analyzes recordings it did not make. Each mutant of a
 * real recording either is refused with one clear message (exit 2) or is analyzed, and then no output carries a raw
 * control character or live markup: the terminal report, the JSON, the HTML, GitHub's workflow commands, the step
 * summary, and memleak's own stderr lines. Seeded: a failure names its seed.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { analyzeRecording } from "../../../src/recording/replay.js";
import { mulberry32 } from "../../../src/analysis/stats/random.js";
import { MemleakError } from "../../../src/base/errors.js";
import { jsonText, report } from "../../../src/session/finish.js";
import { fakeIO } from "../../helpers/command-io.js";
import { evaluateGates } from "../../../src/gates/gates.js";
import { annotations, stepSummary } from "../../../src/report/github.js";
import { renderHtml } from "../../../src/report/html/index.js";
import { FIXTURES } from "../../helpers/fixtures.js";
import { tempDir } from "../../helpers/temp.js";

const dir = tempDir("fuzz");
const base = readFileSync(`${FIXTURES}recordings/leak_worker.jsonl`, "utf8").trimEnd().split("\n");
// C0 and C1 controls, DEL; what the outputs must never carry raw (tab and newline are the outputs' own).
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

const NASTY = [
  "\u001b[2J\u001b]0;pwned\u0007",
  "a\nb\r\n::error::x",
  "`<img src=x onerror=alert(1)>`",
  "</script><script>alert(1)</script>",
  "\u009b31m",
  "x".repeat(100_000),
  "|",
  "%0A",
];
const NUMBERS = [-1, -1e9, 1e308, 0, 2 ** 53, 3.5];

function mutate(lines: string[], rnd: () => number, many: boolean): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const out = [...lines];
  // A few mutations, or many (a file more broken than a kill or a bit flip makes: it must be refused, clearly).
  const n = many ? 30 : 1 + Math.floor(rnd() * 6);
  for (let i = 0; i < n; i++) {
    const at = 1 + Math.floor(rnd() * (out.length - 1));
    const kind = Math.floor(rnd() * 7);
    if (kind === 0)
      out[at] = out[at]!.replace(
        /"(comm|command|cmdline)":("[^"]*"|\[[^\]]*\])/g,
        (_m, k: string) => `"${k}":${JSON.stringify(k === "comm" ? pick(NASTY) : [pick(NASTY), pick(NASTY)])}`,
      );
    else if (kind === 1)
      out[at] = out[at]!.replace(/"(rss|anon|pss|uss|usage)":\d+/, (_m, k: string) => `"${k}":${pick(NUMBERS)}`);
    else if (kind === 2) out.splice(at, 1);
    else if (kind === 3)
      out.splice(
        at,
        0,
        pick([
          "garbage",
          "{",
          "[]",
          "null",
          '{"type":"sample"}',
          JSON.stringify({ type: "event", t: 1, event: pick(NASTY), detail: { pid: 5, cmdline: [pick(NASTY)] } }),
        ]),
      );
    else if (kind === 4) out[at] = out[at]!.slice(0, Math.floor(rnd() * out[at]!.length));
    else if (kind === 5) out.splice(at, 0, out[at]!);
    else out[at] = out[at]!.replace(/"t":\d+/, `"t":${pick([-5, 0, 1e20])}`);
  }
  // Names from the target, everywhere they can appear.
  if (rnd() < 0.5)
    out[0] = out[0]!.replace(/"command":\[[^\]]*\]/, `"command":${JSON.stringify([pick(NASTY), pick(NASTY)])}`);
  return out.join("\n") + (rnd() < 0.5 ? "\n" : "");
}

describe("analyze on adversarial recordings", () => {
  it("120 mutants: a clear refusal or an analysis whose every output is inert", { timeout: 120_000 }, async () => {
    let refused = 0;
    let analyzed = 0;
    for (let seed = 1; seed <= 120; seed++) {
      const file = `${dir}/m${seed}.jsonl`;
      writeFileSync(file, mutate(base, mulberry32(seed), seed % 5 === 0));
      let result;
      try {
        result = await analyzeRecording(file);
      } catch (err) {
        expect(err, `seed ${seed}`).toBeInstanceOf(MemleakError);
        expect((err as MemleakError).exitCode, `seed ${seed}`).toBe(2);
        expect((err as MemleakError).message, `seed ${seed}`).not.toMatch(RAW_CONTROL);
        refused++;
        continue;
      }
      analyzed++;
      const { doc, set, commands } = result;
      doc.gates = evaluateGates(doc, set, { metric: "pss", perProcess: false, failOn: ["leak", "stable", "plateau"] });
      const out: string[] = [];
      const err: string[] = [];
      const summary = `${dir}/s${seed}.md`;
      report(
        doc,
        false,
        fakeIO({
          stdout: (t) => void out.push(t),
          stderr: (t) => void err.push(t),
          env: { GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: summary },
        }),
        { set, commands },
      );
      const outputs = {
        terminal: out.join(""),
        stderr: err.join(""),
        json: jsonText(doc),
        html: renderHtml(doc, set, { commands }),
        annotations: annotations(doc),
        summary: readFileSync(summary, "utf8") + stepSummary(doc),
      };
      for (const [name, text] of Object.entries(outputs))
        expect(text, `seed ${seed}: ${name}`).not.toMatch(RAW_CONTROL);
      // Workflow commands start only where memleak starts them.
      for (const line of (outputs.terminal + outputs.stderr).split("\n"))
        if (line.startsWith("::"))
          expect(line, `seed ${seed}`).toMatch(/^::(error|warning) (file=[^,]*,line=\d+,)?title=memleak[^:]*::/);
      expect(outputs.summary, `seed ${seed}`).not.toMatch(/<img|<script|\]\(/);
      expect(outputs.html.match(/<script/g)!.length, `seed ${seed}: only memleak's own scripts`).toBe(
        renderHtml(doc, set).match(/<script/g)!.length,
      );
      JSON.parse(outputs.json);
    }
    // Both paths were taken (the mutations are not all fatal, nor all harmless).
    expect(refused).toBeGreaterThan(5);
    expect(analyzed).toBeGreaterThan(20);
  });
});
