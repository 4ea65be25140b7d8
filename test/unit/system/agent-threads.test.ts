/**
 * The tree walk leaves out the children files of memleak's agent threads, known by their comm, and of nothing else.
 * The /proc layout is written to a temporary root (comm and children as the kernel writes them: the name and a
 * newline; pids with a trailing space); the real processes are test/e2e/sampler.test.ts's.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { processTree } from "../../../src/system/process-tree.js";
import { AgentThreads, LOOKS_BEFORE_PROGRAM, RECHECK_AGENT_TICKS } from "../../../src/system/agent-threads.js";
import { tempDir } from "../../helpers/temp.js";
import { CountingFs } from "../../helpers/counting-fs.js";

function proc(root: string, pid: number, ppid: number, threads: Record<number, { comm: string; children?: number[] }>) {
  const dir = join(root, "proc", String(pid));
  mkdirSync(join(dir, "task"), { recursive: true });
  writeFileSync(
    join(dir, "stat"),
    `${pid} (python3) S ${ppid} ${pid} ${pid} 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 1 0 0\n`,
  );
  for (const [tid, t] of Object.entries(threads)) {
    mkdirSync(join(dir, "task", tid), { recursive: true });
    writeFileSync(join(dir, "task", tid, "comm"), `${t.comm}\n`);
    writeFileSync(join(dir, "task", tid, "children"), (t.children ?? []).map((c) => `${c} `).join(""));
  }
}

describe("the agent's threads in the tree walk", () => {
  it("reads no children file of a thread named memleak-agent, and every other thread's", () => {
    const root = tempDir("agent-threads");
    proc(root, 100, 1, { 100: { comm: "python3", children: [200] }, 101: { comm: "memleak-agent" } });
    proc(root, 200, 100, {
      200: { comm: "python3" },
      201: { comm: "pt_data_worker", children: [300] },
      202: { comm: "memleak-agent" },
    });
    proc(root, 300, 201, { 300: { comm: "python3" } });
    const fs = new CountingFs(root);
    const agents = new AgentThreads(fs);
    for (let tick = 0; tick < 10; tick++) {
      expect(processTree(fs, 100, agents).map((n) => n.pid)).toEqual([100, 200, 300]);
    }
    expect(fs.count("/proc/100/task/101/children")).toBe(0);
    expect(fs.count("/proc/200/task/202/children")).toBe(0);
    // The program's threads, a forking one that is not the main thread among them, every tick.
    expect(fs.count("/proc/100/task/100/children")).toBe(10);
    expect(fs.count("/proc/200/task/201/children")).toBe(10);
    // Each thread's comm: the agent's once, a program thread's on its first few walks only.
    expect(fs.count("/proc/100/task/101/comm")).toBe(1);
    expect(fs.count("/proc/200/task/201/comm")).toBe(LOOKS_BEFORE_PROGRAM);
    // Without the record (a one-off walk), every file as before.
    const once = new CountingFs(root);
    expect(processTree(once, 100).map((n) => n.pid)).toEqual([100, 200, 300]);
    expect(once.count("/proc/100/task/101/children")).toBe(1);
    expect([...once.reads.keys()].some((p) => p.endsWith("/comm"))).toBe(false);
  });

  it("a thread named only after its first look is taken for the agent's on a later one", () => {
    const root = tempDir("agent-threads");
    proc(root, 100, 1, { 100: { comm: "python3" }, 101: { comm: "python3" } });
    const fs = new CountingFs(root);
    const agents = new AgentThreads(fs);
    processTree(fs, 100, agents);
    writeFileSync(join(root, "proc/100/task/101/comm"), "memleak-agent\n");
    for (let tick = 0; tick < 5; tick++) processTree(fs, 100, agents);
    expect(fs.count("/proc/100/task/101/children")).toBe(1);
  });

  it("a thread that keeps a program name past its first looks is walked for good", () => {
    const root = tempDir("agent-threads");
    proc(root, 100, 1, { 100: { comm: "python3" }, 101: { comm: "python3" } });
    const fs = new CountingFs(root);
    const agents = new AgentThreads(fs);
    for (let tick = 0; tick < LOOKS_BEFORE_PROGRAM; tick++) processTree(fs, 100, agents);
    writeFileSync(join(root, "proc/100/task/101/comm"), "memleak-agent\n");
    for (let tick = 0; tick < 5; tick++) processTree(fs, 100, agents);
    expect(fs.count("/proc/100/task/101/children")).toBe(LOOKS_BEFORE_PROGRAM + 5);
  });

  it("a tid that was the agent's and is another thread's now is walked again within the recheck", () => {
    const root = tempDir("agent-threads");
    proc(root, 100, 1, { 100: { comm: "python3" }, 101: { comm: "memleak-agent" } });
    const fs = new CountingFs(root);
    const agents = new AgentThreads(fs);
    processTree(fs, 100, agents);
    // The agent stopped, the kernel's pids wrapped, and tid 101 is a program thread that forked 300.
    writeFileSync(join(root, "proc/100/task/101/comm"), "python3\n");
    writeFileSync(join(root, "proc/100/task/101/children"), "300 ");
    proc(root, 300, 100, { 300: { comm: "python3" } });
    let ticks = 0;
    while (!processTree(fs, 100, agents).some((n) => n.pid === 300)) ticks++;
    // Looked at again on the walk RECHECK_AGENT_TICKS after the one that found it: the walks between missed the child.
    expect(ticks).toBe(RECHECK_AGENT_TICKS - 1);
  });

  it("the name exactly: with or without the kernel's newline, and no other of the same length", () => {
    const root = tempDir("agent-threads");
    proc(root, 100, 1, {
      100: { comm: "python3" },
      101: { comm: "memleak-agent" },
      102: { comm: "memleak-agenx" },
      103: { comm: "memleak-agen" },
    });
    writeFileSync(join(root, "proc/100/task/101/comm"), "memleak-agent"); // no newline: a captured file, say
    const fs = new CountingFs(root);
    const agents = new AgentThreads(fs);
    expect([100, 101, 102, 103].map((tid) => agents.isAgent(100, String(tid)))).toEqual([false, true, false, false]);
  });

  it("forgets the threads of processes that left the tree", () => {
    const root = tempDir("agent-threads");
    proc(root, 100, 1, { 100: { comm: "python3", children: [200] }, 101: { comm: "memleak-agent" } });
    proc(root, 200, 100, { 200: { comm: "python3" }, 202: { comm: "memleak-agent" } });
    const fs = new CountingFs(root);
    const agents = new AgentThreads(fs);
    processTree(fs, 100, agents);
    expect(agents.size).toBe(4);
    rmSync(join(root, "proc/200"), { recursive: true });
    writeFileSync(join(root, "proc/100/task/100/children"), "");
    expect(processTree(fs, 100, agents).map((n) => n.pid)).toEqual([100]);
    expect(agents.size).toBe(2);
  });
});
