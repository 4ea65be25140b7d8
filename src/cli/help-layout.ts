/**
 * `memleak --help`, `<command> --help` and `--version` without loading commander or the option table: a third of
 * the start-up of a bare `node` was spent building the program only to print a fixed text (issue 32). The help is
 * commander's own, recorded at build time (help-model.ts) with its two width-dependent steps left open — each
 * option's line (term padded, description wrapped) and the command's wrapped description — and laid out here at the
 * width commander would use, with commander's rules. test/unit/cli/help-layout.test.ts holds the two against each
 * other at many widths; anything this does not recognise goes the whole way through commander.
 * This file imports nothing of memleak's: bin/memleak.js loads it before everything else.
 */
import { readFileSync } from "node:fs";

/** A piece of recorded help: fixed text, an option/command line, or a paragraph to wrap at the help's width. */
export type HelpPart = string | { item: [term: string, description: string] } | { wrap: string };

export interface RecordedHelp {
  /** commander's padWidth: the longest term of the command's lists. */
  termWidth: number;
  parts: HelpPart[];
}

/** What the build writes: each command's help ("" for the program's own), and --version's answer. */
export interface HelpModel {
  version: string;
  help: Record<string, RecordedHelp>;
}

/** commander's Help.minWidthToWrap: narrower than this, text is not wrapped. */
const MIN_WIDTH_TO_WRAP = 40;

/** commander's Help.boxWrap: wrap at whitespace, keeping the string's own line breaks. */
export function boxWrap(str: string, width: number): string {
  if (width < MIN_WIDTH_TO_WRAP) return str;
  const wrapped: string[] = [];
  for (const line of str.split(/\r\n|\n/)) {
    const chunks = line.match(/[\s]*[^\s]+/g);
    if (chunks === null) {
      wrapped.push("");
      continue;
    }
    let sum = [chunks[0]!];
    let sumWidth = chunks[0]!.length;
    for (const chunk of chunks.slice(1)) {
      if (sumWidth + chunk.length <= width) {
        sum.push(chunk);
        sumWidth += chunk.length;
        continue;
      }
      wrapped.push(sum.join(""));
      const next = chunk.trimStart();
      sum = [next];
      sumWidth = next.length;
    }
    wrapped.push(sum.join(""));
  }
  return wrapped.join("\n");
}

/** commander's Help.formatItem: the term padded to `termWidth`, the description wrapped beside it. */
export function formatItem(term: string, termWidth: number, description: string, helpWidth: number): string {
  if (!description) return `  ${term}`;
  const remaining = helpWidth - termWidth - 4;
  let text = description;
  // A description with its own indented line breaks is preformatted: commander leaves it alone.
  if (remaining >= MIN_WIDTH_TO_WRAP && !/\n[^\S\r\n]/.test(description)) {
    text = boxWrap(description, remaining).replace(/\n/g, `\n${" ".repeat(termWidth + 2)}`);
  }
  return `  ${term.padEnd(termWidth)}  ${text.replace(/\n/g, "\n  ")}`;
}

/** The recorded help laid out at `helpWidth` columns. */
export function layOut(recorded: RecordedHelp, helpWidth: number): string {
  return recorded.parts
    .map((p) =>
      typeof p === "string"
        ? p
        : "item" in p
          ? formatItem(p.item[0], recorded.termWidth, p.item[1], helpWidth)
          : boxWrap(p.wrap, helpWidth),
    )
    .join("");
}

const COMMAND_NAMES = new Set(["snapshot", "watch", "run", "pytest", "analyze"]);

/**
 * The help or version `args` ask for, when they ask for nothing else: `--help`, `-h`, `<command> --help|-h`,
 * `--version`, `-V`. undefined for anything else, or when the build wrote no model (then commander answers).
 * `columns` is stdout's width when it is a terminal, as commander reads it.
 */
export function fastAnswer(args: readonly string[], columns: number | undefined, modelFile: URL): string | undefined {
  const wantsHelp = (a: string | undefined) => a === "--help" || a === "-h";
  let key: string | undefined;
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) key = "--version";
  else if (args.length === 1 && wantsHelp(args[0])) key = "";
  else if (args.length === 2 && COMMAND_NAMES.has(args[0]!) && wantsHelp(args[1])) key = args[0]!;
  if (key === undefined) return undefined;
  let model: HelpModel;
  try {
    model = JSON.parse(readFileSync(modelFile, "utf8")) as HelpModel;
  } catch {
    return undefined;
  }
  if (key === "--version") return `${model.version}\n`;
  const recorded = model.help[key];
  return recorded && layOut(recorded, columns ?? 80);
}
