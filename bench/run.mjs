/**
 * `npm run bench [-- --quick] [--fp-seconds N] [--sections a,b,c,d]`: memleak's figures, each as a ratio against
 * a baseline measured in the same run (the machine is shared and noisy, so absolute numbers from different runs do
 * not compare; ratios taken minutes apart mostly do), medians over repeats. Prints each section as it finishes and
 * rewrites BENCHMARKS.md when every section ran.
 *
 *   a  sampling cost: memleak's Sampler vs psutil vs the bare reads it chose, over a ~2 GB PyTorch process tree
 *   b  overhead on the target: a fixed workload alone, under `memleak run --no-agent`, under `memleak run`
 *   c  verdicts: time to verdict (leak scenarios, synthetic leak), false positives over minutes of steady scenarios
 *   d  memleak's own memory analyzing a 72-hour recording, against 1 h and 24 h
 *   e  watch: time to inject the agent, and the watched program's slowdown against the same program unwatched
 *   f  pure functions on their largest inputs: thinning a 72-hour series for drawing, each parser on a 1 MB line
 *   g  what a user pays: the whole `memleak watch` process's CPU, minute by minute, beside a bare reader of the same
 *      files and psutil, on 9 and 64 processes, at 1 Hz and 10 Hz (--whole-minutes N: 5 by default; 60 for the soak;
 *      --trees small or torch: one of the two)
 *   h  the pytest plugin: a suite's time under `memleak pytest`, with and without repeats, against pytest alone
 *   i  Prometheus both ways: the exporter's cost per tick and per scrape against the tick itself, and
 *      `analyze --prometheus` on 1,000 series × 6 h at 15 s against fetching and parsing the same answer
 *   j  run --trace-native: the target's wall and CPU time under heaptrack, on section b's workload and an
 *      allocation-heavy one, against the same run untraced and the workload alone
 */
import { PSS_EAGER_SECONDS } from "../dist/sampling/sampler.js";
import { DEFAULT_PSS_EVERY, DEFAULT_SMAPS_BUDGET } from "../dist/sampling/defaults.js";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { scenarioTable } from "./scenarios.mjs";
import { longWatch } from "./sections/long-watch.mjs";
import { overhead } from "./sections/overhead.mjs";
import { attachCost, idleCost } from "./sections/attach.mjs";
import { largestInputs } from "./sections/largest-inputs.mjs";
import { pytestPlugin } from "./sections/pytest-plugin.mjs";
import { samplingCost } from "./sections/sampling.mjs";
import { verdicts } from "./sections/verdicts.mjs";
import { measureWhole, summarise, TREES } from "./sections/whole-process.mjs";
import { measureDefaults, summariseDefaults } from "./sections/defaults.mjs";
import { prometheusBoth } from "./sections/prometheus.mjs";
import { traceNativeCost } from "./sections/trace-native.mjs";
import { holderPause } from "./sections/holder-pause.mjs";
import { machine, met, mib, num, ratio, REPO, secs, table } from "./lib/util.mjs";

/** The targets this benchmark checks (from the project's issue 7, and DESIGN/METRICS for the smaps budget). */
const TARGET = { vsBare: 1.5, longVsDay: 1.25 };
const ALL_SECTIONS = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"];

function parseArgs(argv) {
  const o = { quick: false, fpSeconds: undefined, sections: ALL_SECTIONS, wholeMinutes: undefined, trees: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--quick") o.quick = true;
    else if (a === "--fp-seconds") o.fpSeconds = Number(argv[++i]);
    else if (a === "--sections") o.sections = String(argv[++i]).split(",");
    else if (a === "--whole-minutes") o.wholeMinutes = Number(argv[++i]);
    else if (a === "--trees") o.trees = String(argv[++i]).split(",");
    else
      throw new Error(
        `unknown option ${a} (use --quick, --fp-seconds N, --whole-minutes N, --trees small,torch, --sections a,b,c,d,e,f,g,h,i,j,k)`,
      );
  }
  o.fpSeconds ??= o.quick ? 60 : 600;
  if (!(o.fpSeconds > 0)) throw new Error("--fp-seconds: expected a number of seconds");
  o.wholeMinutes ??= o.quick ? 3 : 5;
  if (!(Number.isInteger(o.wholeMinutes) && o.wholeMinutes >= 2))
    throw new Error("--whole-minutes: expected a whole number of minutes, at least 2");
  return o;
}

/** Issue 13's targets for the whole process. */
const WHOLE = { vsBare1Hz: 1.3, vsBare10Hz: 1.5, flat: 1.1, vsPsutil64: 1 };

