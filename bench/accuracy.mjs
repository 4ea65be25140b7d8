/**
 * `npm run accuracy`: how often memleak's verdicts are right (issue 46). Runs every program of the labelled corpus
 * (test/helpers/corpus.ts: fixtures/scenarios, fixtures/calibration, fixtures/corpus.json) at memleak's defaults under
 * `run` and under `watch` (started first, attached to once it says it is ready, or after 2 s) — and with `--modes
 * run,watch,container` also watched from the host in a PID namespace of its own, where watch applies — `--lanes` at a time
 * (two: one per core, as the e2e lanes), `--repeat` times; scores each against its label (test/helpers/accuracy.ts) and
 * prints the table: per kind precision and recall, the confusion matrix, the leak gate's false alarms and misses,
 * progress lines saying `leak` on programs that do not leak, layer and holder accuracy, calibration.
 *
 *   npm run accuracy -- [--modes run,watch[,container]] [--repeat 1] [--lanes 2] [--only a,b] [--neighbour]
 *                       [--scale 1] [--budget 60] [--json out.json] [--svg out.svg] [NAME…]
 *
 * --neighbour runs a CPU-bound Python loop beside the whole run (a CI runner's parallel job): a verdict must not depend
 * on it. --scale K runs every program K times its labelled length: the corpus's scripts were written for the tests'
 * 0.25-0.5 s interval, and at the default 1 s their 16-24 s give memleak 13-21 samples (most of the first table's
 * wrong answers were insufficient-data). --budget (minutes) stops starting runs once spent; the runs not started are listed, never dropped silently.
 * A run that gives no verdict (a crash, over its time limit) is counted wrong.
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { exec, killGroup, machine, MEMLEAK, pool, REPO, sleep } from "./lib/util.mjs";
import { appliesIn, loadCorpus, MODES, programArgv } from "../build/support/test/helpers/corpus.js";
import { observe, score, calibration } from "../build/support/test/helpers/accuracy.js";
import { accuracyMarkdown, reliabilitySvg } from "../build/support/test/helpers/accuracy-table.js";

function options(argv) {
  const o = { modes: ["run", "watch"], repeat: 1, lanes: 2, only: [], neighbour: false, scale: 1, budget: Infinity };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => argv[++i];
    if (a === "--modes") o.modes = next().split(",");
    else if (a === "--repeat") o.repeat = Number(next());
    else if (a === "--lanes") o.lanes = Number(next());
    else if (a === "--only") o.only.push(...next().split(","));
    else if (a === "--neighbour") o.neighbour = true;
    else if (a === "--budget") o.budget = Number(next());
    else if (a === "--scale") o.scale = Number(next());
    else if (a === "--json") o.json = next();
    else if (a === "--svg") o.svg = next();
    else if (a.startsWith("-")) throw new Error(`accuracy: unknown option ${a}`);
    else o.only.push(a);
  }
  if (!(o.scale > 0)) throw new Error("accuracy: --scale needs a number above 0");
  for (const m of o.modes) if (!MODES.includes(m)) throw new Error(`--modes: "${m}" is none of ${MODES.join(", ")}`);
  return o;
}

/** memleak's limit for one run: the program's own length, its start-up (PyTorch: up to ~20 s here) and the report. */
const limitMs = (e) => (e.seconds + 90) * 1000;

async function underRun(e) {
  const r = await exec([process.execPath, MEMLEAK, "run", "--json", "--", ...programArgv(e)], {
    timeoutMs: limitMs(e),
  });
  return { r };
}

/**
 * Starts the program, waits for its ready line (or 2 s), then `memleak watch PID` until it exits. `inContainer`: the
 * program runs in a PID namespace of its own (`unshare --pid --fork --mount-proc`, pid 1 inside, as in a container),
 * and memleak watches it from the host by its host pid, the child of unshare.
 */
async function underWatch(e, inContainer = false) {
  const program = programArgv(e, e.ready ? e.seconds : e.seconds + 2);
  const argv = inContainer ? ["unshare", "--pid", "--fork", "--mount-proc", ...program] : program;
  const child = spawn(argv[0], argv.slice(1), {
    cwd: REPO,
    env: { ...process.env, PYTHONUNBUFFERED: "1" },
    stdio: ["ignore", "pipe", "ignore"],
    detached: true,
  });
  // A missing interpreter is this run's error, not the whole benchmark's crash.
  const failed = new Promise((resolve) => child.once("error", (err) => resolve(String(err))));
  try {
    if (e.ready) {
      const pattern = new RegExp(e.ready, "m");
      let out = "";
      const ready = await new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), 90_000);
        child.stdout.on("data", (d) => {
          out += d;
          if (pattern.test(out)) {
            clearTimeout(timer);
            resolve(true);
          }
        });
        child.once("exit", () => {
          clearTimeout(timer);
          resolve(false);
        });
        void failed.then(() => {
          clearTimeout(timer);
          resolve(false);
        });
      });
      if (!ready) return { error: "never printed its ready line" };
    } else {
      child.stdout.resume();
      const error = await Promise.race([failed, sleep(2000).then(() => undefined)]);
      if (error) return { error };
    }
    const target = inContainer ? firstChild(child.pid) : child.pid;
    if (target === undefined) return { error: "unshare started no program" };
    const r = await exec([process.execPath, MEMLEAK, "watch", String(target), "--json"], {
      timeoutMs: limitMs(e),
    });
    return { r };
  } finally {
    killGroup(child.pid);
  }
}

