import { describe, expect, it } from "vitest";
import { SeriesBuilder } from "../../../src/series/series.js";
import { liveNames, PROGRESS_EVERY_S, SessionPresenter, type SessionView } from "../../../src/session/presenter.js";
import { LiveRegion } from "../../../src/report/live/region.js";
import { displayWidth } from "../../../src/report/text-width.js";
import type { Sample } from "../../../src/system/sample.js";
import type { SamplerTotals } from "../../../src/sampling/sampler.js";
import { fakeIO } from "../../helpers/command-io.js";
import { MB, synthesize } from "../../helpers/synthetic-samples.js";

const samples = synthesize({
  seconds: 5,
  processes: [{ pid: 100, ppid: 1, anon: { shape: { kind: "linear", bytesPerSecond: MB } } }],
});
const builder = new SeriesBuilder();
for (const s of samples) builder.add(s);
const latest = samples[samples.length - 1]!;
const seen: SamplerTotals["seen"] = new Map();

function viewCounter() {
  let calls = 0;
  const view = (): SessionView => {
    calls++;
    return { set: builder.set, latest, soFar: undefined, commands: liveNames(latest, seen), pssAge: undefined };
  };
  return { view, calls: () => calls };
}

describe("SessionPresenter in a log (no live view)", () => {
  it(`prints a progress line every ${PROGRESS_EVERY_S} s, and builds the view only then`, () => {
    const io = fakeIO();
    const p = new SessionPresenter(io, undefined, { mode: "run", rootPid: 100, command: ["python3", "train.py"] });
    const { view, calls } = viewCounter();
    for (const t of [0, 1, 9.9, 10, 12, 19.9, 20.5, 25]) p.tick(t, view);
    expect(io.err).toHaveLength(2);
    expect(calls()).toBe(2);
    expect(io.err[0]).toMatch(/^memleak: 10s, /);
    expect(io.err[1]).toMatch(/^memleak: 20.5s, /);
    expect(io.err.every((l) => l.endsWith("\n") && l.split("\n").length === 2)).toBe(true);
  });

  it("says lines on stderr, and each unreadable PID's warning once", () => {
    const io = fakeIO();
    const p = new SessionPresenter(io, undefined, { mode: "watch", rootPid: 100 });
    p.say("memleak: hello\n");
    p.sayDenied([]);
    p.sayDenied([5, 6]);
    p.sayDenied([5, 6]);
    p.sayDenied([5, 6, 7]);
    expect(io.err[0]).toBe("memleak: hello\n");
    expect(io.err.slice(1).map((l) => l.match(/for PID ([\d, ]+):/)?.[1])).toEqual(["5, 6", "7"]);
  });
});

describe("SessionPresenter on a terminal (live view)", () => {
  it("redraws every tick, and says lines above the view", () => {
    const io = fakeIO({ isTTY: true, columns: 100 });
    const region = new LiveRegion(io);
    const p = new SessionPresenter(io, region, { mode: "watch", rootPid: 100 });
    const { view, calls } = viewCounter();
    p.tick(0, view);
    p.tick(0.5, view);
    expect(calls()).toBe(2);
    const drawn = io.err.length;
    p.say("memleak: above\n");
    expect(io.err.slice(drawn).join("")).toContain("memleak: above\n");
    expect(io.err.join("")).toContain("PID 100");
    p.clear();
  });
});

describe("SessionPresenter draws for the region's width", () => {
  it("a terminal that does not say its width: drawn for 80 columns, the width the region cuts at, so nothing wraps", () => {
    const io = fakeIO({ isTTY: true, columns: undefined, color: true });
    const p = new SessionPresenter(io, new LiveRegion(io), {
      mode: "run",
      rootPid: 100,
      command: ["python3", "a-command-line-long-enough-to-reach-the-edge.py", "--with", "options"],
    });
    p.tick(5, viewCounter().view);
    const lines = io.err
      .join("")
      .replace(/\x1b\[\?2026[hl]/g, "")
      .split("\n")
      .filter((l) => l !== "");
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines) expect(displayWidth(line), line).toBeLessThan(80);
  });
});

describe("liveNames", () => {
  it("names each process of the sample by its command line as first seen, or its comm", () => {
    const s = {
      t: 0,
      processes: [
        { pid: 1, ppid: 0, starttime: 10, comm: "python3" },
        { pid: 2, ppid: 1, starttime: 20, comm: "pt_worker" },
      ],
    } as Sample;
    const known: SamplerTotals["seen"] = new Map([
      ["1:10", { pid: 1, ppid: 0, comm: "python3", cmdline: ["/usr/bin/python3", "train.py"], firstSeen: 0 }],
    ]);
    const names = liveNames(s, known);
    expect(names.get(1)).toMatch(/python3 train\.py/);
    expect(names.get(2)).toBe("pt_worker");
  });
});