async function sectionG(o, log) {
  // One configuration after another: four at once (two 2 GB torch trees, 128 Python processes, four memleaks, four
  // bare readers and psutil on two cores) measured contention more than memleak — memleak's user-space work suffers
  // more from a saturated machine than the bare reader's syscalls, and the 64-process ratio read 1.57× at once against
  // 0.92× alone. The hour-long soak runs its two 1 Hz configurations at once (any --whole-minutes over 5), so it fits in the hour.
  // psutil is measured at 1 Hz only: at 10 Hz it takes a third of a core.
  const together = o.wholeMinutes > 5;
  // --trees small,torch: section g on some of its trees (a change measured where it matters, in less than half an hour).
  const trees = Object.keys(TREES).filter(
    (tree) => !o.trees || o.trees.some((t) => (t === "small" ? tree.startsWith("64") : tree.includes(t))),
  );
  const configs = trees.flatMap((tree) => [
    { tree, hz: 1, minutes: o.wholeMinutes, psutil: true },
    ...(together ? [] : [{ tree, hz: 10, minutes: o.wholeMinutes, psutil: false }]),
  ]);
  const rows = [];
  if (together) rows.push(...(await Promise.all(configs.map((c) => measureWhole({ ...c, log })))).map(summarise));
  else for (const c of configs) rows.push(summarise(await measureWhole({ ...c, log })));
  const pct = (x) => (Number.isFinite(x) ? `${num(x * 100, 2)}%` : "–");
  const skipped = together
    ? ["", "10 Hz: not measured in the soak (it runs 5 minutes at a time: `--sections g` without --whole-minutes)."]
    : [];
  const md = [
    `Trees: bench/py/torch_tree.py with 8 workers (9 processes, ~2 GB Σ PSS) and bench/py/small_tree.py (64 plain Python processes of ~8 MB each). Each configuration ran \`memleak watch PID --no-inject\` (whole process, utime + stime from /proc/PID/stat), a bare reader replaying memleak's read set on the same schedule, and psutil at 1 Hz (its first 5 minutes) at the same time, beside each other; ${together ? "the configurations all at once" : "one configuration after another, the machine otherwise quiet"}. The bare reader replays memleak's reads after its first ${PSS_EAGER_SECONDS} s (when PSS is read as often as the budget allows), as the long watch makes them. Shares of one core over minutes 2–${o.wholeMinutes} (psutil: 2–${Math.min(o.wholeMinutes, 5)}).`,
    "",
    table(
      [
        "tree",
        "rate",
        "memleak",
        "bare reads",
        "psutil",
        "memleak ÷ bare",
        "memleak ÷ psutil",
        "last 5 min ÷ min 2–6",
        "late ticks",
        "PSS age median / max",
      ],
      rows.map((r) => [
        r.tree,
        `${r.hz} Hz`,
        pct(r.memleak),
        pct(r.bare),
        pct(r.psutil),
        ratio(r.vsBare),
        ratio(r.vsPsutil),
        ratio(r.lateVsEarly),
        r.lateTicks === undefined ? "–" : `${r.lateTicks} of ${r.ticks}`,
        r.pssAgeMedian === undefined ? "–" : `${num(r.pssAgeMedian, 1)} s / ${num(r.pssAgeMax, 1)} s`,
      ]),
    ),
    "",
    table(
      ["target (issue 13)", "figure", "result"],
      rows.flatMap((r) => {
        const limit = r.hz === 1 ? WHOLE.vsBare1Hz : WHOLE.vsBare10Hz;
        // The soak's configurations share two cores: its ratios carry their contention, so only its flatness is judged.
        const out = together
          ? [
              [
                `${r.tree}, ${r.hz} Hz: whole process against the bare reads (soak, configurations at once: not judged)`,
                ratio(r.vsBare),
                "–",
              ],
            ]
          : [
              [
                `${r.tree}, ${r.hz} Hz: whole process ≤ ${limit}× the bare reads`,
                ratio(r.vsBare),
                met(r.vsBare <= limit),
              ],
            ];
        if (r.hz === 1 && Number.isFinite(r.lateVsEarly))
          out.push([
            `${r.tree}, 1 Hz: flat (last 5 min ≤ ${WHOLE.flat}× min 2–6)`,
            ratio(r.lateVsEarly),
            met(r.lateVsEarly <= WHOLE.flat),
          ]);
        if (r.hz === 1 && r.tree.startsWith("64"))
          out.push([`${r.tree}, defaults: cheaper than psutil`, ratio(r.vsPsutil), met(r.vsPsutil < WHOLE.vsPsutil64)]);
        if (r.hz === 10 && r.lateTicks !== undefined)
          out.push([`${r.tree}, 10 Hz: no late tick`, String(r.lateTicks), met(r.lateTicks === 0)]);
        return out;
      }),
    ),
  ];
  const defaults = together ? [] : await defaultsOf(o, log);
  return {
    title: "g. What a user pays: the whole watch process",
    md: [...md, ...skipped, ...(defaults.md ?? [])].join("\n"),
    data: { rows, defaults: defaults.data },
  };
}

