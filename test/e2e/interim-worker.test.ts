/**
 * The compiled interim analyst (dist/, as the CLI runs it) works verdicts out on a real worker thread: the request
 * returns at once, the verdict comes back later, and it is the verdict the main thread would have worked out.
 */
import { describe, expect, it } from "vitest";
import { classify } from "../../src/report/verdict.js";
import { interimView, SeriesBuilder } from "../../src/series/series.js";
import { MB, synthesize } from "../helpers/synthetic-samples.js";

describe("interim verdicts on a worker thread", () => {
  it("answers asynchronously, with the same verdict as in line", async () => {
    // The compiled files (the worker thread runs dist/'s worker), typed as their sources (dist/ has no declarations).
    const { InterimAnalyst } = (await import(
      "../../dist/session/interim/analyst.js" as string
    )) as typeof import("../../src/session/interim/analyst.js");
    const { packSet } = (await import(
      "../../dist/series/packed-set.js" as string
    )) as typeof import("../../src/series/packed-set.js");
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
    const view = interimView(b.set);
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
});
