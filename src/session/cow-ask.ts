/**
 * When to ask a forked worker's agent which of its parent's objects it copied (issue 51, memleak_cow.py). The walk is
 * cheap (20–100 ms) but not free, and a DataLoader's workers live only an epoch: so it is asked of a process while it
 * lives, once its private memory (USS) has risen by what copy-on-write's finding needs (signals/cow.ts: the floor,
 * with resident memory flat), and again only when it has copied markedly more since, at most every ASK_GAP_S seconds
 * and ASKS_PER_PROCESS times. The last answer is what the report shows; a worker that exits keeps it. Only forked
 * workers are asked (a parent in the tree, no children of their own). When the session ends with the workers alive
 * (`watch --duration`, Ctrl-C), each that was asked and has copied the floor more since is asked once more (atEnd): a
 * worker writing its copy of an array was named at 93.6 MiB from a look 10 s old while it held 122 MiB.
 *
 * A worker that had copied the floor before its first reading (signals/cow.ts copiedAtFirstSight: a pool worker
 * reading the whole dataset in its first second, whose USS is flat from then on) is asked at once: its copying shows
 * in no rise, and its parent's USS rose as it copied (the parent's pages became its own), which said nothing of which
 * data.
 */
import { COW_MIN_BYTES, copiedAtFirstSight, copiedSince, copiedSoFar } from "../analysis/signals/cow.js";
import type { ProcessSample } from "../system/sample.js";

/** Seconds between two asks of one process: copying worth a new answer takes longer than a sample or two. */
export const ASK_GAP_S = 10;
export const ASKS_PER_PROCESS = 4;
/** Asked again when USS has grown by this share of what it had copied at the last ask (and the floor). */
export const ASK_AGAIN_SHARE = 0.25;

interface Watched {
  starttime: number;
  ussStart: number;
  anonStart: number;
  askedAt?: number;
  askedCopied?: number;
  asks: number;
  /** What it had copied before its first reading, when that passed the floor. */
  before?: number;
}

export class CowAsk {
  private readonly watched = new Map<number, Watched>();

  /**
   * @param ask sends the word; false when the process has no agent connected (asked again at its next reading)
   * @returns the pids asked this time
   */
  consider(processes: readonly ProcessSample[], nowS: number, ask: (pid: number) => boolean): number[] {
    const asked: number[] = [];
    // At every tick of a watch with agents: two sets, the parents' anon only when a worker is new, and indexed loops
    // (for…of's iterator results were most of what this allocated: issue 49, BENCHMARKS §g¹⁷).
    const live = new Set<number>();
    const parents = new Set<number>();
    for (let i = 0; i < processes.length; i++) {
      live.add(processes[i]!.pid);
      parents.add(processes[i]!.ppid);
    }
    let anonOf: Map<number, number | undefined> | undefined;
    // A parent's pages become private to it as its children copy them: its answer would name the children's reading as
    // its own. Only a forked worker is asked: its parent in the tree, no children of its own.
    for (let i = 0; i < processes.length; i++) {
      const p = processes[i]!;
      if (p.uss === undefined || p.anon === undefined || !live.has(p.ppid) || parents.has(p.pid)) continue;
      let w = this.watched.get(p.pid);
      if (!w || w.starttime !== p.starttime) {
        anonOf ??= new Map(processes.map((q) => [q.pid, q.anon]));
        const before = copiedAtFirstSight(p, anonOf.get(p.ppid));
        w = {
          starttime: p.starttime,
          ussStart: p.uss,
          anonStart: p.anon,
          asks: 0,
          ...(before !== undefined && { before }),
        };
        this.watched.set(p.pid, w);
        if (before === undefined) continue;
      }
      const copied = copiedTotal(w, p.uss, p.anon);
      if (copied === undefined || w.asks >= ASKS_PER_PROCESS) continue;
      if (w.askedAt !== undefined) {
        if (nowS - w.askedAt < ASK_GAP_S) continue;
        if (copied - w.askedCopied! < Math.max(COW_MIN_BYTES, ASK_AGAIN_SHARE * w.askedCopied!)) continue;
      }
      if (!ask(p.pid)) continue;
      w = { ...w, askedAt: nowS, askedCopied: copied, asks: w.asks + 1 };
      this.watched.set(p.pid, w);
      asked.push(p.pid);
    }
    this.watched.forEach((_, pid) => {
      if (!live.has(pid)) this.watched.delete(pid);
    });
    return asked;
  }

  /**
   * The session's end, its last sample `processes`: asks once more each living worker asked before that copied the
   * floor more since (whatever the gap, the count and the share: one more look, 10-50 ms, for the figure the report
   * keeps). Returns the pids asked.
   */
  atEnd(processes: readonly ProcessSample[], ask: (pid: number) => boolean): number[] {
    const asked: number[] = [];
    // As consider(): a worker that has children of its own now would name their copying as its own.
    const parents = new Set(processes.map((p) => p.ppid));
    for (const p of processes) {
      if (parents.has(p.pid)) continue;
      const w = this.watched.get(p.pid);
      if (!w || w.starttime !== p.starttime || w.askedAt === undefined || p.uss === undefined || p.anon === undefined)
        continue;
      const copied = copiedTotal(w, p.uss, p.anon);
      if (copied === undefined || copied - w.askedCopied! < COW_MIN_BYTES) continue;
      if (ask(p.pid)) asked.push(p.pid);
    }
    return asked;
  }
}

/** What a worker copied: before its first reading (when that passed the floor) and since, or since alone past the floor. */
function copiedTotal(w: Watched, uss: number, anon: number): number | undefined {
  if (w.before === undefined) return copiedSoFar(w, uss, anon);
  return w.before + Math.max(0, copiedSince(w, uss, anon));
}
