/**
 * Which of the parent's data each forked worker copied (issue 51), end to end under `run`: a real PyTorch DataLoader
 * whose two forked workers read a Dataset of 400,000 strings (fixtures/scenarios/cow_dataloader.py, the
 * pytorch#20433 shape). memleak asks each copying worker's agent, which reads its own page flags; the finding must name
 * the dataset's list, say it is copied by reads (reference counts), and its private bytes must agree with what the
 * worker read (half the list) and stay within the worker's own Private_Dirty growth (the kernel's count, written by
 * the program). With gc.freeze() before the workers start (rows as [text, label] lists): the objects frozen, none of
 * the copying put on the collector, the advice for frozen data. Needs Debian's python3-torch. And under `watch`, workers
 * forked before memleak came: a copying worker gets an agent of its own (its placement's reason "copies"), which
 * names the list it reads. And gunicorn --preload's workers serving requests that read a module-level dict; and a
 * multiprocessing pool's workers that write to their parent's array: an expected copy, said so. (Workers that copied
 * before memleak first read them: cow-early.test.ts.)
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Finding, VerdictDocument } from "../../src/analysis/types.js";
import { memleak, startReady, SYSTEM_PYTHON, type Started } from "../helpers/processes.js";
import { get } from "../helpers/unix-http.js";
import { shownFindings, verdictOf } from "../helpers/verdict-doc.js";

const HAVE_TORCH = existsSync("/usr/lib/python3/dist-packages/torch");
const DATASET = "the DataLoader's dataset (TextDataset).samples";
const dirs: string[] = [];
const targets: Started[] = [];
afterAll(async () => {
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
  for (const t of targets) await t.stop();
});

/** memleak run --json on the program in `form`, and each worker's own Private_Dirty before and after its reads. */
async function underRun(form: string): Promise<{ doc: VerdictDocument; grew: Map<number, number>; trail: string }> {
  const dir = mkdtempSync(join(tmpdir(), "memleak-cow-"));
  dirs.push(dir);
  const report = join(dir, "workers.jsonl");
  const recording = join(dir, "run.jsonl");
  const r = await memleak([
    "run",
    "--interval",
    "0.5",
    "--json",
    "-o",
    recording,
    "--",
    SYSTEM_PYTHON,
    "fixtures/scenarios/cow_dataloader.py",
    "20",
    form,
    report,
  ]);
  expect(r.code, r.stderr).toBe(0);
  const grew = new Map<number, number>();
  for (const line of readFileSync(report, "utf8").trim().split("\n")) {
    const w = JSON.parse(line) as { pid: number; before: number; after: number };
    grew.set(w.pid, w.after - w.before);
  }
  const doc = verdictOf(r.stdout, r.stderr);
  return { doc, grew, trail: `${shownFindings(doc)}\n${cowTrail(recording)}` };
}

/**
 * What a failed expectation on the workers should show: each worker's USS and anon (MiB) at each reading with USS, and
 * the answers its agent gave (the last one of each is what the recording keeps).
 */
function cowTrail(recording: string): string {
  const lines: string[] = [];
  let t0: number | undefined;
  for (const line of readFileSync(recording, "utf8").split("\n")) {
    if (!line.startsWith("{")) continue;
    const r = JSON.parse(line) as {
      type: string;
      t: number;
      event?: string;
      detail?: { pid?: number; objects?: unknown[]; why?: string };
      processes?: { pid: number; ppid: number; uss?: number; anon?: number }[];
    };
    if (r.type === "sample") t0 ??= r.t;
    const at = t0 === undefined ? "?" : ((r.t - t0) / 1000).toFixed(1);
    const MiB = (n: number | undefined) => (n === undefined ? "-" : (n / 2 ** 20).toFixed(1));
    if (r.type === "sample") {
      const read = (r.processes ?? []).filter((p) => p.uss !== undefined);
      if (read.length)
        lines.push(`${at} s ${read.map((p) => `${p.pid}: uss ${MiB(p.uss)} anon ${MiB(p.anon)}`).join(", ")}`);
    } else if (r.event === "agent-cow")
      lines.push(
        `${at} s answer of ${r.detail?.pid}: ${r.detail?.objects?.length ?? 0} objects ${r.detail?.why ?? ""}`,
      );
  }
  return lines.join("\n");
}

const copiers = (doc: VerdictDocument): Finding[] =>
  doc.findings.filter((f) => f.subject.type === "process" && f.kind === "cow" && f.copied !== undefined);

describe.skipIf(!HAVE_TORCH)("what each DataLoader worker copied", { timeout: 120_000 }, () => {
  it("a list of str: the dataset's samples, copied by reads, about the half each worker read", async () => {
    const { doc, grew, trail } = await underRun("list");
    expect(doc.verdict.kind, trail).toBe("cow");
    const workers = copiers(doc);
    expect(workers.length, trail).toBeGreaterThanOrEqual(1);
    for (const f of workers) {
      const [top] = f.copied!.objects;
      expect(top).toMatchObject({ name: DATASET, what: "list of str", length: 400_000, how: "reads" });
      // each worker reads every other slab of the list: half its bytes
      expect(top!.private / top!.bytes).toBeGreaterThan(0.3);
      expect(top!.private / top!.bytes).toBeLessThan(0.6);
      // never more than the kernel says the worker copied (5% for the readings' different moments)
      expect(top!.private).toBeLessThan(1.05 * grew.get(f.copied!.pid)!);
      expect(f.copied!.walk.ms).toBeLessThan(1000);
      expect(f.advice).toMatch(/`the DataLoader's dataset \(TextDataset\)\.samples` \(list of str, 400,000 items\)/);
      expect(f.advice).toMatch(/`gc\.freeze\(\)` would not help/);
    }
    // the verdict carries it (the worker's own, or the tree's copy-on-write)
    expect(doc.verdict.copied?.objects[0]?.name).toBe(DATASET);
  });

  it("rows frozen with gc.freeze(): none of it put on the collector, and the advice for frozen data", async () => {
    const { doc, trail } = await underRun("frozen");
    const workers = copiers(doc);
    expect(workers.length, trail).toBeGreaterThanOrEqual(1);
    for (const f of workers) {
      const [top] = f.copied!.objects;
      expect(top).toMatchObject({ name: DATASET, what: "list of list", tracked: 0, how: "reads" });
      expect(f.copied!.frozen).toBeGreaterThan(400_000);
      expect(f.advice).toMatch(/the program froze what it had with `gc\.freeze\(\)`/);
    }
  });
});

