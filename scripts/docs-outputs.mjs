#!/usr/bin/env node
/**
 * The tool's output shown in docs/*.md, regenerated from the tool itself (issue 48: every output a page shows is what
 * memleak prints). A fenced block right after a line `<!-- output: ARGS -->` is what `memleak ARGS` prints, run from
 * the repository root on a captured tree or a recording in fixtures/ (so the same everywhere), without colour and not
 * on a terminal (80 columns), stdout then stderr, under a first line `$ memleak ARGS`. test/e2e/docs-outputs.test.ts
 * fails when a page and the tool differ; `node scripts/docs-outputs.mjs` rewrites the pages (after `npm run build`).
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = join(dirname(fileURLToPath(import.meta.url)), "..");
const MARKER = /^<!-- output: (.+?) -->\n```[a-z]*\n([\s\S]*?)```$/gm;

/** Each marked block of a page: the arguments, and the text the block holds now. */
export function markedBlocks(page) {
  return [...page.matchAll(MARKER)].map((m) => ({ args: m[1], shown: m[2] }));
}

/** What `memleak ARGS` prints, as a block shows it. */
export function outputOf(args) {
  let stdout = "";
  let stderr = "";
  try {
    stdout = execFileSync(process.execPath, [join(REPO, "bin/memleak.js"), ...args.split(" ")], {
      cwd: REPO,
      env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (err) {
    stdout = err.stdout ?? "";
    stderr = err.stderr ?? "";
  }
  const text = `$ memleak ${args}\n${stdout}${stderr}`;
  return text.endsWith("\n") ? text : `${text}\n`;
}

/** The pages under docs/ with at least one marked block. */
export function markedPages() {
  return readdirSync(join(REPO, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => join("docs", f))
    .filter((p) => markedBlocks(readFileSync(join(REPO, p), "utf8")).length > 0);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const page of markedPages()) {
    const path = join(REPO, page);
    const text = readFileSync(path, "utf8");
    const out = text.replace(
      MARKER,
      (_all, args, _shown) => `<!-- output: ${args} -->\n\`\`\`\n${outputOf(args)}\`\`\``,
    );
    if (out !== text) {
      writeFileSync(path, out);
      console.log(`docs-outputs: ${page} rewritten`);
    }
  }
}
