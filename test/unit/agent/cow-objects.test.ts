/**
 * Which of the parent's objects a forked worker copied (src/agent/python/memleak_cow.py, issue 51), in real
 * interpreters, real forks and the kernel's own page flags: the object layouts it reads without a reference (lists,
 * tuples, dicts of 3.8–3.10 and 3.11–3.13, str and int sizes) agree with CPython's own answers; in a worker that read
 * part of a list, the part it names private agrees with the worker's own Private_Dirty growth; a worker that read
 * nothing is said to have copied nothing — the look itself copies no item; the collector's part goes with gc.freeze();
 * an array the worker writes is its own buffer's copy; one it only reads is not copied.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import type { CowResult } from "../../../src/agent/agent-results.js";
import { REPO } from "../../helpers/fixtures.js";
import { pyenvPythons } from "../../helpers/pythons.js";

const AGENT_DIR = `${REPO}src/agent/python`;
const MiB = 2 ** 20;

function run(python: string, body: string): Record<string, unknown> {
  const program = `
import gc, json, os, sys
sys.path.insert(0, ${JSON.stringify(AGENT_DIR)})
import memleak_cow as C
out = {}
${body}
print(json.dumps(out))
`;
  return JSON.parse(execFileSync(python, ["-c", program], { encoding: "utf8" })) as Record<string, unknown>;
}

/** A parent builds DATA, forks; the child runs `child` (its reads), then looks; the parent prints what it sent back. */
function forked(python: string, build: string, child: string): { look: Look; privateGrowth: number } {
  const out = run(
    python,
    `
${build}
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(r)
    before = C._private_anon()
${child
  .split("\n")
  .map((l) => "    " + l)
  .join("\n")}
    grown = C._private_anon() - before
    look = C.copied(None, lambda m: getattr(m, "__name__", "") == "__main__")
    os.write(w, json.dumps({"look": look, "privateGrowth": grown}).encode())
    os._exit(0)
os.close(w)
data = b""
while True:
    part = os.read(r, 65536)
    if not part:
        break
    data += part
os.waitpid(pid, 0)
out = json.loads(data)
`,
  );
  return out as unknown as { look: Look; privateGrowth: number };
}

/** What a look names private agrees with the kernel's count of what the child copied (its Private_Dirty growth), ±15%. */
function agrees(named: number, privateGrowth: number): void {
  expect(named).toBeGreaterThan(0.85 * privateGrowth);
  expect(named).toBeLessThan(1.15 * privateGrowth);
}

/** The agent's 'cow' message as memleak_cow.copied() writes it. */
type Look = Omit<CowResult, "type" | "pid" | "t">;

const LAYOUTS = `
ok = []
for n in (1, 5, 200, 70000):
    d = {("k%d" % i): [i] for i in range(n)}
    ok.append(C._entry_pointers(C._dict_entries(id(d)), 1) == [x for k, v in d.items() for x in (id(k), id(v))])
    g = {i: i * 2.5 for i in range(n)}  # keys that are not all str: the general table
    ok.append(C._entry_pointers(C._dict_entries(id(g)), 1) == [x for k, v in g.items() for x in (id(k), id(v))])
    l = list(d.values())
    ok.append(C._pointers(*C._list_items(id(l)), 1) == [id(x) for x in l])
    t = tuple(l)
    ok.append(C._pointers(*C._tuple_items(id(t)), 1) == [id(x) for x in t])
for s in ("abc", "\\u00e9" * 10, "\\u65e5\\u672c" * 100, "x" * 5000, "\\U0001F600" * 3):
    ok.append(C._str_size(id(s)) == sys.getsizeof(s))
for o in (0, 1, 2**40, -(2**70), 10**100, (1, 2, 3), ("a", None), 1.5, b"abcdef"):
    ok.append(C._size(id(o), type(o)) == sys.getsizeof(o))
out["ok"] = ok
out["supported"] = C._SUPPORTED
`;