/** A process's first child (the program `unshare --fork` started), by /proc; undefined when it has none. */
function firstChild(pid) {
  try {
    const first = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/)[0];
    return first ? Number(first) : undefined;
  } catch {
    return undefined;
  }
}

async function one(e, mode) {
  const started = performance.now();
  const { r, error } = mode === "run" ? await underRun(e) : await underWatch(e, mode === "container");
  let doc;
  try {
    doc = r ? JSON.parse(r.stdout) : undefined;
  } catch {
    doc = undefined;
  }
  const observed = observe(doc, r?.stderr ?? "");
  if (r?.timedOut) observed.timedOut = true;
  if (error) observed.error = error;
  else if (!doc) observed.error = `no verdict (exit ${r?.code}): ${(r?.stderr ?? "").trim().split("\n").at(-1) ?? ""}`;
  const s = score(e, mode, observed);
  return { ...s, wallS: Math.round((performance.now() - started) / 1000) };
}

async function main() {
  const o = options(process.argv.slice(2));
  const corpus = loadCorpus(REPO)
    .filter((e) => o.only.length === 0 || o.only.includes(e.name))
    .map((e) => ({ ...e, seconds: Math.round(e.seconds * o.scale) }));
  const jobs = [];
  for (let k = 0; k < o.repeat; k++)
    for (const e of corpus) for (const mode of o.modes) if (appliesIn(e, mode)) jobs.push({ e, mode });
  const neighbour = o.neighbour
    ? spawn("python3", ["-c", "while True: pass"], { stdio: "ignore", detached: true })
    : undefined;
  neighbour?.once("error", (err) => {
    process.stderr.write(`accuracy: the busy neighbour did not start: ${err.message}\n`);
    process.exit(2);
  });
  const began = performance.now();
  const notStarted = [];
  process.stderr.write(
    `accuracy: ${jobs.length} runs, ${o.lanes} at a time${o.neighbour ? ", beside a busy loop" : ""}\n`,
  );
  let runs;
  try {
    runs = await pool(jobs, o.lanes, async ({ e, mode }) => {
      if ((performance.now() - began) / 60_000 > o.budget) {
        notStarted.push(`${e.name} (${mode})`);
        return undefined;
      }
      const s = await one(e, mode);
      process.stderr.write(
        `  ${e.name} (${mode}): ${s.right ? "right" : "WRONG"}, ${s.got}${s.confidence !== undefined ? ` ${Math.round(s.confidence * 100)}%` : ""} (${s.wallS} s)\n`,
      );
      return s;
    });
  } finally {
    if (neighbour) killGroup(neighbour.pid);
  }
  const done = runs.filter(Boolean);
  const m = machine();
  const title = `${o.modes.join(" and ")}, ${o.repeat}× each${o.scale !== 1 ? `, programs ${o.scale}× their length` : ""}, ${o.lanes} lanes${o.neighbour ? ", beside a busy loop" : ", quiet"} (${m.nproc} cores, ${m.kernel}, ${new Date().toISOString().slice(0, 10)})`;
  const lines = [accuracyMarkdown(done, title)];
  for (const mode of o.modes) {
    const of = done.filter((r) => r.mode === mode);
    if (o.modes.length > 1 && of.length > 0) lines.push("", accuracyMarkdown(of, `${mode} alone`));
  }
  if (notStarted.length) lines.push("", `Not run (the ${o.budget} min budget was spent): ${notStarted.join(", ")}.`);
  console.log(lines.join("\n"));
  if (o.json) writeFileSync(o.json, JSON.stringify({ title, machine: m, runs: done, notStarted }, null, 2) + "\n");
  if (o.svg) writeFileSync(o.svg, reliabilitySvg([{ label: title, bins: calibration(done), colour: "#1f77b4" }]));
}

main().catch((err) => {
  process.stderr.write(`accuracy: ${err.message}\n`);
  process.exit(2);
});
