/**
 * The namespace facts `watch` reaches a container with: NSpid parsed from captured status files (fixtures/attach), and
 * the host pid of an agent's pid inside found among real processes in a real PID namespace (`unshare`, root only).
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { HostFs } from "../../../src/system/host-fs.js";
import { HostPids } from "../../../src/system/host-pids.js";
import { inOtherNamespace, namespaceOf, parseNsPids, pidInside } from "../../../src/system/namespaces.js";
import { REPO } from "../../helpers/fixtures.js";
import { eventually } from "../../helpers/watched.js";

const fixture = (name: string) => readFileSync(`${REPO}fixtures/attach/${name}`, "utf8");

describe("NSpid", () => {
  it("a process in its own PID namespace: the host pid first, its own last", () => {
    const pids = parseNsPids(fixture("status.pid-namespace"));
    expect(pids).toHaveLength(2);
    expect(pids[1]).toBe(1);
    expect(pidInside(fixture("status.pid-namespace"))).toBe(1);
  });

  it("a process of the reader's own PID namespace: one pid, nothing inside", () => {
    expect(parseNsPids(fixture("status.root-all-caps"))).toHaveLength(1);
    expect(pidInside(fixture("status.root-all-caps"))).toBeUndefined();
  });

  it("no NSpid line (kernels before 4.1) or a damaged one: nothing", () => {
    expect(parseNsPids("Name:\tx\nPid:\t5\n")).toEqual([]);
    expect(parseNsPids("NSpid:\t5\tx\n")).toEqual([]);
  });
});

const isRoot = process.geteuid?.() === 0;

describe.skipIf(!isRoot)("the host pid of a pid inside a real PID namespace", () => {
  // A shell as pid 1 of a new PID namespace, with two sleeps below it (pids 2 and 3 inside).
  const child = spawn(
    "unshare",
    ["--pid", "--fork", "--mount", "--mount-proc", "sh", "-c", "sleep 60 & sleep 60 & wait"],
    { stdio: "ignore", detached: true },
  );
  afterAll(() => process.kill(-child.pid!, "SIGKILL"));
  const fs = new HostFs("/");
  const kids = (pid: number) =>
    readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);

  it("is found by NSpid and the namespace's identity, with or without a hint", async () => {
    expect(await eventually(() => kids(child.pid!).length === 1 && kids(kids(child.pid!)[0]!).length === 2, 5000)).toBe(
      true,
    );
    const init = kids(child.pid!)[0]!;
    const [a, b] = kids(init) as [number, number];
    expect(inOtherNamespace(fs, init, "pid")).toBe(true);
    const ns = namespaceOf(fs, init, "pid")!;
    const pids = new HostPids(fs);
    expect(pids.hostPid(ns, 1, [])).toBe(init); // no hint: all of /proc is searched
    const inside = pidInside(readFileSync(`/proc/${b}/status`, "utf8"))!;
    expect(pids.hostPid(ns, inside, [a, b])).toBe(b);
    // A pid of memleak's own namespace is itself; the container's init is not taken for it (another namespace).
    expect(pids.hostPid(namespaceOf(fs, "self", "pid")!, process.pid, [init])).toBe(process.pid);
    expect(pids.hostPid(namespaceOf(fs, "self", "pid")!, 1, [init])).not.toBe(init);
    expect(pids.hostPid(ns, 999_999, [a, b])).toBeUndefined();
  });
});