/** Issue 32's targets: the defaults (the agent in every process) against --no-inject, in the same run. */
const DEFAULTS = { vsNoInject: 1.3, firstVsSteady: 1.5 };

/** g's defaults: `watch` and `run` with their agents beside `watch --no-inject` and psutil, on 64 and 256 processes. */
async function defaultsOf(o, log) {
  const runs = [];
  for (const processes of [64, 256])
    runs.push(summariseDefaults(await measureDefaults({ processes, minutes: o.wholeMinutes, log })));
  const pct = (x) => (Number.isFinite(x) ? `${num(x * 100, 2)}%` : "–");
  const md = [
    "",
    `**The defaults** (issue 32; bench/sections/defaults.mjs): \`watch PID\` and \`run -- CMD\` as users run them, the agent in every Python process, beside \`watch PID --no-inject\`, section g's bare reader (memleak's read set of the --no-inject tree replayed) and psutil's loop, all at once on their own copies of bench/py/small_tree.py, so they share the machine's noise. memleak's CPU is its whole process's (utime + stime); the agents' is their tree's Python processes' (which otherwise sleep). Minute 1 alone, then minutes 2–${o.wholeMinutes}.`,
    "",
    table(
      [
        "processes",
        "configuration",
        "memleak, minute 1",
        "memleak, min 2+",
        "÷ --no-inject",
        "÷ psutil",
        "÷ bare reads",
        "minute 1 ÷ steady",
        "the agents (their tree)",
      ],
      runs.flatMap((r) =>
        r.rows.map((x) => [
          String(r.processes),
          x.name,
          pct(x.first),
          pct(x.steady),
          ratio(x.vsNoInject),
          ratio(x.vsPsutil),
          ratio(x.vsBareReads),
          ratio(x.firstVsSteady),
          pct(x.agents),
        ]),
      ),
    ),
    "",
    table(
      ["target (issue 32)", "figure", "result"],
      runs.flatMap((r) =>
        r.rows
          .filter((x) => x.name.endsWith("(default)"))
          .flatMap((x) => [
            [
              `${r.processes} processes, ${x.name}: ≤ ${DEFAULTS.vsNoInject}× --no-inject`,
              ratio(x.vsNoInject),
              met(x.vsNoInject <= DEFAULTS.vsNoInject),
            ],
            [`${r.processes} processes, ${x.name}: under psutil`, ratio(x.vsPsutil), met(x.vsPsutil < 1)],
            [
              `${r.processes} processes, ${x.name}: minute 1 ≤ ${DEFAULTS.firstVsSteady}× the steady state`,
              ratio(x.firstVsSteady),
              met(x.firstVsSteady <= DEFAULTS.firstVsSteady),
            ],
            [`${r.processes} processes, ${x.name}: the agents' own CPU (reported)`, pct(x.agents), "–"],
          ]),
      ),
    ),
  ];
  return { md, data: runs };
}

// ── each section: run it, and render its figures as markdown ──────────────────────────────────────────────────────

async function sectionA(o, log) {
  const r = await samplingCost({ windowS: o.quick ? 10 : 20, repeats: o.quick ? 2 : 3, log });
  const oneHz = r.rates.find((x) => x.hz === 1);
  const md = [
    `Tree: bench/py/torch_tree.py under /usr/bin/python3 — a parent that imported torch and holds a 256 MB tensor, and 8 forked workers with 200 MB each: ${r.tree.processes} processes, Σ PSS ${mib(r.tree.pss)} (Σ RSS ${mib(r.tree.rss)}, shared pages counted in every process). Default PSS freshness (every ${DEFAULT_PSS_EVERY} s, under a cap of ${num(DEFAULT_SMAPS_BUDGET * 100, 2)}% of one core). ${r.rates[0].windows} windows of ${o.quick ? 10 : 20} s per rate; figures are per sample, medians over the windows.`,
    "",
    table(
      [
        "rate",
        "memleak CPU/sample",
        "bare reads CPU/sample",
        "psutil CPU/sample",
        "memleak ÷ bare",
        "memleak ÷ psutil",
        "memleak, share of one core",
        "of which smaps_rollup",
        "smaps reads/sample",
      ],
      r.rates.map((x) => [
        `${x.hz} Hz`,
        `${num(x.memleakUs / 1000, 2)} ms`,
        `${num(x.bareUs / 1000, 2)} ms`,
        `${num(x.psutilUs / 1000, 2)} ms`,
        ratio(x.vsBare),
        ratio(x.vsPsutil),
        `${num(x.coreShare * 100, 2)}%`,
        `${num(x.smapsShare * 100, 2)}%`,
        num(x.smapsPerSample, 2),
      ]),
    ),
    "",
    table(
      ["target", "figure", "result"],
      [
        ...r.rates.map((x) => [
          `memleak CPU/sample ≤ ${TARGET.vsBare}× the bare reads it chose (${x.hz} Hz)`,
          ratio(x.vsBare),
          met(x.vsBare <= TARGET.vsBare),
        ]),
        // Issue 7's "≤ 1% of one core" gave way to issue 13's PSS freshness (2 s by default, under a 3% cap): the share
        // is shown, and the whole process is judged against its bare reads in section g.
        [
          `share of one core at the defaults (1 s interval, PSS every ${DEFAULT_PSS_EVERY} s, cap ${num(DEFAULT_SMAPS_BUDGET * 100, 2)}%)`,
          oneHz ? `${num(oneHz.coreShare * 100, 2)}%` : "–",
          "(no target: see g)",
        ],
      ],
    ),
  ];
  return { title: "a. Sampling cost", md: md.join("\n"), data: r };
}

