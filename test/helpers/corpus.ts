/**
 * The labelled corpus (issue 46): every program memleak's verdicts are measured on, with what is true of it. Two
 * sources, one format:
 *   - the scenario and calibration scripts (fixtures/scenarios, fixtures/calibration; `_*.py` are helpers), labelled by
 *     their leading comment lines: `# expect: KIND`, and optionally `# subject:`, `# layer:`, `# holder:`,
 *     `# modes: run,watch`, `# python:` (or a `#!` line), `# seconds:`;
 *   - fixtures/corpus.json, for programs that take arguments (fixtures/kept/kept.py's leaks and their fixed forms,
 *     fixtures/kept/missed.py, fixtures/libraries/'s programs and their fixes): one entry per program and arguments,
 *     the same labels as fields.
 * The label is the truth, even where memleak gets it wrong: a misjudgement found is added here with its right answer.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { VERDICT_KINDS, type VerdictKind } from "../../src/base/verdict-kinds.js";

/**
 * How a program is put under memleak: launched by `run`, or started first and attached to by `watch` — also from the
 * host while it runs in a PID namespace of its own (`container`: `unshare --pid --fork --mount-proc`, as a container's
 * processes do, pid 1 inside).
 */
export type Mode = "run" | "watch" | "container";
/** The modes a label can name. A label that names none gets run and watch, and container wherever it gets watch. */
export const MODES: readonly Mode[] = ["run", "watch", "container"];
const DEFAULT_MODES: readonly Mode[] = ["run", "watch"];

/** Whether `mode` applies to a program: a container's watch is a watch, so wherever watch does (or where named). */
export function appliesIn(e: Pick<CorpusEntry, "modes">, mode: Mode): boolean {
  return e.modes.includes(mode) || (mode === "container" && e.modes.includes("watch"));
}

/** Which subject the verdict must name: the launched (or watched) process, one of its children, the tree, the cgroup. */
export type SubjectLabel = "root" | "worker" | "tree" | "cgroup";
const SUBJECTS: readonly SubjectLabel[] = ["root", "worker", "tree", "cgroup"];

export interface CorpusEntry {
  /** Unique: the script's name, or the manifest's. */
  name: string;
  /** The program, relative to the repository. */
  file: string;
  /** Its arguments; "{seconds}" is replaced by how long it is to run. */
  args: string[];
  /** The interpreter argv ("python3": pyenv's, on PATH). */
  python: string[];
  /** How long it runs, in seconds (the program's first argument unless args say otherwise). */
  seconds: number;
  expect: VerdictKind;
  subject?: SubjectLabel;
  /** The leak's layer (`evidence.layer`), where the label says. */
  layer?: string;
  /** The holder's path, where the label says. */
  holder?: string;
  modes: Mode[];
  /** A line the program prints once its start-up is done: a watch attaches after it (else after 2 s). */
  ready?: string;
}

/** Why a label cannot be read: the file and what is wrong, for the runner to print, never to skip silently. */
export class LabelError extends Error {}

function kindOf(value: string, where: string): VerdictKind {
  if (!(VERDICT_KINDS as readonly string[]).includes(value))
    throw new LabelError(`${where}: "${value}" is not a verdict kind (${VERDICT_KINDS.join(", ")})`);
  return value as VerdictKind;
}

function subjectOf(value: string | undefined, where: string): SubjectLabel | undefined {
  if (value === undefined) return undefined;
  if (!(SUBJECTS as readonly string[]).includes(value))
    throw new LabelError(`${where}: subject "${value}" is none of ${SUBJECTS.join(", ")}`);
  return value as SubjectLabel;
}

function modesOf(value: string | readonly string[] | undefined, where: string): Mode[] {
  if (value === undefined) return [...DEFAULT_MODES];
  const list = typeof value === "string" ? value.split(",").map((m) => m.trim()) : [...value];
  for (const m of list) if (!(MODES as readonly string[]).includes(m)) throw new LabelError(`${where}: mode "${m}"`);
  return list as Mode[];
}

/** An interpreter line ("#!/usr/bin/env python3", "/usr/bin/python3") as argv: `env` means the name on PATH. */
function interpreter(line: string): string[] {
  const words = line.trim().split(/\s+/);
  return words[0]!.endsWith("/env") ? words.slice(1) : words;
}

