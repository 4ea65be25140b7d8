/**
 * The decisions `watch` makes before it touches a process: is it a CPython the agent fits (from captured
 * /proc/PID/exe and maps), may this memleak ptrace it (from captured status files and the kernel's rules), what gdb's
 * answers mean, and that the code it injects is valid Python that defines nothing in the program's namespace.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { identifyInterpreter } from "../../../src/agent/attach/interpreter.js";
import { gdbFailure, injectedCode } from "../../../src/agent/attach/inject.js";
import { hasCapSysPtrace, ptraceRefusal, tracerFacts, type OwnFacts } from "../../../src/agent/attach/permission.js";
import { fixture } from "../../helpers/fixtures.js";

const exeAndMaps = (name: string) => [fixture(`attach/exe.${name}`).trim(), fixture(`attach/maps.${name}`)] as const;

describe("which interpreter", () => {
  it.each([
    ["pyenv-python3.11", { kind: "cpython", version: [3, 11] }],
    ["debian-python3.11", { kind: "cpython", version: [3, 11] }],
    ["coreutils-sleep", { kind: "not-python" }],
  ])("captured %s → %j", (name, expected) => {
    expect(identifyInterpreter(...exeAndMaps(name))).toEqual(expected);
  });

  it.each([
    // exe, maps line, expected
    [
      "/usr/bin/uwsgi",
      "7f00-7f01 r-xp 0 08:01 1 /usr/lib/x86_64-linux-gnu/libpython3.9.so.1.0",
      { kind: "cpython", version: [3, 9] },
    ],
    ["/opt/pypy/bin/pypy3.10", "", { kind: "other-python", name: "PyPy" }],
    ["/usr/bin/python2.7", "", { kind: "other-python", name: "Python 2" }],
    ["/usr/local/bin/python3.13t", "", { kind: "cpython", version: [3, 13] }],
    ["/venv/bin/python3 (deleted)", "", { kind: "cpython", version: undefined }],
    ["/usr/bin/node", "", { kind: "not-python" }],
    [undefined, undefined, { kind: "not-python" }],
    // /proc/PID/exe hidden (root without CAP_SYS_PTRACE), maps readable: the first mapping names the executable
    [
      undefined,
      "00400000-0041f000 r--p 00000000 fe:00 260811      /usr/bin/python3.11\n",
      { kind: "cpython", version: [3, 11] },
    ],
  ] as const)("%s with %j → %j", (exe, maps, expected) => {
    expect(identifyInterpreter(exe, maps)).toEqual(expected);
  });
});

describe("may memleak ptrace it", () => {
  const root = fixture("attach/status.root-all-caps");
  const rootNoCap = fixture("attach/status.root-without-sys-ptrace");
  const own = (statusText: string, euid: number, yamaScope: number | undefined): OwnFacts => ({
    euid,
    capSysPtrace: hasCapSysPtrace(statusText),
    yamaScope,
  });

  it("reads CAP_SYS_PTRACE from captured CapEff masks", () => {
    expect(hasCapSysPtrace(root)).toBe(true);
    expect(hasCapSysPtrace(rootNoCap)).toBe(false);
    expect(tracerFacts(root)).toEqual({ uid: 0, gid: 0, tracerPid: 0, fsUid: 0, fsGid: 0 });
    // The uid files are opened with is the fourth of four (real, effective, saved, filesystem).
    expect(tracerFacts("Uid:\t1000\t1000\t1000\t1001\nGid:\t5\t5\t5\t6\n")).toMatchObject({
      uid: 1000,
      fsUid: 1001,
      gid: 5,
      fsGid: 6,
    });
  });

  // target uid, tracer, who we are, yama → refusal (undefined = allowed)
  it.each([
    ["root, same uid, no Yama", 0, 0, own(root, 0, undefined), undefined],
    ["root attaches to another user", 1000, 0, own(root, 0, 1), undefined],
    ["user, own process, Yama 0", 1000, 0, own(rootNoCap, 1000, 0), undefined],
    [
      "user, own process, Yama 1",
      1000,
      0,
      own(rootNoCap, 1000, 1),
      /ptrace_scope=1.*sysctl kernel.yama.ptrace_scope=0/,
    ],
    ["user, own process, Yama 2", 1000, 0, own(rootNoCap, 1000, 2), /ptrace_scope=2/],
    ["anyone, Yama 3", 1000, 0, own(root, 0, 3), /ptrace_scope=3/],
    ["user, another user's process", 0, 0, own(rootNoCap, 1000, 0), /belongs to another user \(uid 0\)/],
    [
      "root without CAP_SYS_PTRACE, another uid",
      1000,
      0,
      own(rootNoCap, 0, undefined),
      /without CAP_SYS_PTRACE.*--cap-add SYS_PTRACE.*SYS_PTRACE/,
    ],
    ["already traced", 0, 4321, own(root, 0, undefined), /already traced by PID 4321/],
  ] as const)("%s", (_name, uid, tracerPid, facts, expected) => {
    const why = ptraceRefusal(77, { uid, gid: uid, tracerPid, fsUid: uid, fsGid: uid }, facts);
    if (expected === undefined) expect(why).toBeUndefined();
    else expect(why).toMatch(expected);
  });
});

describe("what gdb said", () => {
  it.each([
    ["", "ptrace: Operation not permitted.", /refused ptrace.*SYS_PTRACE/],
    [
      'MEMLEAK-ERROR symbols: No symbol "Py_AddPendingCall" in current context.',
      "",
      /not CPython, or its symbols are stripped/,
    ],
    [
      "MEMLEAK-ERROR unsafe: its main thread is not blocked in a system call (in sre_match)",
      "",
      /sre_match.*no safe point/,
    ],
    ["", "ptrace: No such process.", /exited/],
    ["", "some other failure\n", /gdb failed: some other failure/],
  ])("%j / %j", (out, err, expected) => {
    expect(gdbFailure(12, out, err)).toMatch(expected);
  });
});

describe("the injected code", () => {
  it("is valid Python that swallows every failure and binds no name in __main__", () => {
    const code = injectedCode({ socketPath: "/nonexistent/agent.sock", interval: 1, page: false });
    // A missing socket: the agent cannot connect and must stop quietly, printing nothing.
    const probe = `before = set(globals())\n${code}\nprint(sorted(set(globals()) - before - {"before"}))\nprint("_memleak_agent_attached" in __import__("sys").modules)`;
    const out = execFileSync("python3", ["-c", probe], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    expect(out.trim().split("\n")).toEqual(["[]", "True"]);
  });

  it("with a page to unmap, names the placeholder gdb fills in", () => {
    expect(injectedCode({ socketPath: "/s", interval: 0.5, page: true })).toMatch(/munmap\(.*@PAGE@\), 4096\)/);
    expect(injectedCode({ socketPath: "/s", interval: 0.5, page: false })).not.toMatch(/@PAGE@/);
  });
});