async function sectionB(o, log) {
  const r = await overhead({ rounds: o.quick ? 70 : 140, repeats: o.quick ? 3 : 5, log });
  const md = [
    `Workload: bench/py/workload.py ${r.rounds} (lists of tuples, a dict, a 32 MB buffer per round; timed inside the process), /usr/bin/python3; memleak at its defaults. ${r.repeats} interleaved rounds, medians. No target is set for this figure; it is here to watch.`,
    "",
    table(
      ["variant", "workload time", "× alone", "workload CPU", "wall incl. start-up"],
      r.rows.map((x) =>
        x.unavailable
          ? [x.name, x.unavailable, "–", "–", "–"]
          : [x.name, secs(x.seconds), ratio(x.ratio), secs(x.cpu), secs(x.wall)],
      ),
    ),
  ];
  return { title: "b. Overhead on the target", md: md.join("\n"), data: r };
}

async function sectionC(o, log) {
  const r = await verdicts({ fpSeconds: o.fpSeconds, log });
  const s = r.synthetic;
  const md = [
    "Leak scenarios (real processes, `memleak run --json --interval 0.5`, 24 s each, two at a time). Time to verdict: the first moment, judging the recording after every sample from 10 s on, after which the verdict kept the final kind and pid.",
    "",
    scenarioTable(r.leakRuns),
    "",
    `Synthetic leak (test/helpers/synthetic.ts: 1 MB/s on a 10 MB baseline, ±5 MB Gaussian noise, 1 Hz, 600 s; classify() after every sample for 120 s, then every 5 s): says \`leak\` for the process and keeps saying it after **median ${secs(s.median)}, max ${s.max === undefined ? `— (${s.seeds - s.found} of ${s.seeds} seeds never settled)` : secs(s.max)}** over ${s.seeds} seeds (per seed: ${s.each.map((t) => (t === undefined ? "never" : t)).join(", ")} s).`,
    "",
    `A CI step (${r.ci.runs.length} runs): \`memleak run --fail-on leak --fail-fast\` at the default 1 s interval on a Python program keeping 1 MiB/s for 120 s. Leak called (for good, judging the recording after every sample) **median ${secs(r.ci.called.median)}, max ${secs(r.ci.called.max)} after the warm-up** (warm-ups: ${r.ci.runs.map((c) => num(c.warmup, 1)).join(", ")} s); the job stopped after **median ${secs(r.ci.stopped.median)}, max ${secs(r.ci.stopped.max)}** of wall time, exit 1 every time: ${r.ci.allFailed ? "yes" : "**no**"}.`,
    "",
    table(
      ["target", "figure", "result"],
      [
        [
          "a 1 MiB/s leak called within 10 s of the warm-up (max of the runs)",
          secs(r.ci.called.max),
          met(r.ci.called.max <= 10),
        ],
        [
          "--fail-fast stops a 120 s leaking job within 20 s (max of the runs)",
          secs(r.ci.stopped.max),
          met(r.ci.stopped.max <= 20),
        ],
      ],
    ),
    "",
    `False positives: the steady scenarios (\`# expect: stable\`) run for ${o.fpSeconds} s under \`memleak run --json --interval 0.5\`, their recordings judged after every sample from the first (the early test included).`,
    "",
    table(
      [
        "scenario",
        "ran",
        "interim verdicts",
        "said leak",
        "of which the early test",
        "said something else than stable",
        "final verdict",
      ],
      r.falsePositives.map((f) => [
        f.name,
        secs(f.duration),
        f.interim,
        f.leak,
        f.earlyLeak,
        f.other,
        f.error ? `error: ${f.error}` : `${f.final}${f.ok ? "" : " (WRONG)"}`,
      ]),
    ),
  ];
  return { title: "c. Verdicts", md: md.join("\n"), data: r };
}

