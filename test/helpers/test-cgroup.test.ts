/**
 * Where the e2e tests put a memory cgroup of their own (test/helpers/cgroup.ts), decided on captured hosts: the
 * development machine (hybrid: memory on v1), a Docker container on pure v1, a pure-v2 systemd host and a pure-v2
 * container. /proc/PID/cgroup and mountinfo are the captures in fixtures/ (fixtures/README.md, SOURCES-v2.md); the
 * cgroup.subtree_control and memory.* files the decision reads are written here, with what each host would have.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HostFs } from "../../src/system/host-fs.js";
import { createTestCgroup, skipNote, testCgroupPlace } from "./cgroup.js";
import { FIXTURES, fixture } from "./fixtures.js";
import { tempDir } from "./temp.js";

const PID = 4242;
const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

/** A root prefix holding `files` (path → text, or → a fixture "@name"), with proc/self/mountinfo from `mountinfo`. */
function host(files: Record<string, string>, base?: string): HostFs {
  const root = tempDir("test-cgroup");
  roots.push(root);
  if (base) cpSync(base, root, { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text.startsWith("@") ? fixture(text.slice(1)) : text);
  }
  return new HostFs(root);
}

/** Pure-v2 systemd host (fixtures/v2): we are in session-3.scope; user-1000.slice hands memory down to it. */
const SESSION = "/user.slice/user-1000.slice/session-3.scope";
const v2Host = (sliceControl: string) =>
  host({
    [`/proc/${PID}/cgroup`]: "@v2/proc-pid-cgroup",
    "/proc/self/mountinfo": "@v2/mountinfo",
    "/sys/fs/cgroup/cgroup.controllers": "cpuset cpu io memory hugetlb pids rdma misc\n",
    "/sys/fs/cgroup/cgroup.subtree_control": "cpuset cpu io memory pids\n",
    "/sys/fs/cgroup/user.slice/cgroup.subtree_control": "memory pids\n",
    "/sys/fs/cgroup/user.slice/user-1000.slice/cgroup.subtree_control": sliceControl,
    [`/sys/fs/cgroup${SESSION}/cgroup.subtree_control`]: "\n",
    // The session scope has memory files only when its parent hands memory down.
    ...(sliceControl.includes("memory") && { [`/sys/fs/cgroup${SESSION}/memory.current`]: "@v2/memory.current" }),
  });

describe("where an e2e test may create a memory cgroup", () => {
  it("hybrid (the development machine): under our own v1 memory cgroup", () => {
    const fs = new HostFs(`${FIXTURES}trees/hybrid-v1`);
    const dir = "/sys/fs/cgroup/memory/process_api/2c952b984877f889993fb8e825cc050f";
    expect(testCgroupPlace(fs, 5932, true)).toEqual({
      ok: true,
      own: expect.objectContaining({ version: 1, dir }),
      parent: expect.objectContaining({ version: 1, dir }),
    });
  });

  it("pure v1 (a Docker container): under our own memory cgroup, at the container's mount point", () => {
    const fs = host({
      [`/proc/${PID}/cgroup`]: "@v1/proc-pid-cgroup.docker",
      "/proc/self/mountinfo": "@v1/mountinfo.docker",
      "/sys/fs/cgroup/memory/memory.usage_in_bytes": "@hybrid/memory.usage_in_bytes",
    });
    const place = testCgroupPlace(fs, PID, true);
    expect(place).toMatchObject({ ok: true, parent: { version: 1, dir: "/sys/fs/cgroup/memory" } });
  });

  it("pure v2: not under our own cgroup (it holds us), under the nearest one above that hands memory down", () => {
    const place = testCgroupPlace(v2Host("memory pids\n"), PID, true);
    expect(place).toEqual({
      ok: true,
      own: { version: 2, path: SESSION, dir: `/sys/fs/cgroup${SESSION}` },
      parent: { version: 2, path: "/user.slice/user-1000.slice", dir: "/sys/fs/cgroup/user.slice/user-1000.slice" },
    });
  });

  it("pure v2 with memory not handed down to us: skips, saying why", () => {
    const place = testCgroupPlace(v2Host("pids\n"), PID, true);
    expect(place.ok).toBe(false);
    expect(skipNote(place)).toMatch(
      /^ \[skipped: no memory cgroup: .*memory\.current not found: the memory controller is not enabled there/,
    );
  });

  it("pure v2 container, our cgroup its root, nothing handing memory down: skips, saying why", () => {
    const fs = host({ "/sys/fs/cgroup/cgroup.subtree_control": "\n" }, `${FIXTURES}trees/v2-container`);
    expect(testCgroupPlace(fs, 1, true)).toEqual({
      ok: false,
      reason: "no cgroup from / upwards has memory in its cgroup.subtree_control",
    });
  });

  it("pure v2 container whose root cgroup hands memory down: under it", () => {
    const fs = host({ "/sys/fs/cgroup/cgroup.subtree_control": "cpu memory pids\n" }, `${FIXTURES}trees/v2-container`);
    expect(testCgroupPlace(fs, 1, true)).toMatchObject({
      ok: true,
      parent: { version: 2, path: "/", dir: "/sys/fs/cgroup" },
    });
  });

  it("not root: skips, saying why", () => {
    expect(testCgroupPlace(v2Host("memory pids\n"), PID, false)).toEqual({
      ok: false,
      reason: "creating a memory cgroup needs root",
    });
  });
});

describe("creating and removing it (on a captured tree: directories only, no kernel behind them)", () => {
  it("pure v2: makes the child under the slice, and removes it", () => {
    const fs = v2Host("memory pids\n");
    const cg = createTestCgroup(fs, testCgroupPlace(fs, PID, true));
    expect(cg.location).toMatchObject({
      version: 2,
      path: expect.stringMatching(/^\/user\.slice\/user-1000\.slice\/memleak-\d+-/),
    });
    const slice = fs.path("/sys/fs/cgroup/user.slice/user-1000.slice");
    expect(readdirSync(slice).filter((d) => d.startsWith("memleak-"))).toHaveLength(1);
    expect(cg.remove()).toBeUndefined();
    expect(existsSync(fs.path(cg.location.dir))).toBe(false);
  });
});
