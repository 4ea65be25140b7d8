#!/usr/bin/env node
/**
 * Where each real recording sits against each verdict threshold: the measured side of the sources the thresholds
 * cite (src/analysis/signals/*.ts, assess.ts). For every recording in fixtures/recordings and fixtures/calibration/
 * recordings it prints, next to its expected verdict:
 *   held share, free-covers and held bytes of each process the agent reported on   (fragmentation)
 *   USS growth and the resident/RSS share of it of each forked process              (cow)
 *   the cgroup's growth split: cache + kernel, processes, shmem shares              (cgroup-artefact)
 *   the root's growth against its floor, and the warm-up found against its cap      (leak, warm-up)
 *
 *   npm run build && node scripts/threshold-margins.mjs [--json FILE]
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { analyzeRecording } from "../dist/recording/replay.js";
import { levels, minGrowth } from "../dist/analysis/assess.js";
import { retention } from "../dist/analysis/signals/fragmentation.js";
import { breakdownChange } from "../dist/analysis/signals/cgroup.js";
import { assess } from "../dist/analysis/assess.js";
import { WARMUP_MAX_FRACTION } from "../dist/analysis/stats/warmup.js";

const ROOT = new URL("..", import.meta.url).pathname;
const SETS = [
  ["fixtures/recordings", "fixtures/scenarios"],
  ["fixtures/calibration/recordings", "fixtures/calibration"],
];
const MiB = 2 ** 20;
const mib = (b) => (b === undefined || !Number.isFinite(b) ? "–" : (b / MiB).toFixed(1));
const share = (a, b) => (a === undefined || !(b > 0) ? "–" : (a / b).toFixed(2));

function expectation(dir, name) {
  try {
    return /^# expect: (\S+)/m.exec(readFileSync(join(ROOT, dir, `${name}.py`), "utf8"))?.[1] ?? "?";
  } catch {
    return "?";
  }
}

function processRows(set) {
  const rows = [];
  for (const ps of set.processes.values()) {
    const r = retention(ps);
    const uss = ps.metrics.uss;
    const resident = ps.metrics.anon ?? ps.metrics.rss;
    let cow;
    if (uss && resident && uss.length >= 6) {
      const u = levels(uss.ys);
      const a = levels(resident.ys);
      const rss = ps.metrics.rss ? levels(ps.metrics.rss.ys) : undefined;
      const g = u.end - u.start;
      cow = {
        ussGrowth: g,
        residentShare: g > 0 ? (a.end - a.start) / g : undefined,
        rssShare: g > 0 && rss ? (rss.end - rss.start) / g : undefined,
        rssMax: ps.metrics.rss?.max(),
      };
    }
    rows.push({
      pid: ps.pid,
      ...(r && {
        held: r.held,
        heldShare: r.heldShare,
        freeCovers: r.held > 0 ? r.mallocFree / r.held : undefined,
        liveGrowth: r.liveGrowth,
      }),
      ...(cow && { cow }),
    });
  }
  return rows;
}

async function measure(dir, file) {
  const name = file.split(".")[0];
  const { doc, set } = await analyzeRecording(join(ROOT, dir, file));
  const root = [...set.processes.values()].find((p) => p.pid === set.rootPid);
  const col = root?.metrics.anon ?? root?.metrics.rss;
  const a = col ? assess(col, doc.window.warmup, 0) : undefined;
  let cgroup;
  if (set.cgroup.cgroup) {
    const c = assess(set.cgroup.cgroup, doc.window.warmup, 0);
    const d = breakdownChange(set, c, c.shape === "growing" ? doc.window.warmup : 0);
    const g = Math.max(d.usage, 1);
    cgroup = {
      usage: d.usage,
      cacheLike: ((d.cache ?? 0) + (d.kernel ?? 0)) / g,
      processes: d.processes === undefined ? undefined : d.processes / g,
      shmem: (d.shmem ?? 0) / g,
    };
  }
  return {
    name: file.replace(/\.jsonl$/, ""),
    set: dir,
    expect: expectation(SETS.find(([r]) => r === dir)[1], name),
    verdict: doc.verdict.kind,
    seconds: doc.window.end,
    warmup: doc.window.warmup,
    warmupCap: WARMUP_MAX_FRACTION * doc.window.end,
    root: a && { growth: a.growth, floor: minGrowth(a.start), p: a.p, shape: a.shape },
    cgroup,
    processes: processRows(set),
  };
}

function print(results) {
  const line = (cells) => console.log(cells.join(" | "));
  line([
    "recording",
    "expect",
    "got",
    "s",
    "warm-up/cap s",
    "root growth/floor MiB (p)",
    "cgroup Δ MiB: cache+kernel, processes, shmem",
    "held MiB (share, free covers) per agent pid",
    "cow: USS Δ MiB (anon, RSS share)",
  ]);
  for (const r of results) {
    const held = r.processes
      .filter((p) => p.held !== undefined)
      .map((p) => `${mib(p.held)} (${share(p.heldShare, 1)}, ${share(p.freeCovers, 1)})`);
    const cow = r.processes
      .filter((p) => p.cow && p.cow.ussGrowth > 4 * MiB)
      .map((p) => `${mib(p.cow.ussGrowth)} (${share(p.cow.residentShare, 1)}, ${share(p.cow.rssShare, 1)})`);
    line([
      r.name,
      r.expect,
      r.verdict,
      r.seconds.toFixed(0),
      `${r.warmup.toFixed(1)}/${r.warmupCap.toFixed(1)}${r.warmup >= r.warmupCap - 0.5 ? " (cap)" : ""}`,
      r.root ? `${mib(r.root.growth)}/${mib(r.root.floor)} (${r.root.p.toPrecision(2)})` : "–",
      r.cgroup
        ? `${mib(r.cgroup.usage)}: ${share(r.cgroup.cacheLike, 1)}, ${share(r.cgroup.processes, 1)}, ${share(r.cgroup.shmem, 1)}`
        : "–",
      held.join("; ") || "–",
      cow.join("; ") || "–",
    ]);
  }
}

const jsonAt = process.argv.indexOf("--json");
const results = [];
for (const [dir] of SETS) {
  let files = [];
  try {
    files = readdirSync(join(ROOT, dir))
      .filter((f) => f.endsWith(".jsonl"))
      .sort();
  } catch {
    continue;
  }
  for (const f of files) results.push(await measure(dir, f));
}
print(results);
if (jsonAt > 0) writeFileSync(process.argv[jsonAt + 1], JSON.stringify(results, null, 2) + "\n");
