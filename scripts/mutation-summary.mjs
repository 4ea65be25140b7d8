#!/usr/bin/env node
/**
 * StrykerJS JSON reports → the table MUTATION.md keeps: per file, mutants killed (or timed out), survived and not
 * covered, and the score (killed + timed out) / (all but ignored, compile and runtime errors), as Stryker counts it.
 * Several reports (runs over parts of src/analysis) are merged; a file in more than one keeps its latest run.
 *
 *   node scripts/mutation-summary.mjs reports/mutation/*.json
 */
import { readFileSync, statSync } from "node:fs";

const DETECTED = new Set(["Killed", "Timeout"]);
const UNDETECTED = new Set(["Survived", "NoCoverage"]);

const files = new Map();
const reports = process.argv.slice(2).sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs);
for (const path of reports) {
  const report = JSON.parse(readFileSync(path, "utf8"));
  for (const [file, { mutants }] of Object.entries(report.files)) files.set(file, mutants);
}

const rows = [];
const total = { killed: 0, survived: 0, noCoverage: 0 };
for (const [file, mutants] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
  const killed = mutants.filter((m) => DETECTED.has(m.status)).length;
  const survived = mutants.filter((m) => m.status === "Survived").length;
  const noCoverage = mutants.filter((m) => m.status === "NoCoverage").length;
  const counted = mutants.filter((m) => DETECTED.has(m.status) || UNDETECTED.has(m.status)).length;
  total.killed += killed;
  total.survived += survived;
  total.noCoverage += noCoverage;
  rows.push(
    `| ${file.replace(/^.*src\//, "src/")} | ${killed} | ${survived} | ${noCoverage} | ${counted ? ((100 * killed) / counted).toFixed(1) : "–"}% |`,
  );
}
const all = total.killed + total.survived + total.noCoverage;
console.log("| file | killed | survived | no coverage | score |");
console.log("| --- | ---: | ---: | ---: | ---: |");
for (const r of rows) console.log(r);
console.log(
  `| **all** | **${total.killed}** | **${total.survived}** | **${total.noCoverage}** | **${all ? ((100 * total.killed) / all).toFixed(1) : "–"}%** |`,
);
