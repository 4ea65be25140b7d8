#!/usr/bin/env node
/**
 * The tool's output shown in docs/*.md, regenerated from the tool itself (issue 48: every output a page shows is what
 * memleak prints). A fenced block right after a line `<!-- output: ARGS -->` is what `memleak ARGS` prints, run from
 * the repository root on a captured tree or a recording in fixtures/ (so the same everywhere), without colour and not
 * on a terminal (80 columns), stdout then stderr, under a first line `$ memleak ARGS`. test/e2e/docs-outputs.test.ts
 * fails when a page and the tool differ; `node scripts/docs-outputs.mjs` rewrites the pages (after `npm run build`).
 *
 * A page that shows a part of the output says which after a `|`, and the block holds that part only (no `$` line):
 *   `<!-- output: ARGS | paragraph PREFIX -->`  the lines from the first that starts with PREFIX to the next blank one;
 *   `<!-- output: ARGS | json PATH -->`         the value at PATH (dotted keys; a number is a list's index) of the
 *                                              JSON document ARGS prints, as `"key": value` (a list's item: the value
 *                                              alone), indented by two spaces.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = join(dirname(fileURLToPath(import.meta.url)), "..");
const MARKER = /^<!-- output: (.+?) -->\n```([a-z]*)\n([\s\S]*?)```$/gm;

/** Each marked block of a page: the arguments, and the text the block holds now. */
export function markedBlocks(page) {
  return [...page.matchAll(MARKER)].map((m) => ({ args: m[1], shown: m[3] }));
}

/** What `memleak ARGS` prints, as a block shows it: whole, or the part a `| FILTER` names. */
export function outputOf(marked) {
  const [args, filter] = marked.split(" | ");
  if (filter === undefined) return printed(args);
  const [how, ...rest] = filter.split(" ");
  const what = rest.join(" ");
  const { stdout } = run(args);
  if (how === "paragraph") {
    const lines = stdout.split("\n");
    const start = lines.findIndex((l) => l.startsWith(what));
    if (start < 0) throw new Error(`docs-outputs: no line of \`memleak ${args}\` starts with "${what}"`);
    const end = lines.findIndex((l, i) => i > start && l.trim() === "");
    return `${lines.slice(start, end < 0 ? undefined : end).join("\n")}\n`;
  }
  if (how === "json") {
    let value = JSON.parse(stdout);
    for (const key of what.split(".")) value = value?.[key];
    if (value === undefined) throw new Error(`docs-outputs: \`memleak ${args}\` has no ${what}`);
    const key = what.split(".").at(-1);
    return `${/^\d+$/.test(key) ? "" : `"${key}": `}${JSON.stringify(value, null, 2)}\n`;
  }
  throw new Error(`docs-outputs: unknown filter "${filter}" (paragraph PREFIX, json PATH)`);
}

/** stdout and stderr of `memleak ARGS`, whatever its exit code. */
function run(args) {
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
  return { stdout, stderr };
}

/** The whole of what `memleak ARGS` prints, under a first line `$ memleak ARGS`. */
function printed(args) {
  const { stdout, stderr } = run(args);
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
      (_all, args, language, _shown) => `<!-- output: ${args} -->\n\`\`\`${language}\n${outputOf(args)}\`\`\``,
    );
    if (out !== text) {
      writeFileSync(path, out);
      console.log(`docs-outputs: ${page} rewritten`);
    }
  }
}
