/**
 * The advice texts are written as markdown (src/advice/<kind>.md) and read by the analysis as data: this writes them
 * into src/advice/texts.ts, so that the analysis reads no file at run time (it is pure: samples in, verdict out) and
 * the package needs no path back to src/. `npm run build` runs it first; test/unit/advice/texts.test.ts fails when
 * texts.ts is not what the .md files say.
 * Usage: node scripts/inline-advice.mjs
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const ADVICE = fileURLToPath(new URL("../src/advice/", import.meta.url));

/** The TypeScript module holding every .md file of `dir`, by kind (the file's name). */
export function adviceModule(dir = ADVICE) {
  const kinds = readdirSync(dir)
    .filter((f) => f.endsWith(".md"))
    .sort();
  const entries = kinds.map(
    (f) => `  ${JSON.stringify(f.replace(/\.md$/, ""))}: ${JSON.stringify(readFileSync(`${dir}${f}`, "utf8"))},`,
  );
  return [
    "// Written by scripts/inline-advice.mjs from src/advice/*.md (edit those; `npm run build` rewrites this file).",
    "export const ADVICE_TEXTS: Readonly<Record<string, string>> = {",
    ...entries,
    "};",
    "",
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeFileSync(`${ADVICE}texts.ts`, adviceModule());
