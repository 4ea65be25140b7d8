/**
 * `npm run calibrate`: fits memleak's calibrated confidence (issue 46; src/analysis/calibration.ts) on the labelled
 * corpus's recordings and writes src/analysis/calibration-table.ts; then checks it on the programs held back from the
 * fit (leave one program out: test/helpers/calibration-fit.ts `outOfSample`), and on live runs of
 * `npm run accuracy -- --json` given with --live (runs the fit never saw: those carry the raw score and its family; a
 * run with no verdict makes no claim to calibrate — the accuracy table counts it wrong).
 *
 *   npm run calibrate -- [--step 3] [--check] [--live accuracy.json …]
 *
 * --check writes nothing: exit 1 if the table in the source is not the one the recordings give (a verdict changed and
 * the table was not refitted). Run `npm run build` after a refit: the verdicts' documents (fixtures/verdicts) change
 * with it, `npx vitest run --project unit test/unit/analysis/verdict-golden.test.ts -u` rewrites them.
 */
import { execSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as prettier from "prettier";
import { REPO } from "./lib/util.mjs";
import { loadCorpus } from "../build/support/test/helpers/corpus.js";
import {
  clusteredBins,
  fitTable,
  outOfSample,
  saidThrough,
  tableSource,
} from "../build/support/test/helpers/calibration-fit.js";
import { labelledRecordings, scoresOf } from "../build/support/test/helpers/calibration-scores.js";

export const TABLE = join(REPO, "src/analysis/calibration-table.ts");
export const DEFAULT_STEP = 3;

function options(argv) {
  const o = { step: DEFAULT_STEP, check: false, live: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--step") o.step = Number(argv[++i]);
    else if (a === "--check") o.check = true;
    else if (a === "--live") o.live.push(argv[++i]);
    else throw new Error(`calibrate: unknown option ${a}`);
  }
  if (!(o.step > 0)) throw new Error("calibrate: --step needs a number of seconds above 0");
  return o;
}

/** Bins with intervals over programs (calibration-fit.ts clusteredBins). */
const binned = (title, items) =>
  [
    `**${title}**`,
    "",
    "| said | verdicts | programs | mean said | right | 95% interval (programs resampled) | within it |",
    "| --- | ---: | ---: | ---: | ---: | --- | --- |",
    ...clusteredBins(items).map(
      (b) =>
        `| ${pct(b.from)}–${pct(b.to)} | ${b.n} | ${b.programs} | ${pct(b.meanSaid)} | ${pct(b.share)} | ${pct(b.low)}–${pct(b.high)} | ${b.calibrated ? "yes" : "**no**"} |`,
    ),
  ].join("\n");
const pct = (x) => `${Math.round(x * 100)}%`;

/** Each verdict with a claim at what the table says. */
const said = (scores, table) =>
  saidThrough(
    scores.filter((s) => s.raw > 0),
    table,
  );

async function main() {
  const o = options(process.argv.slice(2));
  const corpus = loadCorpus(REPO);
  const { labelled, unlabelled } = labelledRecordings(REPO, corpus);
  for (const u of unlabelled) process.stderr.write(`calibrate: left out ${u.file}: ${u.why}\n`);
  const scores = [];
  for (const r of labelled) scores.push(...(await scoresOf(REPO, r, o.step)));
  const commit = execSync("git rev-parse --short HEAD", { cwd: REPO }).toString().trim();
  const fittedOn = `${labelled.length} recordings of ${new Set(labelled.map((r) => r.entry.name)).size} programs, cut every ${o.step} s (fixtures/recordings, fixtures/calibration/recordings), verdicts of ${commit}`;
  const table = fitTable(scores, fittedOn);
  // Written as prettier writes it, so that `npm test`'s format check and --check agree.
  const source = await prettier.format(tableSource(table), {
    ...(await prettier.resolveConfig(TABLE)),
    filepath: TABLE,
  });
  const current = readFileSync(TABLE, "utf8");
  // The commit named in fittedOn is the only part that may differ.
  const same = current.replace(/verdicts of [0-9a-f]+/, "") === source.replace(/verdicts of [0-9a-f]+/, "");
  if (o.check) {
    if (!same) {
      process.stderr.write("calibrate: src/analysis/calibration-table.ts is not what the recordings give: refit it\n");
      process.exitCode = 1;
    } else process.stderr.write("calibrate: the table is what the recordings give\n");
  } else if (!same) writeFileSync(TABLE, source);

  const checked = outOfSample(scores).filter((s) => s.raw > 0);
  const claims = scores.filter((s) => s.raw > 0);
  const c = table.check;
  const out = [
    `Fitted on ${claims.length} verdicts with a claim (of ${scores.length} cuts) of ${c.programs} programs. Checked out of sample (each program said through a fit without it): Brier score ${c.calibratedBrier}, against ${c.rawBrier} for the raw scores (lower is better): ${Object.keys(table.families).length ? "adopted" : "not adopted, every confidence stays the rule's own"}.`,
    "",
    ...Object.entries(table.families).map(
      ([f, curve]) =>
        `- ${f}: ${curve.points.map((p) => `${p.raw.toFixed(2)} → ${p.value.toFixed(2)} (${p.n})`).join(", ")}; ${curve.right} of ${curve.n} right.`,
    ),
    ...Object.entries(table.saidRaw ?? {}).map(([f, why]) => `- ${f} is said raw: ${why}.`),
    "",
    binned(
      "Raw scores",
      claims.map((s) => ({ program: s.program, said: s.raw, right: s.right })),
    ),
    "",
    binned("Calibrated, out of sample", checked),
  ];
  for (const file of o.live) {
    const runs = JSON.parse(readFileSync(file, "utf8")).runs.filter((r) => r.family !== undefined);
    const live = runs.map((r) => ({
      program: r.name,
      family: r.family,
      raw: r.rawConfidence ?? r.confidence ?? 0,
      right: r.right,
    }));
    out.push("", binned(`Live runs of ${file}, calibrated`, said(live, table)));
  }
  process.stdout.write(`${out.join("\n")}\n`);
}

main().catch((err) => {
  process.stderr.write(`calibrate: ${err.message}\n`);
  process.exit(2);
});
