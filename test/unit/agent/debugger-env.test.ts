import { describe, expect, it } from "vitest";
import { debuggerEnv } from "../../../src/agent/attach/debugger-env.js";

describe("debuggerEnv: the environment gdb and lldb load the agent from", () => {
  const shell = {
    PATH: "/root/.pyenv/versions/3.11.7/bin:/usr/local/bin:/usr/bin",
    PYTHONHOME: "/root/.pyenv/versions/3.11.7",
    PYTHONPATH: "/home/me/project/src",
    PYTHONSTARTUP: "/home/me/.pythonrc",
    HOME: "/root",
    MEMLEAK_ANYTHING: "kept",
  };

  it("leaves out every PYTHON* setting of the user's, and keeps the rest", () => {
    const env = debuggerEnv(shell, "/usr/bin/gdb");
    expect(Object.keys(env).filter((k) => k.startsWith("PYTHON"))).toEqual([]);
    expect(env).toMatchObject({ HOME: "/root", MEMLEAK_ANYTHING: "kept" });
  });

  it("puts the debugger's directory first on PATH, where the distribution's python3 sits beside it", () => {
    expect(debuggerEnv(shell, "/usr/bin/lldb").PATH).toBe(
      "/usr/bin:/root/.pyenv/versions/3.11.7/bin:/usr/local/bin:/usr/bin",
    );
    expect(debuggerEnv({}, "/usr/bin/gdb").PATH).toBe("/usr/bin");
  });

  it("gives lldb's Python its package's directory, and nothing else", () => {
    expect(debuggerEnv(shell, "/usr/bin/lldb", "/usr/lib/llvm-14/lib/python3.11/dist-packages").PYTHONPATH).toBe(
      "/usr/lib/llvm-14/lib/python3.11/dist-packages",
    );
  });

  it("does not change what it was given", () => {
    const copy = { ...shell };
    debuggerEnv(shell, "/usr/bin/lldb", "/x");
    expect(shell).toEqual(copy);
  });
});
