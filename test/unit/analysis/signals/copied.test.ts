/**
 * What a copying worker copied, on its copy-on-write finding (signals/copied.ts, issue 51): each container's `how`
 * from its private parts (items read, the collector's tracked objects, its own buffer written, nothing copied), the
 * field, the evidence and advice per container ahead of the general advice; nothing without the agent's answer; and
 * the tree's copy-on-write carries the worker's.
 */
import { describe, expect, it } from "vitest";
import type { CopiedObject, CowResult } from "../../../../src/agent/agent-results.js";
import type { AgentResults } from "../../../../src/analysis/context.js";
import { copyHow, MIN_COPIED } from "../../../../src/analysis/signals/copied.js";
import { analyzedDoc } from "../../../helpers/analyzed-once.js";
import { analyzedUntil } from "../../../helpers/recording-cut.js";
import { FIXTURES } from "../../../helpers/fixtures.js";
import { fill, flat, judge, MB, processFinding } from "./judge.js";

const obj = (o: Partial<CopiedObject>): CopiedObject => ({
  name: "__main__.SAMPLES",
  what: "list of str",
  length: 400_000,
  bytes: 40 * MB,
  itemsPrivate: 0,
  trackedPrivate: 0,
  storagePrivate: 0,
  sampled: true,
  ...o,
});

describe("how a container's pages came to be copied", () => {
  it.each([
    ["items read, none tracked", obj({ itemsPrivate: 20 * MB }), "reads"],
    ["items read, under half of them tracked", obj({ itemsPrivate: 20 * MB, trackedPrivate: 9 * MB }), "reads"],
    ["items read, half of them tracked", obj({ itemsPrivate: 20 * MB, trackedPrivate: 10 * MB }), "collector"],
    ["its own buffer more than its items", obj({ itemsPrivate: 2 * MB, storagePrivate: 3 * MB }), "writes"],
    ["under 1 MiB private", obj({ itemsPrivate: MIN_COPIED - 1 }), "none"],
    ["under 5% of a big one", obj({ bytes: 400 * MB, itemsPrivate: 19 * MB }), "none"],
    ["5% of a big one", obj({ bytes: 400 * MB, itemsPrivate: 20 * MB }), "reads"],
  ])("%s → %s", (_name, o, how) => expect(copyHow(o)).toBe(how));
});

/** A parent flat at 260 MiB and a forked worker (pid 101) whose USS rises by 40 MiB while its anon stays flat. */
const FORKED = {
  seconds: 300,
  processes: [
    { pid: 100, ppid: 1, anon: flat(260 * MB) },
    { pid: 101, ppid: 100, anon: flat(60 * MB, 0.1 * MB), uss: fill(5 * MB, 40 * MB, 200) },
  ],
};

function answer(objects: CopiedObject[], o: Partial<CowResult> = {}): AgentResults {
  const r: CowResult = {
    type: "cow",
    pid: 101,
    t: 100,
    objects,
    frozen: 0,
    ms: 22.8,
    cpuMs: 22.7,
    walkBytes: 604 * 1024,
    ...o,
  };
  return { traces: new Map(), trims: new Map(), copied: new Map([[101, r]]) };
}

