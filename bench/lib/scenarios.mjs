/**
 * The scenario scripts (fixtures/scenarios/*.py) run under `memleak run`, discovered at run time because more are
 * being added. Each script's leading comment lines say what memleak must answer:
 *   # expect: KIND            the verdict kind
 *   # subject: root|worker    (optional) the verdict must be named on the root process, or on one of its descendants
 *   # subject: tree|cgroup    (optional) or on the process tree as a whole, or on the memory cgroup
 *   # python: /path/python3   (optional, or a #! line) the interpreter to start it with; `python3` otherwise
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { exec, MEMLEAK, REPO } from "./util.mjs";
import { replay, timeToVerdict, verdictKey } from "./replay.mjs";

export const SCENARIO_DIR = join(REPO, "fixtures", "scenarios");

export function discoverScenarios(dir = SCENARIO_DIR) {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".py") && !f.startsWith("_")) // _helpers.py would be a module, not a scenario
    .sort()
    .map((file) => ({
      name: file.replace(/\.py$/, ""),
      file: relative(REPO, join(dir, file)),
      ...parseHeader(readFileSync(join(dir, file), "utf8")),
    }));
}

export function parseHeader(text) {
  const out = { expect: undefined, subject: undefined, python: "python3" };
  for (const line of text.split("\n")) {
    if (line.startsWith("#!")) {
      out.python = line.slice(2).trim();
      continue;
    }
    const m = /^#\s*(expect|subject|python):\s*(\S+)/.exec(line);
    if (m) out[m[1]] = m[2];
    else if (!line.startsWith("#")) break; // the header is the comment block at the very top
  }
  return out;
}

/** The interpreter argv: a "#!/usr/bin/env python3" line means python3 as looked up on PATH. */
function interpreter(python) {
  const words = python.split(/\s+/);
  return words[0].endsWith("/env") ? words.slice(1) : words;
}

/**
 * One scenario under `memleak run --json --record`, then its recording replayed to find when the verdict settled.
 * `args`: extra arguments for the script (its first is the number of seconds to run). `record`: where to keep the
 * recording (by default it goes to a temporary directory and is removed).
 */
export async function runScenario(sc, { interval = "0.5", args = [], from = 10, every = 0, extra = [], record } = {}) {
  const dir = mkdtempSync(join(tmpdir(), `memleak-bench-${sc.name}-`));
  const rec = record ?? join(dir, "recording.jsonl");
  try {
    const argv = [
      process.execPath,
      MEMLEAK,
      "run",
      "--json",
      "--interval",
      interval,
      "--record",
      rec,
      ...extra,
      "--",
      ...interpreter(sc.python),
      sc.file,
      ...args,
    ];
    const r = await exec(argv);
    let doc;
    try {
      doc = JSON.parse(r.stdout);
    } catch {
      return {
        sc,
        ok: false,
        error: `no verdict document (exit ${r.code}): ${r.stderr.trim().split("\n").slice(-3).join(" / ")}`,
      };
    }
    const rp = await replay(rec, { from, every });
    const finalKey = verdictKey(doc);
    const got = doc.verdict.kind;
    const subjectOk = checkSubject(sc.subject, doc);
    return {
      sc,
      doc,
      got,
      subject: subjectText(doc),
      ok: got === sc.expect && subjectOk,
      subjectOk,
      settled: timeToVerdict(rp.interim, finalKey),
      /** When the first judgement was made: settling then means right from the start. */
      firstJudged: rp.interim[0]?.t,
      interim: rp.interim.map(({ t, doc: d }) => ({
        t,
        key: verdictKey(d),
        kind: d.verdict.kind,
        early: d.verdict.evidence?.calledEarly !== undefined,
      })),
      replayAgrees: verdictKey(rp.analyzed) === finalKey,
      duration: rp.duration,
      wallMs: r.wallMs,
      code: r.code,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function subjectText(doc) {
  const s = doc.verdict.subject;
  if (s.type !== "process") return s.type;
  return `${s.isRoot ? "root" : "worker"} PID ${s.pid}`;
}

function checkSubject(expected, doc) {
  if (!expected) return true;
  const s = doc.verdict.subject;
  if (expected === "tree" || expected === "cgroup") return s.type === expected;
  if (s.type !== "process") return false;
  return expected === "root" ? s.isRoot === true : s.isRoot === false;
}
