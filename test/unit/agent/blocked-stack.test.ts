/**
 * Whether a main thread's stack is a safe place to run the agent's loading code (src/agent/attach/blocked_stack.py,
 * shared by gdb-inject.py and lldb_inject.py), on stacks as the debuggers read them, run in a real interpreter.
 * Debian's libc without libc6-dbg gives its futex wait no name ("___lldb_unnamed_symbol3485" to lldb): a main thread
 * joining a thread was refused a safe point, and its process got no agent, wherever those symbols are not installed.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { REPO } from "../../helpers/fixtures.js";

type Frame = [string | null, string];

function judged(frames: Frame[], inSystemCall: boolean): [boolean, string] {
  const code = `
import json, sys
sys.path.insert(0, ${JSON.stringify(`${REPO}src/agent/attach`)})
from blocked_stack import blocked_safely
print(json.dumps(blocked_safely(json.loads(sys.argv[1]), sys.argv[2] == "1")))`;
  const out = execFileSync("python3", ["-c", code, JSON.stringify(frames), inSystemCall ? "1" : "0"], {
    encoding: "utf8",
  });
  return JSON.parse(out) as [boolean, string];
}

const LIBC = "/usr/lib/x86_64-linux-gnu/libc.so.6";
const LIBPYTHON = "/root/.pyenv/versions/3.11.7/lib/libpython3.11.so.1.0";
// lldb 14's frames of a main thread in threading's join, libc's symbols not installed (read on this machine).
const JOIN_UNNAMED: Frame[] = [
  ["___lldb_unnamed_symbol3485", LIBC],
  ["___lldb_unnamed_symbol3546", LIBC],
  ["PyThread_acquire_lock_timed", LIBPYTHON],
  ["acquire_timed", LIBPYTHON],
];

describe("blocked_safely: a safe point on the main thread's stack", () => {
  it("a join's futex wait with no name, in a system call, under a Python lock: safe", () => {
    expect(judged(JOIN_UNNAMED, true)).toEqual([
      true,
      "a system call of a function without a name (___lldb_unnamed_symbol3485)",
    ]);
  });

  it("the same frames not stopped in a system call (running in libc): refused", () => {
    expect(judged(JOIN_UNNAMED, false)[0]).toBe(false);
    expect(judged(JOIN_UNNAMED, false)[1]).toMatch(/not blocked in a system call \(in ___lldb_unnamed_symbol3485\)/);
  });

  it("an unnamed system call with no Python lock below it (a C extension's own wait): refused as a lock not Python's", () => {
    const frames: Frame[] = [
      [null, LIBC],
      ["??", LIBC],
      ["my_extension_wait", "/usr/lib/python3/dist-packages/ext.so"],
      ["cfunction_call", LIBPYTHON],
    ];
    const [safe, why] = judged(frames, true);
    expect(safe).toBe(false);
    expect(why).toMatch(/waits on a lock .* that is not a Python lock/);
  });

  it("named calls as before: time.sleep's clock_nanosleep is safe, a named futex wait needs a Python lock", () => {
    expect(
      judged(
        [
          ["clock_nanosleep", LIBC],
          ["pysleep", LIBPYTHON],
        ],
        false,
      )[0],
    ).toBe(true);
    expect(
      judged(
        [
          ["__futex_abstimed_wait_common", LIBC],
          ["pthread_cond_wait", LIBC],
          ["Py_RunMain", LIBPYTHON],
        ],
        true,
      )[0],
    ).toBe(false);
  });
});

describe("in_system_call_at: x86-64's syscall instruction before the program counter", () => {
  it.each([
    ["0f05", true],
    ["9090", false],
    ["", false],
  ])("%s → %s", (hex, expected) => {
    const code = `
import sys
sys.path.insert(0, ${JSON.stringify(`${REPO}src/agent/attach`)})
from blocked_stack import in_system_call_at
print(in_system_call_at(bytes.fromhex(sys.argv[1]) or None))`;
    expect(execFileSync("python3", ["-c", code, hex], { encoding: "utf8" }).trim()).toBe(expected ? "True" : "False");
  });
});
