#!/usr/bin/env node
/**
 * Moves every threshold of the verdict engine and checks that a test notices: the complement of StrykerJS (npm run
 * mutation), which changes operators and deletes clauses but never a number.
 *
 * Every `export const NAME = <number>;` in src/analysis (and src/series/enough-samples.ts) (the thresholds are exported so tests and messages name
 * the same numbers) is halved and doubled in turn — integers stay integers — in a copy of the repository, and the
 * analysis unit tests (vitest.mutation.config.ts) run against each. A move no test fails is a threshold no test
 * pins. The working tree is never touched.
 *
 *   node scripts/threshold-mutation.mjs [NAME…]     only these constants
 *   --json FILE                                      also write the results as JSON
 *
 * Exits 1 when a move survives.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

const ROOT = new URL("..", import.meta.url).pathname;
const CONFIG = "vitest.mutation.config.ts";
/**
 * Constants that are not thresholds: amounts of work (pairs sampled, points the shape detectors thin to), unit
 * scales and interval levels. Moving them changes cost or resolution, by design not verdicts.
 */
const NOT_THRESHOLDS = new Set([
  "MAX_EXACT_PAIRS",
  "SAMPLED_PAIRS",
  "SHAPE_MAX_POINTS",
  "MAD_SCALE",
  "DEFAULT_CONFIDENCE",
  "DEFAULT_CAPACITY",
]);

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith(".ts") ? [p] : [];
  });
}

/** `export const NAME = expr;` where expr is arithmetic on number literals (64 * 2 ** 20, 1 / 3, 0.25). */
function findConstants() {
  const found = [];
  // The analysis's thresholds, and the shortest series it judges (kept beside the series, which use it too).
  for (const file of [...walk(join(ROOT, "src/analysis")), join(ROOT, "src/series/enough-samples.ts")]) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/^export const ([A-Z][A-Z0-9_]*) = ([0-9_.\s*/+()-]+);$/gm)) {
      if (NOT_THRESHOLDS.has(m[1])) continue;
      const value = Function(`return (${m[2].replaceAll("_", "")})`)();
      if (typeof value === "number" && Number.isFinite(value) && value !== 0)
        found.push({ file: relative(ROOT, file), name: m[1], expr: m[2], value });
    }
  }
  return found;
}

function moves(value) {
  const integer = Number.isInteger(value);
  // integers stay integers: 1 → 2 only (halving 1 is no move), 3 → 1 and 6
  return [...new Set([value / 2, value * 2].map((v) => (integer ? Math.max(1, Math.floor(v)) : v)))].filter(
    (v) => v !== value,
  );
}

function sandbox() {
  const dir = mkdtempSync(join(tmpdir(), "memleak-thresholds-"));
  for (const name of ["src", "test", "package.json", "tsconfig.json", CONFIG])
    cpSync(join(ROOT, name), join(dir, name), { recursive: true });
  for (const name of ["node_modules", "fixtures"]) symlinkSync(join(ROOT, name), join(dir, name));
  return dir;
}

function runTests(dir) {
  const r = spawnSync(
    "npx",
    ["vitest", "run", "--config", CONFIG, "--bail", "1", "--reporter", "json", "--outputFile", "result.json"],
    { cwd: dir, encoding: "utf8", env: { ...process.env, CALIBRATION: "1" } },
  );
  let failed = [];
  try {
    const json = JSON.parse(readFileSync(join(dir, "result.json"), "utf8"));
    failed = json.testResults.flatMap((f) =>
      f.assertionResults.filter((a) => a.status === "failed").map((a) => a.fullName),
    );
  } catch {
    failed = r.status === 0 ? [] : [`(vitest exited ${r.status})`];
  }
  return failed;
}

function main() {
  const args = process.argv.slice(2);
  const jsonAt = args.indexOf("--json");
  const jsonFile = jsonAt >= 0 ? args.splice(jsonAt, 2)[1] : undefined;
  const only = new Set(args);
  const constants = findConstants().filter((c) => only.size === 0 || only.has(c.name));
  const dir = sandbox();
  const results = [];
  try {
    if (runTests(dir).length > 0) throw new Error("the tests fail before any threshold is moved");
    for (const c of constants) {
      const path = join(dir, c.file);
      const original = readFileSync(path, "utf8");
      for (const to of moves(c.value)) {
        writeFileSync(path, original.replace(`export const ${c.name} = ${c.expr};`, `export const ${c.name} = ${to};`));
        const failed = runTests(dir);
        const r = {
          name: c.name,
          file: c.file,
          from: c.value,
          to,
          killed: failed.length > 0,
          by: failed.slice(0, 3),
          failures: failed.length,
        };
        results.push(r);
        process.stdout.write(
          `${r.killed ? "killed  " : "SURVIVED"} ${c.name} ${c.value} → ${to}${r.killed ? `  (${failed.length}: ${failed[0]})` : ""}\n`,
        );
      }
      writeFileSync(path, original);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const killed = results.filter((r) => r.killed).length;
  process.stdout.write(`\n${killed} of ${results.length} threshold moves killed (${constants.length} constants)\n`);
  if (jsonFile)
    writeFileSync(
      jsonFile,
      JSON.stringify(
        {
          date: new Date().toISOString(),
          commit: execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim(),
          killed,
          total: results.length,
          results,
        },
        null,
        2,
      ) + "\n",
    );
  process.exitCode = killed === results.length ? 0 : 1;
}

main();
