/**
 * Sums a window of a `node --cpu-prof` profile (bench/sections/defaults.mjs MEMLEAK_BENCH_PROF): each function's self
 * time and its inclusive time (the samples it is on the stack of), from FROM to TO seconds after the profile starts,
 * so that `watch`'s steady state (every agent in) can be compared with `run`'s without the injection phase.
 * Usage: node bench/lib/profile-window.mjs PROFILE [FROM_S=0] [TO_S=∞] [TOP=40]
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";

/** { selfMs, totalMs } per "function file:line", and the window's sampled ms (idle excluded). */
export function profileWindow(profile, fromS = 0, toS = Infinity) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (n) => {
    const f = n.callFrame;
    return `${f.functionName || "(anonymous)"} ${f.url ? basename(f.url) : ""}:${f.lineNumber + 1}`;
  };
  const self = new Map();
  const total = new Map();
  let t = profile.startTime;
  let busyMs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    const s = (t - profile.startTime) / 1e6;
    if (s < fromS || s > toS) continue;
    // The sample's weight: the time to the next sample (the interval it stands for).
    const ms = (profile.timeDeltas[i + 1] ?? profile.timeDeltas[i]) / 1000;
    const leaf = byId.get(profile.samples[i]);
    const leafName = name(leaf);
    if (leafName.startsWith("(idle)")) continue;
    busyMs += ms;
    self.set(leafName, (self.get(leafName) ?? 0) + ms);
    const onStack = new Set();
    for (let id = leaf.id; id !== undefined; id = parent.get(id)) onStack.add(name(byId.get(id)));
    for (const k of onStack) total.set(k, (total.get(k) ?? 0) + ms);
  }
  return { busyMs, self, total };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, from = "0", to = "Infinity", top = "40"] = process.argv.slice(2);
  const { busyMs, self, total } = profileWindow(JSON.parse(readFileSync(file, "utf8")), Number(from), Number(to));
  console.log(`${file}: ${busyMs.toFixed(0)} ms sampled busy in [${from}, ${to}] s`);
  const show = (title, m) => {
    console.log(`-- ${title}`);
    for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, Number(top)))
      console.log(`${v.toFixed(0).padStart(8)} ms  ${((v / busyMs) * 100).toFixed(1).padStart(5)}%  ${k}`);
  };
  show("self", self);
  show("inclusive", total);
}
