/**
 * d. memleak's own memory after a long watch: a simulated 72-hour, 1 Hz recording (259,200 samples of 3 processes
 * and their cgroup, fields as the sampler writes them) analyzed by `memleak analyze`, against 1-hour and 24-hour
 * ones. The series columns compact to ≤ 20k points, so memleak's peak RSS must stop growing with the length of the
 * watch: the 72 h peak should be about the 24 h one.
 * Peak RSS and wall time come from /usr/bin/time -v around the CLI; renderHtml is timed in this process on the same
 * series, and the longest column is checked there too.
 */
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_CAPACITY } from "../../dist/series/column.js";
import { analyzeRecording } from "../../dist/recording/replay.js";
import { generate, MB } from "../../build/support/test/helpers/synthetic.js";
import { renderHtml } from "../../dist/report/html/index.js";
import { exec, median, MEMLEAK } from "../lib/util.mjs";

const T0 = 1_700_000_000_000;
const CGROUP = "/kubepods/burstable/pod-bench/memleak-bench";

/**
 * A service and two workers: the root steady, worker 1 leaking 5 MiB/h, worker 2 with a GC-like sawtooth. Each
 * process's smaps numbers appear on alternate ticks, as they do when the budget cannot read all three every second.
 */
export function writeRecording(path, seconds) {
  const gen = (seed, baseline, shape, noise = 4 * MB) => generate({ seconds, hz: 1, baseline, shape, noise, seed }).ys;
  const procs = [
    {
      pid: 4100,
      ppid: 4000,
      comm: "python3",
      cmdline: ["python3", "serve.py"],
      anon: gen(1, 400 * MB, { kind: "stable" }),
    },
    {
      pid: 4101,
      ppid: 4100,
      comm: "python3",
      cmdline: ["python3", "-c", "from multiprocessing.spawn …"],
      anon: gen(2, 250 * MB, { kind: "linear", bytesPerSecond: (5 * MB) / 3600 }),
    },
    {
      pid: 4102,
      ppid: 4100,
      comm: "python3",
      cmdline: ["python3", "-c", "from multiprocessing.spawn …"],
      anon: gen(3, 250 * MB, { kind: "sawtooth", period: 600, amplitude: 60 * MB }),
    },
  ];
  const cache = gen(4, 300 * MB, { kind: "stable" }, 20 * MB);
  const fd = openSync(path, "w");
  const header = {
    type: "header",
    schema: "memleak.recording/1",
    startedAt: T0,
    interval: 1,
    target: { pid: 4100, mode: "watch" },
    machine: { hostname: "bench", kernel: "6.18.44", cpus: 2, memTotal: 25276510208, pageSize: 4096 },
    memleakVersion: "0.1.0",
    cgroup: { path: CGROUP, version: 2, isolated: false },
  };
  let chunk = JSON.stringify(header) + "\n";
  for (const p of procs) {
    chunk +=
      JSON.stringify({
        type: "event",
        t: T0,
        event: "process-start",
        detail: { pid: p.pid, ppid: p.ppid, comm: p.comm, cmdline: p.cmdline },
      }) + "\n";
  }
  let peak = 0;
  for (let i = 0; i < seconds; i++) {
    const processes = procs.map((p, k) => {
      const anon = Math.round(p.anon[i]);
      const file = 180 * MB + k * 4096;
      const s = {
        pid: p.pid,
        ppid: p.ppid,
        starttime: 220000 + k,
        comm: p.comm,
        cpuTicks: 12 * i + k,
        rss: anon + file,
        anon,
        file,
        shmem: 0,
        swap: 0,
        hwm: anon + file + 8 * MB,
        threads: k === 0 ? 14 : 3,
      };
      if ((i + k) % 2 === 0) {
        const uss = Math.round(anon * 0.93);
        Object.assign(s, { pss: uss + file / 3, uss, pssAnon: uss, sharedClean: file, sharedDirty: anon - uss });
      }
      return s;
    });
    const anonSum = processes.reduce((a, p) => a + p.anon, 0);
    const fileSum = Math.round(cache[i]) + 3 * 180 * MB;
    const kernel = 24 * MB;
    const usage = anonSum + fileSum + kernel;
    peak = Math.max(peak, usage);
    const inactiveFile = Math.round(fileSum * 0.7);
    const cgroup = {
      usage,
      limit: 4 * 2 ** 30,
      peak,
      oomKills: 0,
      stat: {
        anon: anonSum,
        file: fileSum,
        activeFile: fileSum - inactiveFile,
        inactiveFile,
        activeAnon: Math.round(anonSum * 0.9),
        inactiveAnon: Math.round(anonSum * 0.1),
        shmem: 0,
        fileMapped: 3 * 180 * MB,
        fileDirty: 4096 * (i % 64),
        fileWriteback: 0,
        swap: 0,
      },
      workingSet: usage - inactiveFile,
      kernel,
    };
    chunk += JSON.stringify({ type: "sample", t: T0 + i * 1000, processes, cgroup }) + "\n";
    if (chunk.length > 1 << 20) {
      writeSync(fd, chunk);
      chunk = "";
    }
  }
  writeSync(fd, chunk);
  closeSync(fd);
  return statSync(path).size;
}