async function sectionD(o, log) {
  const r = await longWatch({ repeats: o.quick ? 2 : 3, log });
  const base = r.results[0].peakRss;
  const md = [
    `Synthetic recordings (bench/sections/long-watch.mjs): 3 processes + a cgroup at 1 Hz, fields as the sampler writes them, smaps numbers on alternate ticks. \`memleak analyze FILE --json\` under /usr/bin/time -v, medians of ${o.quick ? 2 : 3}.`,
    "",
    table(
      ["recording", "samples", "file", "analyze peak RSS", "× 1 h", "analyze wall", "verdict"],
      [
        ...r.results.map((x) => [
          `${x.hours} h`,
          x.samples.toLocaleString("en-US"),
          mib(x.bytes),
          mib(x.peakRss),
          ratio(x.peakRss / base),
          secs(x.wall),
          x.verdict ?? "–",
        ]),
        [
          `${r.hours} h, with --html`,
          r.results.at(-1).samples.toLocaleString("en-US"),
          "",
          mib(r.html.peakRss),
          ratio(r.html.peakRss / base),
          secs(r.html.wall),
          "",
        ],
      ],
    ),
    "",
    `renderHtml alone on the ${r.hours} h series: ${num(r.htmlMs, 0)} ms, ${mib(r.htmlBytes)} of HTML. Longest of ${r.columns} series columns: ${r.longestColumn.toLocaleString("en-US")} points.`,
    "",
    table(
      ["target", "figure", "result"],
      [
        [
          `series columns compact to ≤ ${r.capacity.toLocaleString("en-US")} points`,
          r.longestColumn.toLocaleString("en-US"),
          met(r.longestColumn <= r.capacity),
        ],
        [
          `bounded: ${r.hours} h peak RSS ≤ ${TARGET.longVsDay}× the 24 h one (${ratio(r.vsOneHour)} the 1 h one)`,
          ratio(r.vsDay),
          met(r.vsDay <= TARGET.longVsDay),
        ],
      ],
    ),
  ];
  return { title: "d. memleak's own memory over a 72-hour watch", md: md.join("\n"), data: r };
}

async function sectionE(o, log) {
  const r = await attachCost({ rounds: o.quick ? 10 : 20, repeats: o.quick ? 3 : 7, log });
  const idle = await idleCost({ seconds: o.quick ? 60 : 180, log });
  const pct = (x) => `${num(x * 100, 2)}%`;
  const md = [
    `\`memleak watch PID\` (1 s interval) on bench/py/workload.py (${r.rounds} rounds) started outside memleak, unwatched and watched, interleaved ×${r.repeats}; medians. The agent is injected by gdb while the workload waits in a loop of short sleeps; the timed work starts once memleak says it is in.`,
    "",
    table(
      ["workload", "seconds", "÷ unwatched"],
      [
        ["unwatched", num(r.alone, 2), ratio(1)],
        ["watched, agent injected", num(r.watched, 2), ratio(r.ratio)],
      ],
    ),
    "",
    `Time to attach (gdb started → the agent's hello): median ${num(r.attachMs, 0)} ms, at most ${num(r.attachMaxMs, 0)} ms.`,
    "",
    `Whole-process CPU over ${idle.seconds} s (utime+stime from /proc/PID/stat, share of one core): three identical service-like loops started together${idle.attached ? "" : " (**the agent did not attach**)"}.`,
    "",
    table(
      ["process", "CPU", "÷ unwatched target"],
      [
        ["target, unwatched", pct(idle.unwatched), ratio(1)],
        ["target, watched with the agent injected", pct(idle.injected), ratio(idle.injected / idle.unwatched)],
        ["target, watched --no-inject", pct(idle.noInject), ratio(idle.noInject / idle.unwatched)],
        ["memleak watch (injecting)", pct(idle.memleakInjecting), ""],
        ["memleak watch --no-inject", pct(idle.memleakNoInject), ""],
      ],
    ),
  ];
  return {
    title: "e. watch: attaching the agent, and what it costs the watched program",
    md: md.join("\n"),
    data: { ...r, idle },
  };
}

async function sectionF(o, log) {
  const r = largestInputs({ repeats: o.quick ? 5 : 15, log });
  const ms = (x) => (x < 1 ? `${num(x * 1000, 0)} µs` : `${num(x, x < 10 ? 2 : 0)} ms`);
  const md = [
    `In memleak's own process (dist/), no I/O; medians of ${r.repeats} calls after one unmeasured call. Each input is also timed at half its size: a growth near 2× is linear, 4× would be quadratic, and catastrophic regex backtracking would not finish. No target is set for these figures; they replace unit tests that called themselves fast and asserted no time.`,
    "",
    table(
      ["function", "input", "time", "at half the input", "growth"],
      r.rows.map((x) => [x.name, x.input, ms(x.ms), ms(x.halfMs), ratio(x.growth)]),
    ),
  ];
  return { title: "f. Pure functions on their largest inputs", md: md.join("\n"), data: r };
}

