/**
 * The scenario scripts (fixtures/scenarios/*.py) run under `memleak run`, discovered at run time because more are
 * being added. Each script's leading comment lines say what memleak must answer, read as the labelled corpus reads
 * them (test/helpers/corpus.ts, compiled into build/support by `tsc -p tsconfig.support.json`): `# expect: KIND`,
 * `# subject: root|worker|tree|cgroup`, `# python:` (or a #! line), and the rest of the corpus's labels.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { exec, MEMLEAK, REPO } from "./util.mjs";
import { scriptsIn } from "../../build/support/test/helpers/corpus.js";
import { replay, timeToVerdict, verdictKey } from "./replay.mjs";

export const SCENARIO_DIR = join(REPO, "fixtures", "scenarios");

/**
 * Every scenario labelled for `run` (what runScenario does; lru_filled is watch-only), with its labels; `python` is
 * the interpreter's argv. A script without `# expect:` is an error.
 */
export function discoverScenarios(dir = SCENARIO_DIR) {
  return scriptsIn(REPO, relative(REPO, dir), 24).filter((s) => s.modes.includes("run"));
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
      ...sc.python,
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
