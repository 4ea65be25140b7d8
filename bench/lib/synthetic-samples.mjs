/**
 * Samples (as the sampler records them) built from seeded synthetic series: a JavaScript copy of
 * test/helpers/synthetic-samples.ts (the benchmark must not import from test/), so the synthetic figures here are
 * computed on the same kind of input as the decision-table tests (less its agent option, unused here). Keep the two
 * in step.
 */
import { generate, MB } from "../../dist/analysis/synthetic.js";

export { MB };

function series(seconds, hz, seed, o) {
  return generate({ seconds, hz, baseline: 100 * MB, noise: 0, seed, ...o }).ys;
}

/**
 * sc: { seconds, hz?, seed?, processes: [{ pid, ppid, anon: {shape,…}, uss?, file?, lives?: [from, to) }],
 *       cache?, kernel?, shmem?, noCgroup? } — as in the test helper.
 */
export function synthesize(sc) {
  const hz = sc.hz ?? 1;
  const seed = sc.seed ?? 1;
  const n = Math.floor(sc.seconds * hz);
  const per = sc.processes.map((p, i) => ({
    p,
    anon: series(sc.seconds, hz, seed + i, p.anon),
    uss: p.uss ? series(sc.seconds, hz, seed + 100 + i, p.uss) : undefined,
  }));
  const flat = (o) => (o ? series(sc.seconds, hz, seed + 7, { baseline: 0, ...o }) : undefined);
  const cache = flat(sc.cache);
  const kernel = flat(sc.kernel);
  const shmem = flat(sc.shmem);
  const samples = [];
  const t0 = 1_700_000_000_000;
  for (let i = 0; i < n; i++) {
    const t = i / hz;
    const processes = [];
    for (const { p, anon, uss } of per) {
      if (p.lives && (t < p.lives[0] || t >= p.lives[1])) continue;
      const file = p.file ?? 30 * MB;
      const a = Math.round(anon[i]);
      const u = Math.round(uss ? uss[i] : a * 0.9);
      processes.push({ pid: p.pid, ppid: p.ppid, starttime: p.pid * 10, comm: "python3", rss: a + file, anon: a, file, shmem: 0, swap: 0, threads: 1, pss: u + file / 4, uss: u, sharedClean: file, sharedDirty: Math.max(0, a - u) });
    }
    const sum = processes.reduce((s, p) => s + p.anon, 0);
    const fileSum = processes.reduce((s, p) => s + p.file, 0);
    const c = cache?.[i] ?? 0;
    const k = kernel?.[i] ?? 10 * MB;
    const sh = shmem?.[i] ?? 0;
    const usage = sum + fileSum + c + k + sh;
    const sample = { t: t0 + t * 1000, processes };
    if (!sc.noCgroup) {
      sample.cgroup = {
        usage,
        workingSet: usage - (c + fileSum) * 0.8,
        limit: null,
        kernel: k,
        stat: { anon: sum, file: fileSum + c + sh, shmem: sh, inactiveFile: (c + fileSum) * 0.8, activeFile: (c + fileSum) * 0.2 },
      };
    }
    samples.push(sample);
  }
  return samples;
}