async function sectionH(o, log) {
  const r = await pytestPlugin({ tests: o.quick ? 100 : 300, repeats: o.quick ? 3 : 7, log });
  const md = [
    `A generated suite (bench/py/pytest_suite.py) of ${r.tests} small tests (a dict of 200 items through JSON, a sort: ~1 ms each), Debian's pytest under /usr/bin/python3, the five variants interleaved ×${r.repeats}; medians of the CPU the pytest process took from its session's start to its summary (all its threads, the agent's included; no interpreter or memleak start-up), and of pytest's own wall time. The plugin reads memory before and after every call of a test (a collection of the young generations, sys.getallocatedblocks, mallinfo2, /proc/self/status), and takes a full collection at the end of the warm-up calls and after a test that grew.`,
    "",
    table(
      ["variant", "CPU", "wall (pytest's)"],
      r.rows.map((x) => [x.name, `${num(x.cpu, 2)} s`, `${num(x.wall, 2)} s`]),
    ),
    "",
    table(
      ["figure (CPU)", "value"],
      [
        ["memleak run (agent, no plugin) ÷ pytest alone", ratio(r.agent.ratio)],
        ["memleak pytest ÷ pytest alone", ratio(r.plugin.ratio)],
        ["memleak pytest ÷ memleak run (the plugin's own share)", ratio(r.plugin.vsAgent)],
        ["CPU added per test, 1 call", `${num(r.plugin.msPerTest, 2)} ms`],
        ["memleak pytest --repeat 5 --warmup-calls 2 ÷ pytest alone doing each body ×7", ratio(r.repeat.ratio)],
        ["CPU added per call, with repeats", `${num(r.repeat.msPerCall, 2)} ms`],
      ],
    ),
  ];
  return { title: "h. The pytest plugin's overhead", md: md.join("\n"), data: r };
}

async function sectionI(o, log) {
  const r = await prometheusBoth({ ticks: o.quick ? 10 : 30, repeats: o.quick ? 3 : 5, log });
  const ms = (x) => `${num(x, x < 1 ? 3 : 2)} ms`;
  const i = r.import;
  const md = [
    `**The exporter** (\`--metrics\`): memleak's Sampler ticking once a second over bench/py/small_tree.py (plain Python processes of 8 MB), the gauges updated after each tick and /metrics scraped over HTTP from the same process; CPU per tick (\`process.cpuUsage\`), medians of ${o.quick ? 10 : 30} ticks. "Exposition" is all the server does per scrape (prom-client writing the text); "HTTP round trip" adds Node's own HTTP server and client, both in this process (an upper bound).`,
    "",
    table(
      [
        "processes",
        "series served",
        "body",
        "tick (baseline)",
        "update ÷ tick",
        "exposition ÷ tick",
        "HTTP round trip ÷ tick",
      ],
      r.exporter.map((x) => [
        x.processes,
        x.series,
        `${num(x.bytes / 1024, 1)} KiB`,
        ms(x.tick),
        ratio(x.update / x.tick),
        ratio(x.exposition / x.tick),
        ratio(x.scrape / x.tick),
      ]),
    ),
    "",
    `**The import** (\`analyze --prometheus\`): one query_range answer of 1,000 series (250 containers × cAdvisor's usage, working set, rss and cache; 6 h at 15 s, 1,441 points each; ${mib(i.bytes)} of JSON) served by a local HTTP server; a tenth of the containers leak anon, a tenth fill page cache, the rest hold steady. Whole processes under /usr/bin/time -v, medians of ${o.quick ? 3 : 5}; the baseline is a Node process that fetches the same answer and JSON.parses it. Findings: ${Object.entries(
      i.verdicts ?? {},
    )
      .map(([k, n]) => `${n} ${k}`)
      .join(", ")}.`,
    "",
    table(
      ["", "wall", "CPU", "peak RSS", "÷ baseline (wall)", "÷ baseline (CPU)", "÷ baseline (RSS)"],
      [
        [
          "fetch + JSON.parse (baseline)",
          secs(i.floor.wall),
          secs(i.floor.cpu),
          mib(i.floor.peakRss),
          ratio(1),
          ratio(1),
          ratio(1),
        ],
        [
          "memleak analyze --prometheus --json",
          secs(i.analyze.wall),
          secs(i.analyze.cpu),
          mib(i.analyze.peakRss),
          ratio(i.analyze.wall / i.floor.wall),
          ratio(i.analyze.cpu / i.floor.cpu),
          ratio(i.analyze.peakRss / i.floor.peakRss),
        ],
      ],
    ),
  ];
  return {
    title: "i. Prometheus both ways: the exporter's cost, and analyze --prometheus on 1,000 series",
    md: md.join("\n"),
    data: r,
  };
}