describe.each(["python3", ...pyenvPythons([8, 9, 10, 12, 13])])("%s", (python) => {
  it("reads lists, tuples, dicts, str and int from memory as CPython sees them", () => {
    const out = run(python, LAYOUTS);
    expect(out.supported).toBe(true);
    expect(out.ok).toEqual((out.ok as boolean[]).map(() => true));
  });

  it("names the list a worker read: its private part agrees with the worker's Private_Dirty growth", () => {
    const { look, privateGrowth } = forked(
      python,
      'SAMPLES = ["sample %07d: %s" % (i, "x" * 40) for i in range(300000)]',
      "t = sum(len(SAMPLES[i]) for i in range(0, 150000))  # the first half",
    );
    const [o] = look.objects;
    expect(o!.name).toBe("__main__.SAMPLES");
    expect(o!.what).toBe("list of str");
    expect(o!.length).toBe(300000);
    // Half the strings were read: about half their bytes are private; the list's own item array is not (no writes).
    expect(o!.itemsPrivate / o!.bytes).toBeGreaterThan(0.4);
    expect(o!.itemsPrivate / o!.bytes).toBeLessThan(0.6);
    expect(o!.storagePrivate).toBe(0);
    // The kernel's count of what the worker copied while it read, within 15% (the rest: its own loop's objects).
    agrees(o!.itemsPrivate, privateGrowth);
  });

  // A dataset of records as json.load gives them (a list of dicts): a worker that reads a field of each copies the
  // records and their values, all of which the look counts (it counted the dicts alone: 32 of 102 MiB copied).
  it("names a list of records a worker read, their values too: agrees with the worker's Private_Dirty growth", () => {
    const { look, privateGrowth } = forked(
      python,
      'RECORDS = [{"id": i, "text": "record %07d: %s" % (i, "x" * 60), "label": i % 7} for i in range(200000)]',
      't = sum(len(r["text"]) for r in RECORDS)',
    );
    const [o] = look.objects;
    expect(o!.name).toBe("__main__.RECORDS");
    expect(o!.what).toBe("list of dict");
    agrees(o!.itemsPrivate, privateGrowth);
  });

  // Records whose fields hold more (a list of tags), and an index of lists: a user's DataLoader records were named at
  // 117 of 165 MiB (the tags' str not read), an index at 69 of 85 MiB (its lists' item arrays not counted). And a
  // program that never froze anything is not said to have: a bare 3.12 reports 375 frozen objects of its own.
  it("records with a list inside, an index of lists: what a field holds is counted too; no freeze the program did not make", () => {
    const records = forked(
      python,
      'RECORDS = [{"text": "record %07d" % i, "tags": ["tag-%d" % (i % 5000), "t%07d" % i]} for i in range(150000)]',
      't = sum(len(r["text"]) + len(r["tags"][0]) + len(r["tags"][1]) for r in RECORDS)',
    );
    const [r] = records.look.objects;
    expect(r!.name).toBe("__main__.RECORDS");
    agrees(r!.itemsPrivate, records.privateGrowth);
    expect(records.look.frozen).toBe(0);
    const index = forked(
      python,
      'INDEX = {"word%07d" % i: list(range(i % 7 + 3)) for i in range(150000)}',
      "t = sum(len(v) for v in INDEX.values())",
    );
    const [x] = index.look.objects;
    expect(x!.what).toBe("dict of list");
    agrees(x!.itemsPrivate, index.privateGrowth);
  });

  // `keys = list(TABLE)` in the parent: the list's items are the dict's own keys. A worker that reads the dict copies
  // those str once; they are counted with the dict, and the list says whose they are — not counted twice.
  it("objects two containers share are counted once, with the larger; the other says whose they are", () => {
    const { look, privateGrowth } = forked(
      python,
      'TABLE = {"key %07d" % i: ("value %07d" % i, i) for i in range(200000)}\nKEYS = list(TABLE)',
      "t = sum(len(v[0]) + len(k) for k, v in TABLE.items())",
    );
    const table = look.objects.find((o) => o.name === "__main__.TABLE")!;
    const keys = look.objects.find((o) => o.name === "__main__.KEYS")!;
    expect(keys.sharedWith).toBe("__main__.TABLE");
    expect(keys.itemsPrivate).toBeLessThan(0.05 * table.itemsPrivate);
    const named = look.objects.reduce((s, o) => s + o.itemsPrivate + o.storagePrivate, 0);
    expect(named).toBeLessThan(1.15 * privateGrowth);
    expect(table.itemsPrivate).toBeGreaterThan(0.85 * privateGrowth);
  });

  it("a worker that read nothing copied nothing, and the look copies no item of its own", () => {
    const { look } = forked(python, 'SAMPLES = ["sample %07d: %s" % (i, "x" * 40) for i in range(300000)]', "pass");
    const [o] = look.objects;
    expect(o!.itemsPrivate).toBeLessThan(0.02 * o!.bytes);
    // What the look made private (its own objects, the module objects it read) is small beside the 30 MiB list.
    expect(look.walkBytes!).toBeLessThan(4 * MiB);
  });
});