/** Peak RSS (bytes) and wall time (s) of `memleak analyze`, from GNU time's -v report. */
async function analyzeUnderTime(file, extra = []) {
  const r = await exec(["/usr/bin/time", "-v", process.execPath, MEMLEAK, "analyze", file, "--json", ...extra], {
    timeoutMs: 600_000,
  });
  const kb = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr)?.[1];
  const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)/.exec(r.stderr);
  if (!kb || !wall)
    throw new Error(
      `memleak analyze under /usr/bin/time failed (exit ${r.code}): ${r.stderr.trim().split("\n").slice(-4).join(" / ")} — is GNU time installed (apt-get install time)?`,
    );
  let verdict;
  try {
    verdict = JSON.parse(r.stdout).verdict.kind;
  } catch {
    verdict = undefined;
  }
  return {
    peakRss: Number(kb) * 1024,
    wall: Number(wall[1] ?? 0) * 3600 + Number(wall[2]) * 60 + Number(wall[3]),
    verdict,
  };
}

/** The same analysis in this process, to time renderHtml alone and to look at the columns' lengths. */
async function inProcess(file) {
  const { doc, set, commands } = await analyzeRecording(file);
  const columns = [
    ...[...set.processes.values()].flatMap((p) => [...Object.values(p.metrics), p.shared, ...Object.values(p.agent)]),
    ...Object.values(set.tree),
    set.treeCount,
    ...Object.values(set.cgroup),
    set.cgroupOomKills,
  ];
  const t0 = performance.now();
  const html = renderHtml(doc, set, { commands });
  return {
    htmlMs: performance.now() - t0,
    htmlBytes: html.length,
    longestColumn: Math.max(...columns.map((c) => c.length)),
    columns: columns.length,
    samples: set.samples,
  };
}

export async function longWatch({ hours = 72, repeats, log = () => {} }) {
  const dir = mkdtempSync(join(tmpdir(), "memleak-bench-long-"));
  try {
    // 1 h is the baseline; 24 h shows whether the peak has stopped growing by the time the columns have compacted.
    const lengths = [1, 24, hours];
    const files = lengths.map((h) => join(dir, `${h}h.jsonl`));
    log(`long watch: writing ${lengths.join(", ")} h recordings`);
    const bytes = lengths.map((h, i) => writeRecording(files[i], h * 3600));
    const runs = lengths.map(() => []);
    const html = [];
    for (let r = 0; r < repeats; r++) {
      log(`long watch: analyze, round ${r + 1}/${repeats}`);
      for (const [i, f] of files.entries()) runs[i].push(await analyzeUnderTime(f));
      html.push(await analyzeUnderTime(files.at(-1), ["--html", join(dir, "report.html")]));
    }
    log("long watch: renderHtml in process");
    const inproc = await inProcess(files.at(-1));
    const pick = (rs, k) => median(rs.map((x) => x[k]));
    const results = lengths.map((h, i) => ({
      hours: h,
      samples: h * 3600,
      bytes: bytes[i],
      peakRss: pick(runs[i], "peakRss"),
      wall: pick(runs[i], "wall"),
      verdict: runs[i][0].verdict,
    }));
    const [oneHour, day, long] = results;
    return {
      hours,
      results,
      html: { peakRss: pick(html, "peakRss"), wall: pick(html, "wall") },
      vsOneHour: long.peakRss / oneHour.peakRss,
      vsDay: long.peakRss / day.peakRss,
      capacity: DEFAULT_CAPACITY,
      ...inproc,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
