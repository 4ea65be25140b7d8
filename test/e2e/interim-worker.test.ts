/**
 * The compiled interim analyst (dist/, as the CLI runs it) works verdicts out on a real worker thread: the request
 * returns at once, the verdict comes back later, and it is the verdict the main thread would have worked out. Given a
 * hold-up, it works them out in line (answered before the request returns) until one takes longer, and on the worker
 * from the next on.
 */
import { describe, expect, it } from "vitest";
import { classify } from "../../src/report/verdict.js";
import { interimView, SeriesBuilder } from "../../src/series/series.js";
import { MB, synthesize } from "../helpers/synthetic-samples.js";

// The compiled files (the worker thread runs dist/'s worker), typed as their sources (dist/ has no declarations).
const compiled = async () => ({
  ...((await import(
    "../../dist/session/interim/analyst.js" as string
  )) as typeof import("../../src/session/interim/analyst.js")),
  ...((await import("../../dist/series/packed-set.js" as string)) as typeof import("../../src/series/packed-set.js")),
});

/** Ten minutes of one process leaking 0.2 MB/s, as the session's coarse view: the verdict is a leak. */
function leakingView() {
  const b = new SeriesBuilder(undefined, 120);
  for (const s of synthesize({
    seconds: 600,
    processes: [
      {
        pid: 100,
        ppid: 1,
        anon: { shape: { kind: "linear", bytesPerSecond: 0.2 * MB }, baseline: 200 * MB, noise: 2 * MB },
      },
    ],
  }))
    b.add(s);
  return interimView(b.set);
}

describe("interim verdicts on a worker thread", () => {
  it("answers asynchronously, with the same verdict as in line", async () => {
    const { InterimAnalyst, packSet } = await compiled();
    const view = leakingView();
    const input = { set: view, options: {}, target: { pid: 100 } };
    const expected = classify(input);
    const answered = new Promise<{ kind: string; at: number }>((resolve, reject) => {
      // A failure on the worker fails the test with the worker's own message, not a timeout with no reason.
      const analyst = new InterimAnalyst(
        (r: { doc: typeof expected }, at: number) => {
          resolve({ kind: r.doc.verdict.kind, at });
          void analyst.close();
        },
        (message: string) => {
          reject(new Error(`the worker failed: ${message}`));
          void analyst.close();
        },
      );
      const { packed, transfer } = packSet(view);
      expect(
        analyst.request(
          { input: { ...input, set: packed }, gates: { metric: "pss", perProcess: false } },
          transfer,
          600,
        ),
      ).toBe(true);
      // In flight on the worker: the caller is free, and a second request is refused until the answer is in.
      expect(analyst.busy).toBe(true);
      expect(
        analyst.request({ input: { ...input, set: packed }, gates: { metric: "pss", perProcess: false } }, [], 601),
      ).toBe(false);
    });
    expect(await answered).toEqual({ kind: expected.verdict.kind, at: 600 });
    expect(expected.verdict.kind).toBe("leak");
  });

  it("works verdicts out in line while each takes less than the hold-up, then on the worker", async () => {
    const { InterimAnalyst, packSet } = await compiled();
    const view = leakingView();
    const job = () => {
      const { packed, transfer } = packSet(view);
      const input = { set: packed, options: {}, target: { pid: 100 } };
      return { job: { input, gates: { metric: "pss" as const, perProcess: false } }, transfer };
    };
    const heard: { kind: string; at: number }[] = [];
    const failures: string[] = [];
    const ask = (analyst: InstanceType<typeof InterimAnalyst>, at: number) => {
      const { job: j, transfer } = job();
      return analyst.request(j, transfer, at);
    };

    // A minute's hold-up: every verdict in line, each heard before its request returns, none left in flight.
    const patient = new InterimAnalyst(
      (r, at) => heard.push({ kind: r.doc.verdict.kind, at }),
      (m) => failures.push(m),
      60_000,
    );
    for (const at of [10, 11, 12]) {
      expect(ask(patient, at)).toBe(true);
      expect(patient.busy).toBe(false);
    }
    expect(heard).toEqual([10, 11, 12].map((at) => ({ kind: "leak", at })));
    await patient.close();

    // A hold-up no verdict can stay under: the first in line, the next on the worker (in flight when asked).
    heard.length = 0;
    let done = () => {};
    const answered = new Promise<void>((resolve) => (done = resolve));
    const hasty = new InterimAnalyst(
      (r, at) => {
        heard.push({ kind: r.doc.verdict.kind, at });
        if (heard.length === 2) done();
      },
      (m) => {
        failures.push(m);
        done();
      },
      0.001,
    );
    expect(ask(hasty, 20)).toBe(true);
    expect(heard).toEqual([{ kind: "leak", at: 20 }]);
    expect(hasty.busy).toBe(false);
    expect(ask(hasty, 21)).toBe(true);
    expect(hasty.busy).toBe(true);
    expect(heard).toHaveLength(1);
    await answered;
    await hasty.close();
    expect(failures).toEqual([]);
    expect(heard).toEqual([
      { kind: "leak", at: 20 },
      { kind: "leak", at: 21 },
    ]);
  });
});
