/**
 * The floor under `memleak watch`: a Node process that does only what one tick does — Sampler.tick() and
 * SeriesBuilder.add() — on the watch's schedule, with no session around it (no verdict so far, no worker, no
 * presenter). Between it and the bare reader is the JavaScript of a tick; between it and memleak, the rest.
 * Usage: node tick-only.mjs BUILD_DIR PID HZ SECONDS
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [dir, pid, hz, seconds] = [
  process.argv[2],
  Number(process.argv[3]),
  Number(process.argv[4]),
  Number(process.argv[5]),
];
const load = (path) => import(pathToFileURL(join(dir, "dist", path)).href);
const { Sampler } = await load("sampling/sampler.js");
const { SeriesBuilder } = await load("series/series.js");
const { DEFAULT_CAPACITY } = await load("series/column.js");
const { INTERIM_POINTS } = await load("session/interim/verdicts.js");
const { HostFs } = await load("system/host-fs.js");
const { locateMemoryCgroup } = await load("system/cgroup-locate.js");

const fs = new HostFs();
const loc = locateMemoryCgroup(fs, pid);
const sampler = new Sampler({ fs, rootPid: pid, cgroup: loc.ok ? loc.location : undefined });
const builder = new SeriesBuilder(DEFAULT_CAPACITY, INTERIM_POINTS);
const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const started = performance.now();
for (let i = 0; performance.now() - started < seconds * 1000; i++) {
  const sample = sampler.tick();
  if (!sample) break;
  builder.add(sample);
  await sleep(started + (i + 1) * (1000 / hz) - performance.now());
}
