/**
 * Samples (as the sampler records them) built from seeded synthetic series, for the verdict engine's decision-table
 * tests and the benchmarks: one shape per metric of each process, and the cgroup built on top of the processes.
 */
import { generate, MB, type GenerateOptions, type Shape } from "./synthetic.js";
import type { ProcessSample, Sample } from "../../src/system/sample.js";

export { MB };

export interface SynthProcess {
  pid: number;
  ppid: number;
  /** Anonymous resident memory. */
  anon: Partial<GenerateOptions> & { shape: Shape };
  /** USS; defaults to anon × 0.9 (private pages of a process that is not forked). */
  uss?: Partial<GenerateOptions> & { shape: Shape };
  /** Resident file pages (libraries, mapped files): flat 30 MB by default, or a shape of its own. */
  file?: number | (Partial<GenerateOptions> & { shape: Shape });
  /** Seconds [from, to) the process exists; whole window by default. */
  lives?: [number, number];
  /** The agent's report at t; undefined before the agent is in. */
  agent?: (t: number) => Record<string, unknown> | undefined;
}

export interface SynthScenario {
  seconds: number;
  hz?: number;
  seed?: number;
  processes: SynthProcess[];
  /** Page cache in the cgroup beyond what the processes map, by time; none by default. */
  cache?: Partial<GenerateOptions> & { shape: Shape };
  kernel?: Partial<GenerateOptions> & { shape: Shape };
  shmem?: Partial<GenerateOptions> & { shape: Shape };
  /** Anonymous memory of processes in the cgroup that are not in the watched tree (a shared cgroup). */
  outsiders?: Partial<GenerateOptions> & { shape: Shape };
  /** No cgroup at all. */
  noCgroup?: boolean;
  /**
   * A kernel before 5.3: smaps_rollup has no Pss_Anon, so the tree is judged on Σ PSS, which counts the resident
   * pages of mapped files (here each process's file pages are its own: PSS = USS + file).
   */
  noPssAnon?: boolean;
}

function series(seconds: number, hz: number, seed: number, o: Partial<GenerateOptions> & { shape: Shape }): number[] {
  return generate({ seconds, hz, baseline: 100 * MB, noise: 0, seed, ...o }).ys;
}

export function synthesize(sc: SynthScenario): Sample[] {
  const hz = sc.hz ?? 1;
  const seed = sc.seed ?? 1;
  const n = Math.floor(sc.seconds * hz);
  const per = sc.processes.map((p, i) => ({
    p,
    anon: series(sc.seconds, hz, seed + i, p.anon),
    uss: p.uss ? series(sc.seconds, hz, seed + 100 + i, p.uss) : undefined,
    file:
      typeof p.file === "object" ? series(sc.seconds, hz, seed + 200 + i, { baseline: 30 * MB, ...p.file }) : undefined,
  }));
  const flat = (o?: Partial<GenerateOptions> & { shape: Shape }) =>
    o ? series(sc.seconds, hz, seed + 7, { baseline: 0, ...o }) : undefined;
  const cache = flat(sc.cache);
  const kernel = flat(sc.kernel);
  const shmem = flat(sc.shmem);
  const outside = flat(sc.outsiders);
  const samples: Sample[] = [];
  const t0 = 1_700_000_000_000;
  for (let i = 0; i < n; i++) {
    const t = i / hz;
    const processes: ProcessSample[] = [];
    const agent: Record<string, unknown> = {};
    for (const { p, anon, uss, file: fileSeries } of per) {
      if (p.lives && (t < p.lives[0] || t >= p.lives[1])) continue;
      const file = fileSeries ? Math.round(fileSeries[i]!) : typeof p.file === "number" ? p.file : 30 * MB;
      const a = Math.round(anon[i]!);
      const u = Math.round(uss ? uss[i]! : a * 0.9);
      const smaps = sc.noPssAnon ? { pss: u + file } : { pss: u + file / 4, pssAnon: u };
      processes.push({
        pid: p.pid,
        ppid: p.ppid,
        starttime: p.pid * 10,
        comm: "python3",
        rss: a + file,
        anon: a,
        file,
        shmem: 0,
        swap: 0,
        threads: 1,
        ...smaps,
        uss: u,
        sharedClean: file,
        sharedDirty: Math.max(0, a - u),
      });
      if (p.agent) agent[String(p.pid)] = p.agent(t);
    }
    const sum = processes.reduce((s, p) => s + p.anon!, 0) + (outside?.[i] ?? 0);
    const fileSum = processes.reduce((s, p) => s + p.file!, 0);
    const c = cache?.[i] ?? 0;
    const k = kernel?.[i] ?? 10 * MB;
    const sh = shmem?.[i] ?? 0;
    const usage = sum + fileSum + c + k + sh;
    const sample: Sample = { t: t0 + t * 1000, processes };
    if (!sc.noCgroup) {
      sample.cgroup = {
        usage,
        workingSet: usage - (c + fileSum) * 0.8,
        limit: null,
        kernel: k,
        stat: {
          anon: sum,
          file: fileSum + c + sh,
          shmem: sh,
          inactiveFile: (c + fileSum) * 0.8,
          activeFile: (c + fileSum) * 0.2,
        },
      };
    }
    if (Object.keys(agent).length > 0) sample.agent = agent;
    samples.push(sample);
  }
  return samples;
}
