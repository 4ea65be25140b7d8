import { describe, expect, it } from "vitest";
import { Wakeup } from "../../../src/session/wakeup.js";

describe("Wakeup", () => {
  it("keeps the first stop reason and tells its listeners once", () => {
    const w = new Wakeup();
    const told: string[] = [];
    w.onStop((r) => told.push(r));
    w.stop("gate-failed");
    w.stop("exited");
    expect(w.stopped).toBe("gate-failed");
    expect(told).toEqual(["gate-failed"]);
  });

  it("a sleep ends early when stopped, and does not start once stopped", async () => {
    const w = new Wakeup();
    const started = Date.now();
    const sleeping = w.sleep(10_000);
    setTimeout(() => w.stop("interrupted"), 10);
    await sleeping;
    await w.sleep(10_000);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