/** The labels in a script's leading comment block (its first lines, up to the first that is not a comment). */
export function parseLabels(text: string, file: string, defaultSeconds: number): Omit<CorpusEntry, "name" | "file"> {
  const raw: Record<string, string> = {};
  let python = "python3";
  for (const line of text.split("\n")) {
    if (line.startsWith("#!")) {
      python = line.slice(2);
      continue;
    }
    if (!line.startsWith("#")) break;
    const m = /^#\s*(expect|subject|layer|holder|modes|python|seconds|ready):\s*(.+?)\s*$/.exec(line);
    if (m) raw[m[1]!] = m[2]!;
  }
  if (raw.python !== undefined) python = raw.python;
  if (raw.expect === undefined) throw new LabelError(`${file}: no "# expect: KIND" line`);
  const seconds = raw.seconds === undefined ? defaultSeconds : Number(raw.seconds);
  if (!(seconds > 0)) throw new LabelError(`${file}: seconds "${raw.seconds}"`);
  const subject = subjectOf(raw.subject, file);
  return {
    args: ["{seconds}"],
    python: interpreter(python),
    seconds,
    expect: kindOf(raw.expect, file),
    ...(subject && { subject }),
    ...(raw.layer !== undefined && { layer: raw.layer }),
    ...(raw.holder !== undefined && { holder: raw.holder }),
    modes: modesOf(raw.modes, file),
    ...(raw.ready !== undefined && { ready: raw.ready }),
  };
}

/** One manifest entry (fixtures/corpus.json), checked field by field. */
export function manifestEntry(e: Record<string, unknown>, where: string): CorpusEntry {
  const str = (k: string) => (typeof e[k] === "string" ? (e[k] as string) : undefined);
  const name = str("name");
  const file = str("file");
  if (!name || !file) throw new LabelError(`${where}: an entry needs "name" and "file"`);
  const at = `${where} ${name}`;
  const args = Array.isArray(e.args) ? e.args.map(String) : ["{seconds}"];
  const seconds = Number(e.seconds);
  if (!(seconds > 0)) throw new LabelError(`${at}: "seconds" must be a positive number`);
  const subject = subjectOf(str("subject"), at);
  const layer = str("layer");
  const holder = str("holder");
  const ready = str("ready");
  return {
    name,
    file,
    args,
    python: interpreter(str("python") ?? "python3"),
    seconds,
    expect: kindOf(str("expect") ?? "", at),
    ...(subject && { subject }),
    ...(layer !== undefined && { layer }),
    ...(holder !== undefined && { holder }),
    modes: modesOf(e.modes as string[] | undefined, at),
    ...(ready !== undefined && { ready }),
  };
}

/** The scripts of a directory (not its `_*.py` helpers), labelled by their headers. */
export function scriptsIn(repo: string, dir: string, defaultSeconds: number): CorpusEntry[] {
  return readdirSync(join(repo, dir))
    .filter((f) => f.endsWith(".py") && !f.startsWith("_"))
    .sort()
    .map((f) => ({
      name: f.replace(/\.py$/, ""),
      file: `${dir}/${f}`,
      ...parseLabels(readFileSync(join(repo, dir, f), "utf8"), `${dir}/${f}`, defaultSeconds),
    }));
}

/** Where the corpus lives, and each directory's default run length (the scripts' own default). */
export const CORPUS_SOURCES = [
  { dir: "fixtures/scenarios", seconds: 24 },
  { dir: "fixtures/calibration", seconds: 90 },
] as const;
export const MANIFEST = "fixtures/corpus.json";

/** The whole corpus: scripts first, then the manifest's entries; names are unique. */
export function loadCorpus(repo: string): CorpusEntry[] {
  const scripts = CORPUS_SOURCES.flatMap((s) => scriptsIn(repo, s.dir, s.seconds));
  const manifest = JSON.parse(readFileSync(join(repo, MANIFEST), "utf8")) as { programs: Record<string, unknown>[] };
  const all = [...scripts, ...manifest.programs.map((e) => manifestEntry(e, MANIFEST))];
  const seen = new Set<string>();
  for (const e of all) {
    if (seen.has(e.name)) throw new LabelError(`corpus: two programs named "${e.name}"`);
    seen.add(e.name);
  }
  return all;
}

/** The program's argv under memleak: interpreter, file, arguments with the run length filled in. */
export function programArgv(e: CorpusEntry, seconds = e.seconds): string[] {
  return [...e.python, e.file, ...e.args.map((a) => a.replace("{seconds}", String(seconds)))];
}
