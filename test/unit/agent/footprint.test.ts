/**
 * What the agent brings into a watched process (the imports of src/agent/python/memleak_agent.py and its rooms): every
 * module it loads is resident in every process, and in each forked worker's page tables, where each smaps_rollup memleak reads walks it
 * again (BENCHMARKS.md §g⁗). So it uses the C modules under json, socket and threading, not those, and imports no
 * importlib.util; these tests hold it to that, and check that what the program and memleak see is unchanged: the
 * agent's JSON is json.dumps's byte for byte, its thread counted in pythonThreads as before, and threading, imported
 * by the program later, sees the program's own threads with the right main thread. Real interpreters; the first test
 * is a real `memleak run`.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { REPO } from "../../helpers/fixtures.js";
import { MEMLEAK, SYSTEM_PYTHON } from "../../helpers/processes.js";
import { pyenvPythons } from "../../helpers/pythons.js";

const AGENT_DIR = `${REPO}src/agent/python`;

/** Debian's python3, and pyenv's 3.8–3.13 where this machine has them. */
function pythons(): string[] {
  return [SYSTEM_PYTHON, ...pyenvPythons([8, 9, 10, 11, 12, 13])];
}

/** The modules the agent may add to a bare interpreter: ctypes (mallinfo2), the C modules of json, socket and select,
 * and its own: its entry, the rooms it loads with it (memleak_agent.py _ROOMS), and its loader. */
const ALLOWED = new Set([
  "_ctypes",
  "_json",
  "_socket",
  "_struct",
  "atexit",
  "ctypes",
  "ctypes._endian",
  "gc",
  "memleak_agent",
  "memleak_census",
  "memleak_channel",
  "memleak_code",
  "memleak_lifecycle",
  "memleak_readings",
  "select",
  "sitecustomize",
  "struct",
  "types",
]);

const MODULES = "import sys; print('MODULES ' + ' '.join(sorted(sys.modules)))";

function modules(out: string): string[] {
  const line = /MODULES (.*)/.exec(out)?.[1];
  expect(line, out).toBeDefined();
  return line!.split(" ");
}

interface Seen {
  connected: boolean;
  added: string[];
  threadsBefore: number;
  threadsAfter: number;
  active: number;
  names: string[];
  main: boolean;
}

