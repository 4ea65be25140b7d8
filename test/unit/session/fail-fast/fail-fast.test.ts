/**
 * --fail-fast's bookkeeping (session/fail-fast/fail-fast.ts): a gate acts only once it has failed at every judgement for 8 s
 * and at 3 judgements; a gate that passes in between starts over; the gate that stopped the session stays failed.
 */
import { describe, expect, it } from "vitest";
import { FailFast } from "../../../../src/session/fail-fast/fail-fast.js";
import type { GateResult } from "../../../../src/gates/gates.js";

const fail = (name = "fail-on"): GateResult => ({ name, result: "fail", passed: false, message: `${name} failed` });
const pass = (name = "fail-on"): GateResult => ({ name, result: "pass", passed: true, message: "ok" });

describe("--fail-fast", () => {
  it("acts once a failure has held for 8 s over at least 3 judgements", () => {
    const ff = new FailFast();
    expect(ff.check(8, [fail()])).toBeUndefined();
    expect(ff.check(9, [fail()])).toBeUndefined();
    expect(ff.check(15.9, [fail()])).toBeUndefined(); // 7.9 s
    expect(ff.check(16, [fail()])).toMatchObject({ name: "fail-on", since: 8, at: 16 });
    expect(ff.check(17, [fail()])).toBeUndefined(); // once
  });

  it("two judgements 8 s apart are not enough (the later ones come every 5 s)", () => {
    const ff = new FailFast();
    ff.check(30, [fail()]);
    expect(ff.check(38, [fail()])).toBeUndefined();
    expect(ff.check(43, [fail()])).toMatchObject({ since: 30 });
  });

  it("an early call withdrawn in between starts over (a load that finished)", () => {
    const ff = new FailFast();
    ff.check(9, [fail()]);
    ff.check(10, [fail()]);
    ff.check(11, [pass()]);
    ff.check(12, [fail()]);
    ff.check(13, [fail()]);
    expect(ff.check(19, [fail()])).toBeUndefined();
    expect(ff.check(20, [fail()])).toMatchObject({ since: 12 });
  });

  it("inconclusive is not a failure", () => {
    const ff = new FailFast();
    for (let t = 0; t < 20; t++)
      expect(ff.check(t, [{ ...fail(), result: "inconclusive", passed: false }])).toBeUndefined();
  });

  it("the gate that stopped the session stays failed in the final results", () => {
    const ff = new FailFast();
    for (const t of [8, 9, 10, 16]) ff.check(t, [fail("max-growth"), pass()]);
    const final = ff.final([pass("max-growth"), pass()]);
    expect(final).toEqual([
      pass(),
      expect.objectContaining({
        name: "max-growth",
        result: "fail",
        passed: false,
        message: "max-growth failed (at 16 s, when --fail-fast stopped the session)",
      }),
    ]);
    expect(ff.final([fail("max-growth")])).toEqual([fail("max-growth")]);
  });

  it("--per-process: each process's gate is its own (one failing after another is no held failure)", () => {
    const g = (pid: number, result: "fail" | "pass"): GateResult => ({
      name: "max-growth",
      subject: `PID ${pid} anon`,
      result,
      passed: result === "pass",
      message: `PID ${pid}`,
    });
    const ff = new FailFast();
    // three processes failing in one judgement are one judgement each, not three of one gate
    expect(ff.check(0, [g(1, "fail"), g(2, "fail"), g(3, "fail")])).toBeUndefined();
    expect(ff.check(8, [g(1, "fail"), g(2, "fail"), g(3, "fail")])).toBeUndefined();
    // PID 1 stops failing at 9; PID 2 keeps on: its failure dates from 0, PID 1's is gone
    expect(ff.check(9, [g(1, "pass"), g(2, "fail"), g(3, "pass")])).toMatchObject({ subject: "PID 2 anon", since: 0 });
    const final = ff.final([g(1, "pass"), g(2, "pass"), g(3, "pass")]);
    expect(final.map((x) => [x.subject, x.result])).toEqual([
      ["PID 1 anon", "pass"],
      ["PID 3 anon", "pass"],
      ["PID 2 anon", "fail"],
    ]);
  });
});