describe("the collector's part and buffers (python3)", () => {
  // Rows as json.load gives them: lists, which the collector always tracks (a tuple of atoms it untracks).
  const ROWS = 'ROWS = [["sample %07d" % i, i] for i in range(300000)]';
  const READ_QUARTER_AND_COLLECT = "t = sum(len(ROWS[i][0]) for i in range(0, 75000))\ngc.collect()";

  it("rows the collector walks are copied whole, read or not; gc.freeze() before the fork leaves the reads' part", () => {
    const walked = forked("python3", ROWS, READ_QUARTER_AND_COLLECT).look.objects[0]!;
    const frozen = forked("python3", `${ROWS}\ngc.freeze()`, READ_QUARTER_AND_COLLECT).look.objects[0]!;
    expect(walked.what).toBe("list of list");
    // a full collection writes to every row's header: all their pages are copied
    expect(walked.trackedPrivate).toBeGreaterThan(0.3 * walked.bytes);
    // frozen: no tracked part, and about a quarter copied (the rows read)
    expect(frozen.trackedPrivate).toBe(0);
    expect(frozen.itemsPrivate).toBeLessThan(0.5 * walked.itemsPrivate);
    expect(frozen.itemsPrivate).toBeGreaterThan(0.15 * frozen.bytes);
  });

  // A user's DataLoader over a DataFrame of str (object columns) copied ~90 MiB a worker, and the look said it was held
  // "elsewhere (a function's locals…)": a DataFrame's blocks are read now, its object columns' items as an array's.
  it("a DataFrame's str column a worker reads: named, within the worker's Private_Dirty growth", () => {
    const FRAME = `import pandas as pd\nFRAME = pd.DataFrame({"text": ["row %07d: %s" % (i, "x" * 40) for i in range(200000)], "n": range(200000)})`;
    const { look, privateGrowth } = forked("/usr/bin/python3", FRAME, "t = sum(len(s) for s in FRAME['text'].values)");
    const o = look.objects.find((x) => x.name === "__main__.FRAME")!;
    expect(o.what).toBe("DataFrame of str");
    expect(o.length).toBe(200000);
    expect(o.itemsPrivate).toBeGreaterThan(0.8 * privateGrowth);
    expect(o.itemsPrivate).toBeLessThan(1.15 * privateGrowth);
  });

  it("a numpy array read is not copied; one written is its own buffer's copy", () => {
    const ARRAY = "import numpy as np\nDATA = np.arange(4000000, dtype=np.float64)";
    const read = forked("/usr/bin/python3", ARRAY, "t = float(DATA.sum())").look.objects[0]!;
    const written = forked("/usr/bin/python3", ARRAY, "DATA[:2000000] += 1").look.objects[0]!;
    expect(read.what).toBe("ndarray");
    expect(read.storagePrivate).toBeLessThan(MiB);
    expect(written.storagePrivate).toBeGreaterThan(14 * MiB); // half of 30.5 MiB
    expect(written.storagePrivate).toBeLessThan(17 * MiB);
    expect(written.itemsPrivate).toBe(0);
  });
});