describe.each(pythons())("the agent's footprint under %s", (python) => {
  it("`memleak run`: it adds only the C modules it uses; threading, imported later, sees the program's own threads", () => {
    const bare = modules(
      execFileSync(python, ["-c", MODULES], {
        encoding: "utf8",
        env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" },
      }),
    );
    // After 2.5 s the agent's thread has sent its reports (and its first malloc reading) at 1 Hz.
    const program = `
import sys, time
time.sleep(2.5)
before = set(sys.modules)
agent = sys.modules["memleak_agent"]
seen = {"connected": agent.connected(), "threadsBefore": agent.readings._python_stats()["pythonThreads"]}
import threading
seen.update(active=threading.active_count(), names=[t.name for t in threading.enumerate()], main=threading.main_thread() is threading.current_thread(), threadsAfter=agent.readings._python_stats()["pythonThreads"])
import json
print("SEEN " + json.dumps(seen))
print("MODULES " + " ".join(sorted(before)))`;
    const out = execFileSync(process.execPath, [MEMLEAK, "run", "--interval", "1", "--", python, "-c", program], {
      encoding: "utf8",
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const line = /SEEN (.*)/.exec(out)?.[1];
    expect(line, out).toBeDefined();
    const seen = JSON.parse(line!) as Seen;
    const added = modules(out).filter((m) => !bare.includes(m));
    expect(seen.connected).toBe(true);
    expect(added.filter((m) => !ALLOWED.has(m))).toEqual([]);
    expect(added).toContain("memleak_agent");
    // pythonThreads as threading.active_count() said when the agent's thread was threading's: main + the agent's.
    expect(seen.threadsBefore).toBe(2);
    expect(seen.threadsAfter).toBe(2);
    // The program's threading: its own thread, the main one; the agent's is not listed.
    expect(seen.active).toBe(1);
    expect(seen.names).toEqual(["MainThread"]);
    expect(seen.main).toBe(true);
  });

  it("its JSON lines are json.dumps's byte for byte, and what json cannot write fails as json fails", () => {
    const program = `
import json, sys
sys.path.insert(0, ${JSON.stringify(AGENT_DIR)})
import memleak_agent as a
messages = [
    {"type": "report", "pid": 1, "t": 1764150000.123456, "threads": 3, "py": a.readings._python_stats(), "malloc": a.readings._malloc_stats(1.0)},
    {"type": "holder", "container": "list of bytes", "path": "m\\u00e9tier.PAGES['caf\\u00e9 \\u2603 \\U0001F600']", "itemsPerSecond": 0.1},
    {"floats": [0.0, -0.0, 1e-7, 1e300, 2.5, float("nan"), float("inf"), float("-inf")], "ints": [0, -1, 2**70], "none": None, "flags": [True, False]},
    {"nested": {"a": [{"b": []}, {}], "": "", "quote\\"": "back\\\\slash\\n\\t\\x00\\x1f"}, 5: "int key", 2.5: "float key", None: "none key", True: "bool key"},
    [], "a string", 7,
]
same = [a.channel._json_line(m) == json.dumps(m, separators=(",", ":")) for m in messages]
errors = []
for bad in ({"x": object()}, {"x": {1, 2}}, {(1, 2): 3}):
    got = []
    for encode in (a.channel._json_line, lambda m: json.dumps(m, separators=(",", ":"))):
        try:
            encode(bad)
            got.append(None)
        except (TypeError, ValueError) as e:
            got.append((type(e).__name__, str(e)))
    errors.append(got[0] == got[1] and got[0] is not None)
loop = {}
loop["self"] = loop
circular = []
for encode in (a.channel._json_line, lambda m: json.dumps(m, separators=(",", ":"))):
    try:
        encode(loop)
    except ValueError as e:
        circular.append(str(e))
print(json.dumps({"same": same, "errors": errors, "circular": circular}))`;
    const got = JSON.parse(execFileSync(python, ["-c", program], { encoding: "utf8" })) as {
      same: boolean[];
      errors: boolean[];
      circular: string[];
    };
    expect(got.same).toEqual(got.same.map(() => true));
    expect(got.errors).toEqual([true, true, true]);
    expect(got.circular).toEqual(["Circular reference detected", "Circular reference detected"]);
  });

  it("its stop event: waits out its timeout unset, wakes every waiter when set", () => {
    const program = `
import json, sys, time, _thread
sys.path.insert(0, ${JSON.stringify(AGENT_DIR)})
import memleak_agent as a
e = a.lifecycle._Event()
t0 = time.monotonic()
timed_out = e.wait(0.2)
waited = time.monotonic() - t0
woken = []
done = _thread.allocate_lock()
done.acquire()
def waiter():
    woken.append(e.wait(30))
    if len(woken) == 2:
        done.release()
for _ in range(2):
    a.lifecycle._start_thread(waiter, ())
time.sleep(0.2)
t0 = time.monotonic()
e.set()
e.set()  # twice, as _stop and a fork's child can
done.acquire(True, 10)
print(json.dumps({"timedOut": timed_out, "waited": waited, "woken": woken, "wake": time.monotonic() - t0, "set": e.is_set(), "again": e.wait(0)}))`;
    const got = JSON.parse(execFileSync(python, ["-c", program], { encoding: "utf8" })) as {
      timedOut: boolean;
      waited: number;
      woken: boolean[];
      wake: number;
      set: boolean;
      again: boolean;
    };
    expect(got.timedOut).toBe(false);
    expect(got.waited).toBeGreaterThanOrEqual(0.19);
    expect(got.woken).toEqual([true, true]);
    // Woken by set(), not by their 30 s timeout (a loaded machine: seconds at worst).
    expect(got.wake).toBeLessThan(10);
    expect(got.set).toBe(true);
    expect(got.again).toBe(true);
  });
});
