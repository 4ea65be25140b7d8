/**
 * agent/attach/debugger.ts: which debugger loads the agent, on captured /proc/cpuinfo and `gdb --version` (fixtures/
 * attach): gdb where it can put the registers back, lldb where it cannot (AMX, gdb before 14), and why neither.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  chooseDebugger,
  cpuHasAmx,
  gdbMajor,
  GDB_MISSING,
  lldbPythonPath,
} from "../../../src/agent/attach/debugger.js";
import { lldbFailure } from "../../../src/agent/attach/inject.js";
import { fixture as readFixture } from "../../helpers/fixtures.js";
import { tempDir } from "../../helpers/temp.js";

const amxCpu = readFixture("attach/cpuinfo.xeon-amx");

describe("what is read", () => {
  it("gdb's major version from its first line", () => {
    expect(gdbMajor(readFixture("attach/gdb-version.debian-13.1"))).toBe(13);
    expect(gdbMajor("GNU gdb (GDB) 14.2\nCopyright (C) 2023")).toBe(14);
    expect(gdbMajor("GNU gdb (Ubuntu 15.0.50.20240403-0ubuntu1) 15.0.50.20240403-git")).toBe(15);
    expect(gdbMajor("lldb version 14.0.6")).toBeUndefined();
  });

  it("AMX from the flags line only", () => {
    expect(cpuHasAmx(amxCpu)).toBe(true);
    expect(cpuHasAmx(amxCpu.replace(/\bamx_tile\b/g, "avx512f"))).toBe(false);
    expect(cpuHasAmx("model name\t: amx_tile in a name\nflags\t\t: fpu sse2 avx2\n")).toBe(false);
  });

  it("lldb's Python package where LLVM installs it (Debian's `lldb -P` names a path that does not exist)", () => {
    const root = tempDir("lldb-python");
    expect(lldbPythonPath(root)).toBeUndefined();
    const dir = join(root, "llvm-14", "lib", "python3.11", "dist-packages");
    mkdirSync(join(dir, "lldb"), { recursive: true });
    expect(lldbPythonPath(root)).toBeUndefined();
    writeFileSync(join(dir, "lldb", "__init__.py"), "");
    expect(lldbPythonPath(root)).toBe(dir);
  });
});

describe("chooseDebugger", () => {
  const found = { gdb: "/usr/bin/gdb", gdbMajor: 13, amx: false, lldb: "/usr/bin/lldb", lldbPython: "/py" };

  it("gdb without AMX, whatever its version; with AMX from gdb 14 on", () => {
    expect(chooseDebugger(found)).toEqual({ kind: "gdb", path: "/usr/bin/gdb" });
    expect(chooseDebugger({ ...found, amx: true, gdbMajor: 14 })).toEqual({ kind: "gdb", path: "/usr/bin/gdb" });
  });

  it("AMX and gdb 13: lldb, saying why", () => {
    expect(chooseDebugger({ ...found, amx: true })).toEqual({
      kind: "lldb",
      path: "/usr/bin/lldb",
      pythonPath: "/py",
      why: "gdb 13 cannot put a thread's registers back on this CPU (AMX; gdb 14+ can): calling into the program would crash it",
    });
  });

  it("AMX, gdb 13 and no lldb: no agent rather than a crashed program, with what to install", () => {
    const none = chooseDebugger({ ...found, amx: true, lldb: undefined, lldbPython: undefined });
    expect(none).toEqual({
      kind: "none",
      reason:
        "gdb 13 cannot put a thread's registers back on this CPU (AMX; gdb 14+ can): calling into the program would crash it; install lldb (apt-get install lldb python3-lldb-14) or gdb 14+",
    });
    expect(chooseDebugger({ ...found, amx: true, lldbPython: undefined })).toMatchObject({
      kind: "none",
      reason: expect.stringMatching(/lldb's Python package is missing \(apt-get install python3-lldb-14\)$/) as unknown,
    });
  });

  it("no gdb: lldb when there is one, else how to install gdb", () => {
    expect(chooseDebugger({ ...found, gdb: undefined, gdbMajor: undefined })).toMatchObject({
      kind: "lldb",
      why: "gdb is not installed",
    });
    expect(
      chooseDebugger({ gdb: undefined, gdbMajor: undefined, amx: false, lldb: undefined, lldbPython: undefined }),
    ).toEqual({
      kind: "none",
      reason: GDB_MISSING,
    });
  });
});

describe("lldbFailure", () => {
  it("the script's own markers, an attach refused, or lldb's last error line", () => {
    expect(lldbFailure(7, "MEMLEAK-ERROR unsafe: its main thread is not blocked in a system call (in foo)\n", "")).toBe(
      "the interpreter did not run the agent, and its main thread is not blocked in a system call (in foo): no safe point to load it",
    );
    expect(lldbFailure(7, "MEMLEAK-ERROR symbols: no such symbol\n", "")).toMatch(/^PID 7 has no Py_AddPendingCall/);
    expect(lldbFailure(7, "", "error: attach failed: Operation not permitted\n")).toMatch(
      /^lldb could not attach to PID 7 \(ptrace refused/,
    );
    expect(lldbFailure(7, "(lldb) process attach --pid 7\n", "error: something odd\n")).toBe(
      "lldb failed: error: something odd",
    );
  });
});
