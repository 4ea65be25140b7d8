/**
 * Several builds of memleak watching one tree at once, beside one bare reader of memleak's read set (section g's
 * baseline) and, optionally, the tick-only floor (lib/tick-only.mjs): which build costs less, with the machine's noise
 * shared by all of them. What a change is worth, before the long paired runs of `npm run bench -- --sections g`.
 *
 *   node bench/compare-builds.mjs MINUTES HZ small|torch BUILD... [tick:BUILD]
 *
 * Each BUILD is a checkout with dist/ built (`git worktree add /tmp/base HEAD~1 && (cd /tmp/base && npm ci && npm run
 * build)`); `tick:BUILD` runs that build's Sampler and series alone. The read set is captured with this checkout's
 * Sampler, after its first PSS_EAGER_SECONDS. Prints each watcher's share of a core over minutes 2..MINUTES, its
 * ratio to the bare reader, and its CPU by thread (the sampling thread is "main"; the verdict worker and V8's
 * helpers are all called "node").
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { locateMemoryCgroup } from "../dist/system/cgroup-locate.js";
import { HostFs } from "../dist/system/host-fs.js";
import { PSS_EAGER_SECONDS } from "../dist/sampling/sampler.js";
import { REPO, sleep, sum } from "./lib/util.mjs";
import { loggingSampler, startTree } from "./sections/sampling.mjs";
import { TREES } from "./sections/whole-process.mjs";

const [minutes, hz, treeName, ...builds] = [
  Number(process.argv[2]),
  Number(process.argv[3]),
  process.argv[4],
  ...process.argv.slice(5),
];
const tree = treeName === "torch" ? "9 processes (torch, ~2 GB)" : "64 small processes";
const cpu = (pid) => {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return undefined;
  }
};
/** CPU seconds by thread name (main thread "main"), summed over threads of one name. */
const threads = (pid) => {
  const out = {};
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const s = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
        const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
        const name = Number(tid) === pid ? "main" : readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim();
        out[name] = (out[name] ?? 0) + (Number(f[11]) + Number(f[12])) / 100;
      } catch {}
    }
  } catch {}
  return out;
};
const [script, args] = TREES[tree];
const t = await startTree(args, script);
const dir = mkdtempSync(join(tmpdir(), "memleak-compare-"));
const loc = locateMemoryCgroup(new HostFs(), t.pid);
const { sampler, log } = loggingSampler(t.pid, loc.ok ? loc.location : undefined);
const reads = [];
const started = performance.now();
const warm = (PSS_EAGER_SECONDS + 2) * hz;
for (let i = 0; i < warm + Math.max(30, 6 * hz); i++) {
  log.length = 0;
  sampler.tick();
  if (i >= warm) reads.push(log.slice());
  await sleep(started + (i + 1) * (1000 / hz) - performance.now());
}
writeFileSync(join(dir, "reads.json"), JSON.stringify(reads));
const seconds = minutes * 60;
const start = (name, argv) => {
  const child = spawn(argv[0], argv.slice(1), {
    cwd: REPO,
    stdio: ["ignore", "pipe", "ignore"],
    env: { ...process.env, NO_COLOR: "1" },
  });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  return { name, pid: child.pid, exited: new Promise((r) => child.once("exit", () => r(out))) };
};
const ws = [start("bare", ["node", "bench/lib/bare-reader.mjs", join(dir, "reads.json"), String(hz), String(seconds)])];
for (const b of builds.filter((x) => x.startsWith("tick:")))
  ws.push(start(b, ["node", "bench/lib/tick-only.mjs", b.slice(5), String(t.pid), String(hz), String(seconds)]));
for (const b of builds.filter((x) => !x.startsWith("tick:")))
  ws.push(
    start(b, [
      "node",
      join(b, "bin/memleak.js"),
      "watch",
      String(t.pid),
      "--no-inject",
      "--interval",
      `${1 / hz}s`,
      "--duration",
      `${seconds}s`,
      "--json",
    ]),
  );
const last = ws.map((w) => cpu(w.pid) ?? 0);
const per = ws.map(() => []);
const t0 = performance.now();
let byThread0;
let byThread1;
for (let m = 1; m <= minutes; m++) {
  await sleep(t0 + Math.min(m * 60, seconds - 1) * 1000 - performance.now());
  ws.forEach((w, i) => {
    const now = cpu(w.pid);
    per[i].push(now === undefined ? NaN : now - last[i]);
    if (now !== undefined) last[i] = now;
  });
  if (m === 1) byThread0 = ws.map((w) => threads(w.pid));
  if (m === minutes) byThread1 = ws.map((w) => threads(w.pid));
  console.error(
    `minute ${m}: ${ws.map((w, i) => `${w.name} ${((per[i][m - 1] * 1000) / 60).toFixed(2)} ms/s`).join(", ")}`,
  );
}
const docs = await Promise.all(ws.map((w) => w.exited));
t.stop();
const share = (xs) => sum(xs.slice(1)) / (60 * (xs.length - 1));
const bare = share(per[0]);
ws.forEach((w, i) => {
  let sampling = "";
  try {
    sampling = JSON.stringify(JSON.parse(docs[i]).sampling);
  } catch {}
  console.log(
    `${w.name.padEnd(20)} ${(share(per[i]) * 100).toFixed(3)}% of a core  ${(share(per[i]) / bare).toFixed(3)}× bare  ${sampling}`,
  );
  const span = (minutes - 1) * 60;
  const parts = Object.keys(byThread1[i]).map(
    (k) => `${k} ${(((byThread1[i][k] - (byThread0[i][k] ?? 0)) / span) * 1000).toFixed(2)}`,
  );
  console.log(`${"".padEnd(20)} ms/s by thread, minutes 2–${minutes}: ${parts.join(", ")}`);
});
