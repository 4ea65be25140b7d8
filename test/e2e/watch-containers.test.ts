/**
 * `memleak watch <host pid>` of programs in containers made by `unshare` (no container runtime needed): their own
 * mount namespace with a private /tmp, their own PID namespace, a user namespace, another uid inside, a shell as the
 * container's init with Python below it. In each the agent's numbers must arrive (the verdict is the one only the
 * agent can give: a leak's layer, or fragmentation), the report must use host pids and say the pid inside, and the
 * container's /tmp must be clean afterwards — also after memleak is killed with SIGKILL.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { REPO } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/temp.js";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { VerdictDocument } from "../../src/analysis/types.js";
import {
  isRoot,
  USER_NAMESPACES,
  memleakLeftovers,
  pidInsideOf,
  startContained,
  type Contained,
} from "../helpers/contained.js";
import { MEMLEAK, memleak } from "../helpers/processes.js";
import { expectDictCacheLayer, eventually, threadNames } from "../helpers/watched.js";
import { createTestCgroup, HOST_TEST_CGROUP, skipNote } from "../helpers/cgroup.js";
import { HostFs } from "../../src/system/host-fs.js";
import { lacking } from "../helpers/prerequisite.js";

const MiB = 2 ** 20;
const started: Contained[] = [];
afterAll(async () => {
  for (const s of started) await s.stop();
});

// Every document is held to the published schema: pidInside and the container's cgroup are part of it.
const validate = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true }).compile(
  JSON.parse(readFileSync(`${REPO}schema/verdict.schema.json`, "utf8")) as Record<string, unknown>,
);

async function watch(target: Contained, seconds = 25, more: string[] = []) {
  started.push(target);
  const r = await memleak([
    "watch",
    String(target.target),
    "--duration",
    String(seconds),
    "--interval",
    "0.5",
    "--json",
    ...more,
  ]);
  expect(r.stdout, r.stderr).not.toBe("");
  const doc = JSON.parse(r.stdout) as VerdictDocument;
  expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
  return { ...r, doc };
}

// Namespaces and mounts need root; CI runs as root.
describe
  .skipIf(lacking(!isRoot, "root", "run the tests as root (.ci/run does)"))
  .concurrent("watch: a target in a container", { timeout: 150_000 }, () => {
    it("own mount and PID namespace, private /tmp: a growing dict is a leak with its layer, by host pid, pid 1 inside; /tmp clean", async () => {
      const c = await startContained("dict_cache_leak", 90);
      expect(pidInsideOf(c.target)).toBe(1);
      const { doc, stderr } = await watch(c);
      expect(stderr).toMatch(
        new RegExp(`agent attached to PID ${c.target} \\(python3\\) in a container \\(pid 1 inside\\)`),
      );
      expect(doc.verdict).toMatchObject({ kind: "leak", pid: c.target, subject: { pidInside: 1 } });
      expect(doc.target).toMatchObject({ pid: c.target, pidInside: 1 });
      expectDictCacheLayer(doc);
      expect(doc.verdict.evidence.mallocInUseGrowth as number).toBeGreaterThan(10 * MiB);
      expect(memleakLeftovers(c.target)).toEqual([]);
    });

    it("own mount and PID namespace: a fragmenting program is fragmentation (malloc's numbers came from inside)", async () => {
      const { doc } = await watch(await startContained("frag_burst", 90));
      expect(doc.verdict.kind).toBe("fragmentation");
      expect(doc.verdict.evidence.mallocInUseBytes as number).toBeLessThan(30 * MiB);
    });

    it.skipIf(lacking(!USER_NAMESPACES.ok, "user namespaces", USER_NAMESPACES.ok ? "" : USER_NAMESPACES.reason))(
      `a user namespace (rootless: uid 0 inside is 65534 outside): the agent arrives, /tmp clean${skipNote(USER_NAMESPACES)}`,
      async () => {
        const c = await startContained("dict_cache_leak", 90, { userNamespace: true });
        const { doc, stderr } = await watch(c);
        expect(stderr).toMatch(/agent attached to PID \d+ \(python3\) in a container \(pid 1 inside\)/);
        expect(doc.verdict).toMatchObject({ kind: "leak", pid: c.target });
        expectDictCacheLayer(doc);
        expect(memleakLeftovers(c.target)).toEqual([]);
      },
    );

    it("another uid inside the container (1000): the agent arrives, /tmp clean", async () => {
      const c = await startContained("dict_cache_leak", 90, { uid: 1000 });
      const { doc, stderr } = await watch(c);
      expect(stderr).toMatch(/agent attached to PID \d+ \(python3\) in a container/);
      expect(doc.verdict).toMatchObject({ kind: "leak", pid: c.target });
      expectDictCacheLayer(doc);
      expect(memleakLeftovers(c.target)).toEqual([]);
    });

    it("a shell as the container's init, Python below it with forked workers: each found and injected, the leak names the worker by host pid", async () => {
      const c = await startContained("leak_worker", 90, { initShell: true }, /leaking worker: \d+/);
      const workerInside = Number(/leaking worker: (\d+)/.exec(c.output())![1]);
      const recording = join(tempDir("memleak-containers-"), "watch.jsonl");
      const { doc, stderr } = await watch(c, 25, ["--record", recording]);
      expect(stderr).toMatch(/no agent in PID \d+ \(sh\) in a container \(pid 1 inside\): not a Python process/);
      expect(stderr).toMatch(
        new RegExp(`agent attached to PID \\d+ \\(python3\\) in a container \\(pid ${workerInside} inside\\)`),
      );
      expect(doc.verdict).toMatchObject({ kind: "leak", subject: { isRoot: false, pidInside: workerInside } });
      expect(doc.verdict.pid).not.toBe(workerInside); // the host's pid, not the one inside
      expect(pidInsideOf(doc.verdict.pid!)).toBe(workerInside);
      expect(doc.verdict.evidence.mallocInUseGrowth as number).toBeGreaterThan(10 * MiB);
      expect(memleakLeftovers(c.target)).toEqual([]);
      // The recording keeps the pids inside (attach events): analyzed again, the verdict still says them.
      const again = await memleak(["analyze", recording, "--json"]);
      const re = JSON.parse(again.stdout) as VerdictDocument;
      expect(re.verdict).toMatchObject({ pid: doc.verdict.pid, subject: { pidInside: workerInside } });
      expect(re.target.pidInside).toBe(1);
    });

    it("a worker forked during the watch brings the agent with it: its pid inside is mapped to the host's, the leak names it", async () => {
      const c = await startContained("scripts/fork_after_agent", 60);
      const { doc, stderr } = await watch(c, 25);
      const inside = Number(/forked worker: (\d+)/.exec(c.output())?.[1]);
      expect(inside, c.output()).toBeGreaterThan(1);
      expect(doc.verdict, stderr).toMatchObject({ kind: "leak", subject: { isRoot: false, pidInside: inside } });
      expect(pidInsideOf(doc.verdict.pid!)).toBe(inside);
      expect(stderr).not.toMatch(new RegExp(`agent attached to PID ${doc.verdict.pid}`)); // connected by itself, not by gdb
      expect(doc.verdict.evidence.mallocInUseGrowth as number).toBeGreaterThan(10 * MiB);
      expect(memleakLeftovers(c.target)).toEqual([]);
    });

    it("`kubectl debug --target`: memleak shares the PID namespace but not /tmp: the agent arrives, /tmp clean", async () => {
      const c = await startContained("dict_cache_leak", 90, { sharePids: true });
      const { doc, stderr } = await watch(c);
      expect(stderr).toMatch(new RegExp(`agent attached to PID ${c.target} \\(python3\\) in \\d`)); // no pid inside: the same
      expect(doc.verdict).toMatchObject({ kind: "leak", pid: c.target });
      expect(doc.target.pidInside).toBeUndefined();
      expectDictCacheLayer(doc);
      expect(memleakLeftovers(c.target)).toEqual([]);
    });
  });

// This describe and the two after it are concurrent too, so that their runs share the first one's slots (at most 5 tests
// at once, a file's concurrent describes together) instead of following it: each has a container of its own.
describe
  .skipIf(
    lacking(
      !isRoot || !HOST_TEST_CGROUP.ok,
      "root and a test memory cgroup",
      "root on a host with a writable memory cgroup",
    ),
  )
  .concurrent(`watch: the container's own memory cgroup${skipNote(HOST_TEST_CGROUP)}`, { timeout: 120_000 }, () => {
    it("a target in a memory cgroup of its own: that cgroup is read, from its /proc/PID/cgroup, and said to be the container's", async () => {
      const c = await startContained("dict_cache_leak", 60);
      started.push(c);
      const cgroup = createTestCgroup(new HostFs(), HOST_TEST_CGROUP);
      try {
        cgroup.add(c.target);
        const r = await memleak(["watch", String(c.target), "--duration", "4", "--interval", "0.5", "--json"]);
        const doc = JSON.parse(r.stdout) as VerdictDocument;
        expect(doc.target.cgroup).toEqual({
          path: cgroup.location.path,
          version: cgroup.location.version,
          isolated: false,
          container: true,
        });
        expect(r.stderr).toContain(
          `PID ${c.target} is in a container: reading the container's memory cgroup ${cgroup.location.path}`,
        );
      } finally {
        await c.stop();
        cgroup.remove();
      }
    });
  });

describe
  .skipIf(lacking(!isRoot, "root", "run the tests as root (.ci/run does)"))
  .concurrent("watch: a container memleak cannot place its agent in", { timeout: 120_000 }, () => {
    it("/tmp, /dev/shm and /var/tmp read-only: one line says so and how to fix it, not 'did not run the agent'", async () => {
      const c = await startContained("dict_cache_leak", 60, { readOnlyTmp: true });
      const { stderr } = await watch(c, 5);
      expect(stderr).toMatch(
        /no agent in PID \d+ \(python3\) in a container \(pid 1 inside\): memleak cannot place its agent's files in PID \d+'s container \(\/tmp is read-only; \/dev\/shm is read-only; \/var\/tmp is read-only\): give it a writable \/tmp \(in Kubernetes an emptyDir volume at \/tmp/,
      );
      expect(stderr).not.toMatch(/did not run the agent/);
    });
  });

describe
  .skipIf(lacking(!isRoot, "root", "run the tests as root (.ci/run does)"))
  .concurrent("watch: what a killed memleak leaves in a container", { timeout: 120_000 }, () => {
    it("kill -9 after the agent attached: the agent removes the placed directory", async () => {
      const c = await startContained("dict_cache_leak", 90);
      started.push(c);
      const m = spawn(process.execPath, [MEMLEAK, "watch", String(c.target), "--duration", "60", "--interval", "0.5"], {
        stdio: ["ignore", "ignore", "pipe"],
      });
      let err = "";
      m.stderr.on("data", (d: Buffer) => (err += d.toString()));
      expect(await eventually(() => /agent attached/.test(err), 60_000), err).toBe(true);
      expect(memleakLeftovers(c.target)).toHaveLength(1); // placed while it runs
      m.kill("SIGKILL");
      const removed = await eventually(() => memleakLeftovers(c.target).length === 0, 10_000);
      expect(
        removed,
        `${memleakLeftovers(c.target).join(", ")}; threads ${threadNames(c.target).join(",")}; ${err}`,
      ).toBe(true);
    });

    it("a dead memleak's directory that no agent removed (killed before one attached) is removed by the next run", async () => {
      const c = await startContained("dict_cache_leak", 90);
      started.push(c);
      // What a memleak killed between placing and attaching leaves: its directory, the agent's files, no listener.
      const stale = `/proc/${c.target}/root/tmp/memleak-placed-99999999-abcdef`;
      mkdirSync(stale, { mode: 0o700 });
      writeFileSync(`${stale}/memleak_agent.py`, "");
      expect(readdirSync(`/proc/${c.target}/root/tmp`)).toContain("memleak-placed-99999999-abcdef");
      const { stderr } = await watch(c, 6);
      expect(stderr).toMatch(/agent attached/);
      expect(memleakLeftovers(c.target)).toEqual([]);
    });
  });