describe("the copied containers on the worker's finding", () => {
  it("the list it read: field, evidence, and its advice first (store them in one buffer; gc.freeze would not help)", () => {
    const doc = judge(FORKED, { agentResults: answer([obj({ itemsPrivate: 30 * MB })]) });
    const f = processFinding(doc, 101);
    expect(f.kind).toBe("cow");
    expect(f.copied).toMatchObject({
      pid: 101,
      named: 30 * MB,
      objects: [{ name: "__main__.SAMPLES", what: "list of str", private: 30 * MB, how: "reads" }],
      walk: { ms: 22.8, cpuMs: 22.7, bytes: 604 * 1024 },
    });
    expect(f.copied!.copied).toBeGreaterThan(35 * MB);
    expect(f.evidence).toMatchObject({ copiedNamedBytes: 30 * MB, copiedMost: "__main__.SAMPLES" });
    expect(f.advice).toMatch(
      /^`__main__\.SAMPLES` \(list of str, 400,000 items\) is ~30\.0 MiB of what PID 101 copied/,
    );
    expect(f.advice).toMatch(/`gc\.freeze\(\)` would not help/);
    // the general advice follows, for what the walk did not reach
    expect(f.advice).toMatch(/Forked worker PID 101 .* grows in private memory/s);
    // the tree's copy-on-write carries it too
    expect(doc.findings.find((x) => x.subject.type === "tree")?.copied?.pid).toBe(101);
  });

  // A user's list of dicts (records): 102 MiB copied by reads, 36 MiB of it in objects the collector tracks. Its advice
  // said "the collector does not touch them (they are not objects it tracks)".
  it("read, with a smaller part the collector tracks: says that part, and what gc.freeze() would save at most", () => {
    const records = obj({ what: "list of dict", itemsPrivate: 30 * MB, trackedPrivate: 9 * MB });
    const f = processFinding(judge(FORKED, { agentResults: answer([records]) }), 101);
    expect(f.copied!.objects[0]!.how).toBe("reads");
    expect(f.advice).toMatch(/The collector's writes to the objects it\s+tracks are the smaller part \(9\.00 MiB\)/s);
    expect(f.advice).not.toMatch(/does not touch them/);
    // none tracked: as before
    const strings = processFinding(judge(FORKED, { agentResults: answer([obj({ itemsPrivate: 30 * MB })]) }), 101);
    expect(strings.advice).toMatch(/The collector does not touch them/);
  });

  it("rows the collector walks: gc.freeze() with what it would save; frozen, it is not advised again", () => {
    const rows = obj({ what: "list of list", itemsPrivate: 30 * MB, trackedPrivate: 18 * MB });
    const walked = processFinding(judge(FORKED, { agentResults: answer([rows]) }), 101);
    expect(walked.advice).toMatch(/`gc\.freeze\(\)` just before the workers fork .* \(up to 18\.0 MiB a worker\)/s);
    // frozen, the agent counts none of them as the collector's
    const frozenRows = { ...rows, trackedPrivate: 0 };
    const frozen = processFinding(judge(FORKED, { agentResults: answer([frozenRows], { frozen: 600_000 }) }), 101);
    expect(frozen.advice).toMatch(/the program froze what it had with `gc\.freeze\(\)`/);
    expect(frozen.advice).not.toMatch(/just before the workers fork/);
  });

  it("an array the worker writes is an expected copy; one read without copying is said so, after those copied", () => {
    const written = obj({ name: "__main__.WEIGHTS", what: "ndarray", storagePrivate: 20 * MB });
    const kept = obj({ name: "__main__.TABLE", what: "ndarray", bytes: 300 * MB, storagePrivate: 0 });
    const f = processFinding(judge(FORKED, { agentResults: answer([written, kept]) }), 101);
    expect(f.copied!.objects.map((o) => o.how)).toEqual(["writes", "none"]);
    expect(f.copied!.named).toBe(20 * MB); // what was read without copying is not counted as named
    expect(f.advice).toMatch(/^`__main__\.WEIGHTS` .* because the worker\s+writes to it/s);
    expect(f.advice).toMatch(/`__main__\.TABLE` \(ndarray, 300 MiB\) is read without being copied/);
  });

  // A user's worker that wrote a numpy array (1/30 of it a second): its array's own advice said "an expected copy",
  // and the general advice after it said "keep big read-only data out of Python objects: numpy arrays" — of a numpy
  // array the worker writes. Where the containers hold nearly all the worker held privately, only theirs is said.
  it("the containers hold 80% of what was private when it looked: their advice alone; under it, the general too", () => {
    const written = obj({ name: "__main__.GRID", what: "ndarray", bytes: 122 * MB, storagePrivate: 93.6 * MB });
    const all = processFinding(judge(FORKED, { agentResults: answer([written], { privateDirty: 102 * MB }) }), 101);
    expect(all.copied!.privateAtLook).toBe(102 * MB - 604 * 1024); // less what the look itself made
    expect(all.advice).toMatch(/^`__main__\.GRID` .* because the worker\s+writes to it/s);
    expect(all.advice).not.toMatch(/grows in private memory/);
    const part = processFinding(judge(FORKED, { agentResults: answer([written], { privateDirty: 130 * MB }) }), 101);
    expect(part.advice).toMatch(/grows in private memory/);
    // no reading of Private_Dirty (an older agent): as before, the general advice stays
    expect(processFinding(judge(FORKED, { agentResults: answer([written]) }), 101).advice).toMatch(
      /grows in private memory/,
    );
  });

  // `KEYS = list(TABLE)`: the agent counts the str both hold with the dict and says so of the list (sharedWith). The
  // list is not advised as "read without being copied": its items were copied, counted with the dict.
  it("a container whose items a larger one holds too: said whose they are, not advised as read without copying", () => {
    const table = obj({ name: "__main__.TABLE", what: "dict of tuple", bytes: 88 * MB, itemsPrivate: 82 * MB });
    const keys = obj({ name: "__main__.KEYS", bytes: 14 * MB, itemsPrivate: 0, sharedWith: "__main__.TABLE" });
    const f = processFinding(judge(FORKED, { agentResults: answer([table, keys]) }), 101);
    expect(f.copied!.objects[1]).toMatchObject({ name: "__main__.KEYS", how: "none", sharedWith: "__main__.TABLE" });
    expect(f.copied!.named).toBe(82 * MB);
    expect(f.advice).not.toMatch(/KEYS/);
  });

  it("nothing without the agent's answer; an answer for another pid is not this worker's", () => {
    expect(processFinding(judge(FORKED), 101).copied).toBeUndefined();
    const other = answer([obj({ itemsPrivate: 30 * MB })], { pid: 999 });
    other.copied = new Map([[999, other.copied!.get(101)!]]);
    expect(processFinding(judge(FORKED, { agentResults: other }), 101).copied).toBeUndefined();
  });
});

/** The same parent, and a worker that copies nothing: its USS flat at 5 MiB. */
const QUIET = {
  seconds: 300,
  processes: [
    { pid: 100, ppid: 1, anon: flat(260 * MB) },
    { pid: 101, ppid: 100, anon: flat(60 * MB, 0.1 * MB), uss: flat(5 * MB, 0.1 * MB) },
  ],
};

describe("a worker that copied nothing, looked at once (its dataset in one buffer)", () => {
  const array = obj({ name: "the DataLoader's dataset (Texts).samples", what: "ndarray of S", bytes: 17 * MB });

  it("says in its sentence what it read without copying it, and advises keeping that form", () => {
    const f = processFinding(judge(QUIET, { agentResults: answer([array]) }), 101);
    expect(f.kind).toBe("stable");
    expect(f.summary).toMatch(
      /is stable: anon 60\.\d MiB → 60\.\d MiB; it read `the DataLoader's dataset \(Texts\)\.samples` \(ndarray of S, 400,000 items, 17\.0 MiB\) without copying it: 0 B of it private$/,
    );
    expect(f.copied).toMatchObject({ pid: 101, named: 0, objects: [{ how: "none", bytes: 17 * MB }] });
    expect(f.advice).toMatch(/is read without being copied: only 0 B of it is private to PID 101/);
  });

  it("nothing when one was copied after all, none is big enough to matter, or the look could not be made", () => {
    const copied = obj({ name: "__main__.ROWS", itemsPrivate: 6 * MB });
    const small = obj({ name: "__main__.LABELS", what: "ndarray of int64", bytes: 8 * MB - 1 });
    for (const agentResults of [
      answer([array, copied]),
      answer([small]),
      answer([array], { why: "/proc/self/pagemap cannot be read: Permission denied" }),
    ]) {
      const f = processFinding(judge(QUIET, { agentResults }), 101);
      expect(f.kind).toBe("stable");
      expect(f.copied).toBeUndefined();
      expect(f.summary).not.toMatch(/without copying/);
    }
  });
});

/**
 * Workers that had copied before memleak's first reading (a pool reading its dataset in its first task): the parent at
 * 90 MiB of anon, each worker's anon its inherited 90 MiB and its USS already `uss`, flat from then on.
 */
const early = (uss: number, anon = 90 * MB) => ({
  seconds: 120,
  processes: [
    { pid: 100, ppid: 1, anon: flat(90 * MB, 0.05 * MB), uss: flat(50 * MB, 0.05 * MB) },
    { pid: 101, ppid: 100, anon: flat(anon, 0.05 * MB), uss: flat(uss, 0.05 * MB) },
  ],
});

describe("a worker that had copied before memleak first read it (issue 51)", () => {
  it("stays stable, says how much in its sentence and evidence, with the general advice, and heads the verdict", () => {
    const doc = judge(early(50 * MB));
    const f = processFinding(doc, 101);
    expect(f.kind).toBe("stable");
    expect(Number(f.evidence.copiedBeforeBytes) / MB).toBeCloseTo(50, 0);
    expect(f.summary).toMatch(
      /; it had copied (49\.9|50\.\d) MiB of its parent's pages before memleak first read it \(USS/,
    );
    expect(f.advice).toMatch(/had copied (49\.9|50\.\d) MiB of the pages it shares with its parent before memleak/);
    // Of the stable findings, the one that says what a worker copied comes first: the parent's said nothing of it.
    expect(doc.verdict.pid).toBe(101);
    expect(processFinding(doc, 100).evidence.copiedBeforeBytes).toBeUndefined();
  });

  it("with its look's answer: the dict named, its advice first, and the verdict is the worker whose look named it", () => {
    const words = obj({ name: "__main__.WORDS", what: "dict of str", itemsPrivate: 46 * MB, bytes: 74 * MB });
    const doc = judge(early(50 * MB), { agentResults: answer([words], { privateDirty: 52 * MB, walkBytes: 3 * MB }) });
    const f = processFinding(doc, 101);
    expect(f.kind).toBe("stable");
    expect(f.summary).toMatch(
      /before memleak first read it .*: ~46\.0 MiB of it `__main__\.WORDS` \(dict of str, 400,000 items\), copied as the worker reads its items/,
    );
    expect(f.copied).toMatchObject({ pid: 101, named: 46 * MB, objects: [{ name: "__main__.WORDS", how: "reads" }] });
    expect(f.evidence.copiedMost).toBe("__main__.WORDS");
    // 46 of the 49 MiB private at the look (52 less the look's 3): named enough, so only the dict's advice.
    expect(f.advice).toMatch(/^`__main__\.WORDS` \(dict of str, 400,000 items\) is ~46\.0 MiB of what PID 101 copied/);
    expect(f.advice).not.toMatch(/before memleak\s+first read it, and holds them still/);
    expect(doc.verdict.pid).toBe(101);
  });

  it("a worker that goes on copying while watched is copy-on-write, and says what it had copied before too", () => {
    // Its first reading already 40 MiB private, then 30 MiB more copied while watched (a gunicorn worker serving).
    const sc = {
      seconds: 120,
      processes: [
        { pid: 100, ppid: 1, anon: flat(90 * MB, 0.05 * MB), uss: flat(20 * MB, 0.05 * MB) },
        { pid: 101, ppid: 100, anon: flat(90 * MB, 0.05 * MB), uss: fill(40 * MB, 30 * MB, 60) },
      ],
    };
    const f = processFinding(judge(sc), 101);
    expect(f.kind).toBe("cow");
    expect(Number(f.evidence.copiedBeforeBytes) / MB).toBeCloseTo(40, 0);
    expect(f.summary).toMatch(
      /copy-on-write of pages shared with its parent.*; it had copied (39|40)\.\d MiB of its parent's pages before memleak first read it/,
    );
  });

  it.each([
    ["copied under the floor", early(7 * MB)],
    ["an exec'd program: its USS is nearly all its anon", early(80 * MB)],
    ["holding under half its parent's anon: what it holds privately may be its own", early(20 * MB, 40 * MB)],
    ["its own anon past its parent's by as much as its USS: its own allocations", early(45 * MB, 130 * MB)],
  ])("nothing said when %s", (_name, sc) => {
    const f = processFinding(judge(sc), 101);
    expect(f.evidence.copiedBeforeBytes).toBeUndefined();
    expect(f.summary).not.toMatch(/before memleak first read it/);
  });
});

describe("a parent whose USS rose as its workers copied before memleak first read them", () => {
  // The parent read before its workers copied: its USS 10 → 50 MiB as its pages became its own (copy-on-write's shape);
  // the worker flat at the USS it had copied.
  const sc = {
    seconds: 120,
    processes: [
      { pid: 100, ppid: 1, anon: flat(90 * MB, 0.05 * MB), uss: fill(10 * MB, 40 * MB, 20) },
      { pid: 101, ppid: 100, anon: flat(90 * MB, 0.05 * MB), uss: flat(50 * MB, 0.05 * MB) },
    ],
  };
  const words = obj({ name: "__main__.WORDS", what: "dict of str", itemsPrivate: 46 * MB, bytes: 74 * MB });

  it("the parent's copy-on-write carries the containers its worker's look named, with their advice", () => {
    const doc = judge(sc, { agentResults: answer([words]) });
    expect(doc.verdict.kind).toBe("cow");
    expect(doc.verdict.pid).toBe(100);
    expect(doc.verdict.copied).toMatchObject({ pid: 101, objects: [{ name: "__main__.WORDS", how: "reads" }] });
    expect(doc.verdict.advice).toMatch(
      /^`__main__\.WORDS` \(dict of str, 400,000 items\) is ~46\.0 MiB of what PID 101 copied/,
    );
  });

  it("nothing lent without the worker's look", () => {
    const doc = judge(sc);
    expect(doc.verdict.kind).toBe("cow");
    expect(doc.verdict.copied).toBeUndefined();
  });
});

describe("memleak's own look at what a worker copied: its module and walk are not the program's", () => {
  // The worker's anon steps up 2.25 MiB at 60 s, the look's time (the synthetic series start at 1_700_000_000 s).
  const stepped = {
    seconds: 120,
    processes: [
      { pid: 100, ppid: 1, anon: flat(90 * MB, 0.05 * MB), uss: flat(50 * MB, 0.05 * MB) },
      {
        pid: 101,
        ppid: 100,
        anon: { shape: { kind: "step" as const, at: 60, height: 2.25 * MB }, baseline: 90 * MB, noise: 0.05 * MB },
        uss: { shape: { kind: "step" as const, at: 60, height: 4.5 * MB }, baseline: 50 * MB, noise: 0.05 * MB },
      },
    ],
  };
  const words = obj({ name: "__main__.WORDS", what: "dict of str", itemsPrivate: 46 * MB, bytes: 74 * MB });

  it("a step at the look is taken out (stable, and said), for the worker, the tree and the cgroup", () => {
    const doc = judge(stepped, { agentResults: answer([words], { t: 1_700_000_059.8 }) });
    const f = processFinding(doc, 101);
    expect(f.kind).toBe("stable");
    expect(f.caveats.join(" ")).toMatch(
      /^memleak's look at what it copied, at 61 s, added 2\.\d+ MiB \(the look's module and its walk\)/,
    );
    expect(doc.findings.filter((x) => x.kind !== "stable").map((x) => `${x.kind} ${x.subject.type}`)).toEqual([]);
  });

  it("the same step with no look there is the program's: a plateau (a step)", () => {
    const f = processFinding(judge(stepped, { agentResults: answer([words], { t: 1_700_000_010 }) }), 101);
    expect(f.kind).toBe("plateau");
  });
});

