import { describe, expect, it } from "vitest";
import { givenUpText, InjectorHealth } from "../../../src/session/injector-health.js";

const SIX = "lldb failed: ModuleNotFoundError: No module named 'six'";

describe("InjectorHealth: the debugger given up, not each process", () => {
  it("the same failure in two processes, before any agent came in: given up at the second, once", () => {
    const h = new InjectorHealth();
    expect(h.failed(100, "lldb", SIX)).toBe(false);
    expect(h.givenUp).toBeUndefined();
    expect(h.failed(101, "lldb", SIX)).toBe(true);
    expect(h.givenUp).toEqual({ pids: [100, 101], method: "lldb", reason: SIX });
    expect(h.failed(102, "lldb", SIX)).toBe(false); // said once
    expect(givenUpText(h.givenUp!)).toBe("lldb failed the same way in PID 100 and PID 101: no other process is tried");
  });

  it("two different failures are the processes': each still tried", () => {
    const h = new InjectorHealth();
    h.failed(100, "gdb", "the interpreter did not run the agent within 7 s");
    h.failed(101, "gdb", "lldb could not schedule the agent (attach: lost connection)");
    expect(h.givenUp).toBeUndefined();
  });

  it("once an agent came in through the debugger, failures are the processes'", () => {
    const h = new InjectorHealth();
    h.succeeded();
    h.failed(100, "gdb", SIX);
    h.failed(101, "gdb", SIX);
    expect(h.givenUp).toBeUndefined();
  });

  it("the same process failing twice (a retry when it grows) is not two processes", () => {
    const h = new InjectorHealth();
    h.failed(100, "lldb", SIX);
    h.failed(100, "lldb", SIX);
    expect(h.givenUp).toBeUndefined();
  });
});