async function sectionJ(o, log) {
  const r = await traceNativeCost({
    workloadRounds: o.quick ? 10 : 30,
    heavyRounds: o.quick ? 10 : 40,
    repeats: o.quick ? 2 : 3,
    log,
  });
  const md = [
    `Each workload (bench/py/workload.py, section b's; bench/py/alloc_heavy.py, every allocation a malloc: ${r.workloads[1]?.mallocs?.toLocaleString("en-US") ?? "?"} of them) under /usr/bin/python3, three variants interleaved ×${r.repeats}, medians. "Time" and "CPU" are the workload's own (measured inside the process: what heaptrack's recording of every allocation's stack costs the program); "wall incl. reading" is the whole command, memleak reading the trace afterwards (heaptrack_interpret, heaptrack_print on the whole trace, and on its parts up to the three cuts when a stack outside the C library and CPython is in it) included.`,
    "",
    ...r.workloads.flatMap((w) => [
      `**${w.workload}**`,
      "",
      table(
        ["variant", "time", "× alone", "× untraced run", "CPU", "CPU × alone", "wall incl. reading"],
        w.rows.map((x) => [
          x.name,
          secs(x.seconds),
          ratio(x.vsAlone),
          ratio(x.vsUntraced),
          secs(x.cpu),
          ratio(x.cpuVsAlone),
          secs(x.wall),
        ]),
      ),
      "",
    ]),
  ];
  return { title: "j. run --trace-native: what heaptrack costs the target", md: md.join("\n"), data: r };
}

/** k. The holder search's pause (issue 29). */
async function sectionK(o, log) {
  const runs = holderPause({ sizes: [100_000, 1_000_000], repeats: o.quick ? 3 : 7, log });
  const ms = (x) => `${num(x, x < 10 ? 1 : 0)} ms`;
  const rows = runs.flatMap((r) =>
    Object.entries(r.cases).map(([name, c]) => [
      r.objects.toLocaleString("en-US"),
      name,
      c.found ? `\`${c.path}\`` : c.path,
      c.passes,
      ms(c.ms),
      ms(c.cpuMs),
      ms(c.longestPassMs),
      ms(c.programGapMs),
      ms(c.idleGapMs),
      ms(r.fullCollectionMs),
      ratio(c.longestPassMs / r.fullCollectionMs),
    ]),
  );
  const md = [
    `The agent's holder search (src/agent/python/memleak_holder.py) in ${runs[0].python}, on a thread of its own as in the agent, while the program's thread wakes every millisecond; medians of ${o.quick ? 3 : 7} searches per chain. "Longest pass" is the longest single gc.get_referrers call (the GIL held throughout); "program's longest gap" is the longest the ticking thread waited between two wake-ups during the search, beside its longest gap over an idle window as long (the baseline: the tick's own jitter on this machine). A full \`gc.collect()\` of the same heap is the pause the interpreter takes anyway. The search runs once per growing container, only when the census has seen it grow at two walks in a row.`,
    "",
    table(
      [
        "objects",
        "chain",
        "reported",
        "passes",
        "wall",
        "CPU",
        "longest pass",
        "program's longest gap",
        "idle gap (baseline)",
        "full gc.collect()",
        "longest pass ÷ gc.collect()",
      ],
      rows,
    ),
  ];
  return { title: "k. The holder search's pause on the program", md: md.join("\n"), data: runs };
}

const SECTIONS = {
  a: sectionA,
  b: sectionB,
  c: sectionC,
  d: sectionD,
  e: sectionE,
  f: sectionF,
  g: sectionG,
  h: sectionH,
  i: sectionI,
  j: sectionJ,
  k: sectionK,
};