/**
 * A service that loaded its data before forking two workers, which wait 3 s (memleak is watching by then) and then
 * read all of it over 10 s, as request handlers would: 300,000 strings, ~30 MiB.
 */
const FORKED_SERVICE = `
import os, sys, time
SAMPLES = ["sample %07d: %s" % (i, "x" * 40) for i in range(300000)]
kids = []
for _ in range(2):
    pid = os.fork()
    if pid == 0:
        time.sleep(3)
        step = len(SAMPLES) // 50
        for k in range(50):
            total = sum(len(s) for s in SAMPLES[k * step : (k + 1) * step])
            time.sleep(0.2)
        time.sleep(60)
        os._exit(0)
    kids.append(pid)
print("ready", flush=True)
for pid in kids:
    os.waitpid(pid, 0)
`;

describe("what workers forked before memleak came copied (watch)", { timeout: 120_000 }, () => {
  it("a copying worker gets an agent of its own, which names the list it reads", async () => {
    const target = await startReady(["python3", "-c", FORKED_SERVICE], /^ready$/m);
    targets.push(target);
    const r = await memleak(["watch", String(target.pid), "--duration", "22s", "--interval", "0.5", "--json"]);
    const doc = verdictOf(r.stdout, r.stderr);
    // each worker has an agent: "copies", or "grows" where its lows rose first (the reading loop's own lists)
    const reasons = doc.sampling?.agents?.in.filter((a) => a.pid !== target.pid).map((a) => a.reason) ?? [];
    expect(reasons.length, r.stderr).toBeGreaterThanOrEqual(1);
    expect(
      reasons.every((x) => x === "copies" || x === "grows"),
      reasons.join(","),
    ).toBe(true);
    const workers = copiers(doc);
    expect(workers.length, r.stderr).toBeGreaterThanOrEqual(1);
    for (const f of workers)
      expect(f.copied!.objects[0]).toMatchObject({ name: "__main__.SAMPLES", what: "list of str", how: "reads" });
  });
});

describe.skipIf(!existsSync("/usr/lib/python3/dist-packages/gunicorn"))(
  "gunicorn --preload",
  { timeout: 120_000 },
  () => {
    it("workers that read a module-level dict built in the master: the dict named, copied by reads", async () => {
      const dir = mkdtempSync(join(tmpdir(), "memleak-gunicorn-"));
      dirs.push(dir);
      const socket = join(dir, "web.sock");
      const run = memleak([
        "run",
        "--duration",
        "30",
        "--interval",
        "0.5",
        "--json",
        "--",
        SYSTEM_PYTHON,
        "-m",
        "gunicorn",
        "--preload",
        "-w",
        "2",
        "-b",
        `unix:${socket}`,
        "--chdir",
        "fixtures/cow",
        "lookup_app:app",
      ]);
      let over = false;
      void run.finally(() => (over = true));
      // 60 requests read the whole table once (5,000 entries each), spread over ~12 s; then the workers idle.
      let served = 0;
      for (let n = 0; !over && served < 60; n++) {
        if ((await get(socket, `/read/${served}`)) === 200) served++;
        await new Promise((r) => setTimeout(r, 200));
      }
      const r = await run;
      const doc = verdictOf(r.stdout, r.stderr);
      expect(served, r.stderr).toBe(60);
      const workers = copiers(doc);
      expect(workers.length, shownFindings(doc)).toBeGreaterThanOrEqual(1);
      for (const f of workers)
        expect(f.copied!.objects[0]).toMatchObject({ name: "lookup_app.TABLE", what: "dict of str", how: "reads" });
    });
  },
);

/** A pool whose two forked workers each add to half of their parent's 48 MB array, slowly, then idle. */
const POOL_WRITERS = `
import multiprocessing as mp, time
import numpy as np
WEIGHTS = np.ones(6_000_000)
def update(half):
    part = len(WEIGHTS) // 2
    for k in range(20):
        start = half * part + k * part // 20
        WEIGHTS[start : start + part // 20] += 1.0
        time.sleep(0.4)
    time.sleep(10)
    return half
if __name__ == "__main__":
    with mp.get_context("fork").Pool(2) as pool:
        pool.map(update, [0, 1])
`;

describe.skipIf(!HAVE_TORCH)("a pool worker that writes its parent's array", { timeout: 120_000 }, () => {
  it("its own buffer's copy: 'writes', and the advice says it is expected", async () => {
    const r = await memleak(["run", "--interval", "0.5", "--json", "--", SYSTEM_PYTHON, "-c", POOL_WRITERS]);
    const doc = verdictOf(r.stdout, r.stderr);
    const workers = copiers(doc);
    expect(workers.length, shownFindings(doc)).toBeGreaterThanOrEqual(1);
    for (const f of workers) {
      expect(f.copied!.objects[0]).toMatchObject({ name: "__main__.WEIGHTS", what: "ndarray", how: "writes" });
      expect(f.advice).toMatch(/That copy is the price of the worker's writes: expected, not a leak/);
    }
  });
});
