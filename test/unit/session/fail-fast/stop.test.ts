import { afterEach, describe, expect, it, vi } from "vitest";
import { FAIL_FAST_GRACE_MS, FailFastStop, type ProcessControl } from "../../../../src/session/fail-fast/stop.js";
import { Wakeup } from "../../../../src/session/wakeup.js";

/** A process tree 10 → 11 → 12 that records what it was sent; `living` is what is still there. */
function processes(living = new Set([10, 11, 12])) {
  const sent: [number[], NodeJS.Signals][] = [];
  const control: ProcessControl = {
    tree: (pid) => [pid, 11, 12].filter((p) => living.has(p)),
    signal: (pids, signal) => void sent.push([pids, signal]),
    alive: (pid) => living.has(pid),
  };
  return { control, sent, living };
}

afterEach(() => void vi.useRealTimers());

/** A FailFastStop over that tree whose gate has just failed, at a clock the test moves on. */
function stoppedByGate() {
  const p = processes();
  const wakeup = new Wakeup();
  const clock = { now: 1000 };
  const stop = new FailFastStop(p.control, { pid: 10 }, wakeup, () => clock.now);
  wakeup.stop("gate-failed");
  return { ...p, stop, clock };
}

describe("FailFastStop", () => {
  it("does nothing when the session stops for another reason", async () => {
    const p = processes();
    const wakeup = new Wakeup();
    const stop = new FailFastStop(p.control, { pid: 10 }, wakeup);
    wakeup.stop("exited");
    await stop.finish();
    expect(p.sent).toEqual([]);
  });

  it("sends SIGTERM to the whole tree when a gate fails, and nothing more if it exits in time", async () => {
    const p = stoppedByGate();
    expect(p.sent).toEqual([[[10, 11, 12], "SIGTERM"]]);
    p.living.clear();
    p.clock.now += 1000;
    await p.stop.finish();
    expect(p.sent).toHaveLength(1);
  });

  it("kills what is left of the tree once the grace period is over, after the session", async () => {
    const p = stoppedByGate();
    p.living.delete(10); // the command exited; a grandchild ignores SIGTERM
    p.living.delete(11);
    p.clock.now += FAIL_FAST_GRACE_MS;
    await p.stop.finish();
    expect(p.sent).toEqual([
      [[10, 11, 12], "SIGTERM"],
      [[12], "SIGKILL"],
    ]);
  });

  it("kills a command that ignores SIGTERM while the session still waits for it", () => {
    vi.useFakeTimers();
    const p = stoppedByGate();
    p.clock.now += FAIL_FAST_GRACE_MS - 1;
    vi.advanceTimersByTime(500);
    expect(p.sent).toHaveLength(1);
    p.clock.now += 1;
    vi.advanceTimersByTime(500);
    expect(p.sent[1]).toEqual([[10, 11, 12], "SIGKILL"]);
  });
});