function document(o, m, done, started) {
  const when = started
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d+Z$/, " UTC");
  return `# Benchmarks

Written by \`npm run bench${o.quick ? " -- --quick" : ""}\` on ${when} (${o.quick ? "quick mode: shorter windows, fewer repeats, " + o.fpSeconds + " s of steady scenarios" : "full mode"}; took ${num((Date.now() - started.getTime()) / 60000, 1)} min). Reproduce with:

\`\`\`sh
npm run bench                 # full: 20 s sampling windows ×3, 600 s of steady scenarios (~20 min)
npm run bench -- --quick      # the same, shorter (~5 min)
npm run bench -- --fp-seconds 300 --sections c    # one section, another false-positive duration
npm run bench -- --sections g --whole-minutes 60  # the hour-long soak of the whole watch process
npm run scenarios             # every fixtures/scenarios/*.py: expected vs got, time to verdict
\`\`\`

Every figure is a ratio against a baseline measured in the same run, or a median over repeats: the machine is shared
and noisy, and absolute numbers from different runs do not compare. Needs root (cgroup isolation), Debian's
python3-torch and python3-psutil under /usr/bin/python3, and GNU time.

| machine | |
| --- | --- |
| CPU | ${m.cpu} |
| cores (nproc) | ${m.nproc} |
| memory | ${m.memory} |
| kernel | ${m.kernel} |
| Node | ${m.node} |

${done.map((s) => `## ${s.title}\n\n${s.md}\n`).join("\n")}
## How the figures are taken

- **a.** \`Sampler.tick()\` from dist/sampling/sampler.js at the given rate, \`process.cpuUsage()\` around each tick (the whole
  Node process: parsing, the smaps budget, GC). Its HostFs is wrapped to log every path a tick reads or lists; half a
  period later (so both run after a sleep, with cold caches) a bare loop opens, reads to the end and closes exactly
  those files — what the kernel charges for the same information. psutil runs in its own /usr/bin/python3 at the same
  rate: tree discovery plus \`memory_full_info()\` (statm + smaps_rollup) per process, CPU by \`time.process_time()\`.
  The sampler of each rate is ticked 4 s unmeasured first (a new sampler re-reads every command line for 3 s, and the
  JIT has not compiled the parsers), and the first second of each window is not counted (after the idle psutil window
  the smaps token bucket is full): the figures are the steady state of a long watch.
- **b.** the workload prints its own duration, so start-up of Python and of memleak is not counted.
- **c.** time to verdict is replayed from \`--record\` recordings through SeriesBuilder + classify, as
  \`memleak analyze\` would judge the recording cut at that moment.
- **d.** memory is the peak RSS of the whole \`node bin/memleak.js analyze\` process (V8 heap included).
- **f.** \`performance.now()\` around each call of the compiled function, in the benchmark's own Node process.
- **h.** the CPU of the pytest process from its session's start to its terminal summary (\`time.process_time()\` in
  the generated suite's conftest.py: every thread, memleak's agent included), and pytest's own wall time beside it.
- **g.** utime + stime of each whole process from /proc/PID/stat, read once a minute: memleak (\`node bin/memleak.js
  watch --no-inject\`), the bare reader (bench/lib/bare-reader.mjs, replaying the files 30 ticks of memleak's own
  Sampler read on the same tree, cycled) and psutil_cost.py. All configurations run at once. The first minute is
  left out (start-up); flatness compares 5-minute blocks, since a minute at 1% of a core is ~60 clock ticks.
- **j.** \`time.perf_counter()\` around each gc.get_referrers pass and the whole search, \`time.thread_time()\` for its
  CPU, and the gaps between a program thread's 1 ms sleeps (bench/py/holder_pause.py), all in one python3 process.
- **i.** \`process.cpuUsage()\` around \`Sampler.tick()\`, \`SessionMetrics.update()\`, \`registry.metrics()\` and a
  \`fetch\` of /metrics, in the benchmark's own process; \`analyze --prometheus\` and its baseline as whole processes under
  /usr/bin/time -v (user + system time, peak RSS), the answer served by the benchmark's own HTTP server.
`;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const started = new Date();
  const m = machine();
  const log = (s) => process.stderr.write(`bench: ${s}\n`);
  log(
    `${o.quick ? "quick" : "full"} run of sections ${o.sections.join(", ")} on ${m.nproc} × ${m.cpu}, ${m.memory}, Linux ${m.kernel}`,
  );
  const done = [];
  let failed = 0;
  for (const key of o.sections) {
    const section = SECTIONS[key];
    if (!section) throw new Error(`no section ${key}`);
    try {
      const s = await section(o, log);
      done.push(s);
      console.log(`\n## ${s.title}\n\n${s.md}\n`);
    } catch (err) {
      failed++;
      const s = { title: `${key}. failed`, md: `This section failed: ${err.message}` };
      done.push(s);
      console.log(`\n## ${s.title}\n\n${s.md}\n`);
    }
  }
  // BENCHMARKS.md is only rewritten by a full run: a partial one would drop the sections it skipped.
  if (ALL_SECTIONS.every((s) => o.sections.includes(s))) {
    writeFileSync(join(REPO, "BENCHMARKS.md"), document(o, m, done, started));
    log("wrote BENCHMARKS.md");
  } else {
    log("not all sections ran: BENCHMARKS.md left as it was");
  }
  process.exitCode = failed > 0 ? 1 : 0;
}

await main();
