/** Finding the clock lines of an interpreted heaptrack trace (fixtures/heaptrack/trace.c-extension.interpreted) and the cut. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { chooseCut, clockMarksIn, cutAt, readClock } from "../../../src/native/trace-clock.js";
import { FIXTURES } from "../../helpers/fixtures.js";

const FILE = `${FIXTURES}heaptrack/trace.c-extension.interpreted`;

describe("readClock", () => {
  it("finds every clock line, in order, at its byte offset", () => {
    const text = readFileSync(FILE, "latin1");
    const marks = readClock(FILE);
    expect(marks).toHaveLength(text.split("\n").filter((l) => l.startsWith("c ")).length);
    expect(marks[0]!.ms).toBe(0xb);
    expect(marks[marks.length - 1]!.ms).toBe(0x200);
    for (const m of marks) expect(text.slice(m.offset, m.offset + 2)).toBe("c ");
    expect(marks.every((m, i) => i === 0 || m.ms >= marks[i - 1]!.ms)).toBe(true);
  });

  it("reads a chunk that starts inside a line from its next line, and leaves out a clock line without its newline", () => {
    const buf = Buffer.from("t 1 2\nc 1f\n+ 3\nc 2");
    expect(clockMarksIn(buf, 100, true).marks).toEqual([{ offset: 106, ms: 0x1f }]);
    expect(clockMarksIn(buf.subarray(2), 102, false).marks).toEqual([{ offset: 106, ms: 0x1f }]);
    expect(clockMarksIn(buf.subarray(7), 107, false).marks).toEqual([]);
  });
});

describe("chooseCut", () => {
  const marks = [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100].map((ms) => ({ offset: ms * 3, ms }));
  it("cuts at the end of warm-up, but after a fifth and before half of the process's traced life", () => {
    expect(chooseCut(marks, 30)).toEqual({ offset: 90, ms: 30 });
    expect(chooseCut(marks, 0)).toEqual({ offset: 60, ms: 20 });
    expect(chooseCut(marks, 5000)).toEqual({ offset: 150, ms: 50 });
    expect(chooseCut(marks, 33)).toEqual({ offset: 120, ms: 40 });
  });
  it("has no cut for a trace without a clock line", () => {
    expect(chooseCut([], 10)).toBeUndefined();
    expect(cutAt([], 0.75)).toBeUndefined();
  });
  it("cuts late at the first clock line at or past a fraction of the life", () => {
    expect(cutAt(marks, 0.75)).toEqual({ offset: 240, ms: 80 });
    expect(cutAt(marks, 0.9)).toEqual({ offset: 270, ms: 90 });
  });
});
