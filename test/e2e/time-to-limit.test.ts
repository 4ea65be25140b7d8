/**
 * The time to the memory limit against a real OOM kill: a leaking Python service in a memory cgroup limited to
 * 400 MiB (v1 memory.limit_in_bytes, v2 memory.max), watched for 30 s. The projected time must hold, within its
 * range, the moment the kernel's OOM killer actually kills it; and --min-time-to-limit must fail the watch before
 * that moment comes.
 */
import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { VerdictDocument } from "../../src/analysis/types.js";
import { parseOomFile } from "../../src/probes/cgroup-files.js";
import { HostFs } from "../../src/system/host-fs.js";
import { createTestCgroup, HOST_TEST_CGROUP, skipNote } from "../helpers/cgroup.js";
import { memleak, startReady, SYSTEM_PYTHON } from "../helpers/processes.js";
import { lacking } from "../helpers/prerequisite.js";

const LIMIT = 400 * 2 ** 20;

/**
 * A service that handles requests as they arrive — a Poisson stream of 48 a second on the wall clock, so a loaded
 * machine delays them but does not thin them out — caching 0–256 KiB of every request for ever (~6 MiB/s of leak),
 * with 0.25–4 MiB of working memory for every fourth (the last 8 kept): a sawtooth of temporaries over the leak. One
 * in four, not every request: that working memory is most of what the service costs, and with it for every request
 * the service took half a core, fell behind beside the other e2e lane, and leaked unevenly. It waits until it is in
 * the test's cgroup, so everything it keeps is charged there.
 */
const SERVICE = String.raw`
import random, sys, time
first = open("/proc/self/cgroup").read()
print("ready", flush=True)
while open("/proc/self/cgroup").read() == first:
    time.sleep(0.005)
random.seed(36)
cache, temporaries = {}, []
t0, due, n = time.monotonic(), 0.0, 0
while True:
    now = time.monotonic() - t0
    while due <= now:
        n += 1
        if n % 4 == 0:
            temporaries.append(b"\x02" * random.randint(256 << 10, 4 << 20))
            if len(temporaries) > 8:
                temporaries.pop(0)
        cache[n] = b"\x01" * random.randint(0, 256 << 10)
        due += random.expovariate(48)
    time.sleep(0.01)
`;

describe.skipIf(
  lacking(
    !HOST_TEST_CGROUP.ok,
    "a test memory cgroup",
    "root on a host with a writable memory cgroup (v1, v2 or hybrid)",
  ),
)(`time to the memory limit, against the OOM killer${skipNote(HOST_TEST_CGROUP)}`, { timeout: 180_000 }, () => {
  it("a leak under a 400 MiB limit: the projected time holds the OOM kill within its range; the gate fails before it", async () => {
    const fs = new HostFs();
    const cg = createTestCgroup(fs, HOST_TEST_CGROUP);
    const v = cg.location.version;
    writeFileSync(fs.path(`${cg.location.dir}/${v === 1 ? "memory.limit_in_bytes" : "memory.max"}`), String(LIMIT));
    let left: string | undefined;
    // MALLOC_MMAP_THRESHOLD_ fixed: glibc's moving threshold would put the freed temporaries' holes in the heap
    // between cached chunks, and the heap would then grow faster than the leak for a while (allocator retention,
    // another verdict's business); with it fixed, what the service keeps is what it leaks.
    const service = await startReady(
      ["env", "MALLOC_MMAP_THRESHOLD_=131072", SYSTEM_PYTHON, "-u", "-c", SERVICE],
      /^ready$/m,
    );
    try {
      const killed = new Promise<{ at: number; signal: NodeJS.Signals | null }>((resolve) =>
        service.child.once("exit", (_code, signal) => resolve({ at: Date.now(), signal })),
      );
      cg.add(service.pid);
      const r = await memleak([
        "watch",
        String(service.pid),
        "--duration",
        "30",
        "--interval",
        "0.5",
        "--no-inject",
        "--json",
        "--min-time-to-limit",
        "10m",
      ]);
      const watchEnded = Date.now();
      const doc = JSON.parse(r.stdout) as VerdictDocument;

      // The gate: the service is still alive when the watch ends, and the watch has already failed.
      expect(r.code).toBe(1);
      expect(doc.gates?.find((g) => g.name === "min-time-to-limit")).toMatchObject({ result: "fail", passed: false });
      expect(r.stderr).toMatch(
        /min-time-to-limit.*container limit 400 MiB, anon \+ shmem.*sooner than --min-time-to-limit 10m/,
      );
      expect(service.child.exitCode === null && service.child.signalCode === null).toBe(true);

      expect(doc.verdict.kind).toBe("leak");
      const t = doc.verdict.timeToLimit!;
      expect(t.limit).toMatchObject({
        kind: "container",
        source: v === 1 ? "memory.limit_in_bytes" : "memory.max",
        bytes: LIMIT,
      });
      expect(t.counted).toMatch(/^anon \+ shmem/);
      expect(t.summary).toMatch(/^container limit 400 MiB, anon \+ shmem.* MiB.*, growing \d.* MiB\/s: ~\d+ s \(\d+/);

      const end = await killed;
      expect(end.signal).toBe("SIGKILL");
      const oom = value(
        parseOomFile(
          fs.readOptional(`${cg.location.dir}/${v === 1 ? "memory.oom_control" : "memory.events"}`) ?? "",
          v,
        ),
      );
      expect(oom.oomKill).toBeGreaterThanOrEqual(1);
      // Seconds from the projection's reading to the kill (the exit reaches us within milliseconds of it).
      const actual = end.at / 1000 - t.atUnix!;
      console.log(
        `time to the limit: projected ${t.seconds.toFixed(1)} s (${t.secondsMin.toFixed(1)}–${t.secondsMax?.toFixed(1)} s), killed after ${actual.toFixed(1)} s; the watch ended ${((end.at - watchEnded) / 1000).toFixed(1)} s before`,
      );
      expect(actual).toBeGreaterThanOrEqual(t.secondsMin);
      expect(actual).toBeLessThanOrEqual(t.secondsMax!);
      // A range that holds the truth only by being wide says nothing: no wider than the estimate itself. Measured with
      // the same bound: 20 s watches of a service needing half a core spanned 0.29–1.08 of the estimate in 20 runs
      // here and 1.13 and 1.54 in one CI run; 30 s of this one, 0.42–0.74 in 9 runs (6 beside two busy loops or
      // agent.test), the kill inside the range in all.
      expect(t.secondsMax! - t.secondsMin).toBeLessThanOrEqual(t.seconds);
    } finally {
      await service.stop();
      left = cg.remove();
    }
    expect(left).toBeUndefined();
  });
});

function value<T>(r: { ok: true; value: T } | { ok: false; message: string }): T {
  if (!r.ok) throw new Error(r.message);
  return r.value;
}
