/**
 * Two causes in one program, end to end (issue 27): the leak is the verdict whatever else the process does, the other
 * cause is listed beside it, and the gates judge both — in `run` and in `watch`. And a steady program attached to
 * mid-flight, still settling, fails no `--fail-on leak --fail-fast` gate.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { everyFinding } from "../../src/analysis/every-finding.js";
import type { Finding, VerdictDocument } from "../../src/analysis/types.js";
import { analyzedUntil } from "../helpers/recording-cut.js";
import { tempDir } from "../helpers/temp.js";
import { memleak, type Started } from "../helpers/processes.js";
import { OWN_MEMORY_CGROUP, skipNote } from "../helpers/cgroup.js";
import { startScenario } from "../helpers/watched.js";
import { lacking } from "../helpers/prerequisite.js";

const started: Started[] = [];
afterAll(async () => {
  for (const s of started) await s.stop();
});

/**
 * Why each progress line that said leak said it: the session's own recording cut at that line's time and the two
 * seconds before (an interim verdict is worked out on the data of a moment ago), with the leak findings' summaries and
 * the evidence that decided them. A progress line names only the verdict's kind: CI runs 26 and 33 failed here on a
 * first try and said nothing more.
 */
async function whySaidLeak(recording: string, lines: string[]): Promise<string> {
  const whys = new Set<string>();
  for (const line of lines) {
    const seconds = Number(/^memleak: ([\d.]+)s,/.exec(line)?.[1]);
    for (const cut of [seconds - 2, seconds - 1, seconds].filter((t) => t > 0)) {
      const doc = await analyzedUntil(recording, cut);
      for (const f of everyFinding(doc.findings).filter((x) => x.kind === "leak" && !x.outsideWatchedTree)) {
        // The evidence first, all of it (the agent's and the trend's keys leading), the summary last: a retried
        // failure keeps only the message's first 400 characters, and CI run 42's showed the summary's command line and
        // 5 fields, not what the agent saw (its collector's counts, the live heap) when a GC-cycle program's filling
        // allocators were called a leak.
        const later = (key: string) => Number(!/gc|live|heap|alloc|block|trend/i.test(key));
        const agentFirst = Object.entries(f.evidence).sort(([a], [b]) => later(a) - later(b));
        whys.add(
          `at ${cut} s, ${f.subject.type} ${f.pid ?? ""}: ${JSON.stringify(Object.fromEntries(agentFirst))} ${f.summary}`,
        );
      }
    }
  }
  const said = lines.map((l) => /^memleak: ([\d.]+s)/.exec(l)?.[1] ?? l).join(", ");
  return `said leak at ${said}; the recording cut there: ${[...whys].join(" | ") || "no leak"}; lines: ${lines.join(" | ")}`;
}

const kinds = (f: Finding) => [f.kind, ...(f.alsoFound ?? []).map((x) => x.kind)];
const explain = (doc: VerdictDocument) =>
  JSON.stringify(
    doc.findings.map((f) => [kinds(f), f.summary]),
    null,
    1,
  );

describe.skipIf(
  lacking(
    !OWN_MEMORY_CGROUP.ok,
    "a memory cgroup of its own",
    "root on a host with a writable memory cgroup (v1, v2 or hybrid)",
  ),
)(`several causes at once${skipNote(OWN_MEMORY_CGROUP)}`, { concurrent: true, timeout: 150_000 }, () => {
  // Alone, before the three others start: beside them (two more 450-600 MB bursts, forked workers, gdb injections on
  // two cores) it was called fragmentation + plateau in two CI runs, both tries, with the live heap at 19-37 MiB after
  // the burst's 15; alone, beside three busy loops, a leak 4 of 4 (its leak now runs 26 s after the burst, however long
  // that took). Why: a burst built over many seconds put its readings in the live heap's window, and the trend test saw a
  // fall, not the climb after it (fixed in signals/live-heap.ts afterFreedBurst; the message still shows the evidence).
  it.sequential(
    "run: fragmentation + a leak is a leak with fragmentation beside it, and --fail-on fragmentation still fails",
    async () => {
      const r = await memleak([
        "run",
        "--interval",
        "0.5",
        "--json",
        "--fail-on",
        "fragmentation",
        "--",
        "python3",
        "fixtures/scenarios/frag_and_leak.py",
        "30",
      ]);
      const doc = JSON.parse(r.stdout) as VerdictDocument;
      expect(
        kinds(doc.verdict),
        explain(doc) + JSON.stringify(doc.findings.find((f) => f.subject.type === "process")?.evidence),
      ).toEqual(["leak", "fragmentation"]);
      expect(doc.verdict.pid).toBe(doc.target.pid);
      expect(doc.gates).toEqual([
        expect.objectContaining({
          name: "fail-on",
          passed: false,
          message: expect.stringMatching(/^fragmentation found/),
        }),
      ]);
      expect(r.code).toBe(1);
    },
  );

  it("run: forked workers that copy, one of them leaking: the leak on that worker, its copying beside it", async () => {
    const r = await memleak([
      "run",
      "--interval",
      "0.5",
      "--json",
      "--fail-on",
      "leak",
      "--",
      "python3",
      "fixtures/scenarios/cow_and_leak.py",
      "30",
    ]);
    const doc = JSON.parse(r.stdout) as VerdictDocument;
    expect(doc.verdict, explain(doc)).toMatchObject({ kind: "leak", subject: { type: "process", isRoot: false } });
    expect(kinds(doc.verdict), explain(doc)).toContain("cow");
    expect(r.code).toBe(1);
  });

  it("watch: fragmentation + a leak in a program started before memleak is a leak, fragmentation beside it", async () => {
    const target = await startScenario("frag_and_leak", 90);
    started.push(target);
    const r = await memleak(["watch", String(target.pid), "--duration", "30", "--interval", "0.5", "--json"]);
    const doc = JSON.parse(r.stdout) as VerdictDocument;
    expect(doc.verdict.pid, explain(doc)).toBe(target.pid);
    expect(kinds(doc.verdict)).toEqual(["leak", "fragmentation"]);
  });

  it("watch --fail-on leak --fail-fast, attached 5 s into a steady GC-cycle program: no leak, not on the way either", async () => {
    const target = await startScenario("gc_cycles_raised", 120);
    started.push(target);
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const recording = join(tempDir("gc-watch"), "watch.jsonl");
    const r = await memleak([
      "watch",
      String(target.pid),
      "--duration",
      "60",
      "--interval",
      "0.5",
      "--json",
      "--fail-on",
      "leak",
      "--fail-fast",
      "--record",
      recording,
    ]);
    const doc = JSON.parse(r.stdout) as VerdictDocument;
    expect(r.code, `${r.stderr}\n${explain(doc)}`).toBe(0);
    expect(doc.target.stopReason).toBe("duration");
    // The progress lines a log shows (stderr is no terminal: no live block) never said leak. The lines that did, and
    // why, are what a failure shows (CI run 26's first try said only "expected 'memleak: sampling python3 -u -c
    // impor…' not to match", run 33's "expected [ Array(1) ] to deeply equal []": vitest shortens what it matched).
    const saidLeak = r.stderr.split("\n").filter((l) => /so far: leak/.test(l));
    if (saidLeak.length > 0) expect.fail(await whySaidLeak(recording, saidLeak));
  });
});