describe("a pool watched once its workers had copied (fixtures/recordings/pool_early_copy.watch-25s.jsonl)", () => {
  it("the verdict: a stable worker naming the dict its look found copied, nothing growing anywhere", async () => {
    const doc = await analyzedDoc(`${FIXTURES}recordings/pool_early_copy.watch-25s.jsonl`);
    expect(doc.verdict.kind).toBe("stable");
    expect(doc.verdict.copied?.objects[0]).toMatchObject({ name: "__main__.WORDS", how: "reads" });
    expect(Number(doc.verdict.evidence.copiedBeforeBytes)).toBeGreaterThan(20 * MB);
    expect(doc.findings.filter((f) => f.kind !== "stable")).toEqual([]);
    // Both workers say what they had copied; the parent does not.
    const said = doc.findings.filter((f) => f.evidence.copiedBeforeBytes !== undefined).map((f) => f.subject);
    expect(said).toHaveLength(2);
    expect(said.every((s) => s.type === "process" && !s.isRoot)).toBe(true);
  });
});

describe("a pool watched for a 15 s CI step: too short for a trend, the copy said all the same", () => {
  it("not enough data, headed by a worker that says what it had copied and what, with that advice first", async () => {
    // The same recording cut at 15 s: 16 samples after warm-up, 20 needed. Every finding said nothing of the two workers'
    // copies (~25 MiB each) before the copy was said on insufficient-data findings too.
    const doc = await analyzedUntil(`${FIXTURES}recordings/pool_early_copy.watch-25s.jsonl`, 15);
    expect(doc.findings.every((f) => f.kind === "insufficient-data")).toBe(true);
    expect(doc.verdict.subject).toMatchObject({ type: "process", isRoot: false });
    expect(doc.verdict.summary).toMatch(
      /^PID \d+ .*: not enough data \(.*\); it had copied \d+\.\d MiB of its parent's pages before memleak first read it/,
    );
    expect(doc.verdict.copied?.objects[0]).toMatchObject({ name: "__main__.WORDS", how: "reads" });
    // The copy's advice, then what the data's shortness asks for.
    expect(doc.verdict.advice).toMatch(/^`__main__\.WORDS` \(dict of str, [\d,]+ items\) is ~[\d.]+ MiB of what PID/);
    expect(doc.verdict.advice).toMatch(/Not enough data to decide/);
  });
});

describe("a recorded DataLoader run (fixtures/recordings/cow_dataloader.jsonl)", () => {
  it("analyze reads the workers' answers back: the dataset's list, copied by reads, on the verdict", async () => {
    const doc = await analyzedDoc(`${FIXTURES}recordings/cow_dataloader.jsonl`);
    expect(doc.verdict.kind).toBe("cow");
    expect(doc.verdict.copied?.objects[0]).toMatchObject({
      name: "the DataLoader's dataset (TextDataset).samples",
      what: "list of str",
      how: "reads",
    });
    expect(doc.verdict.copied!.named).toBeGreaterThan(15 * MB);
  });
});
