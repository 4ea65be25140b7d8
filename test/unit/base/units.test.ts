import { describe, expect, it } from "vitest";
import { formatBytes, formatDuration, parseDuration, parseSize } from "../../../src/base/units.js";

describe("sizes", () => {
  it.each([
    ["50MiB", 50 * 2 ** 20],
    ["1.5GB", 1.5e9],
    ["1.5 GiB", 1.5 * 2 ** 30],
    ["512k", 512 * 1024],
    ["100B", 100],
    ["0", 0],
    ["2Gi", 2 * 2 ** 30],
  ])("%s = %d bytes", (text, bytes) => {
    expect(parseSize(text)).toEqual({ ok: true, value: { kind: "bytes", bytes } });
  });

  it.each(["50", "1.5", " 100 "])("%j, a number without a unit, is refused with the fix", (text) => {
    const n = text.trim();
    expect(parseSize(text)).toEqual({
      ok: false,
      message: `"${n}" has no unit: did you mean ${n}MiB? (${n}B for bytes)`,
    });
  });

  it("10% is a percentage", () => {
    expect(parseSize("10%")).toEqual({ ok: true, value: { kind: "percent", percent: 10 } });
  });

  it.each(["50MX", "", "MB", "-5MB", "1e3MB", "5 M B", "1.2.3G"])("%j is refused with a message", (text) => {
    const r = parseSize(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toContain("is not a size");
  });

  it.each([
    [0, "0 B"],
    [1536, "1.50 KiB"],
    [50 * 2 ** 20, "50.0 MiB"],
    [-3 * 2 ** 30, "-3.00 GiB"],
    [undefined, "–"],
    // Never four digits: 1000-1023 of a unit is the next unit's
    [1021 * 1024, "1.00 MiB"],
    [1000 * 1024, "0.98 MiB"],
    [999 * 1024, "999 KiB"],
    [1023, "1.00 KiB"],
    [1023.9 * 2 ** 20, "1.00 GiB"],
  ])("formats %s as %s", (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});

describe("durations", () => {
  it.each([
    ["30s", 30],
    ["10m", 600],
    ["1h30m", 5400],
    ["500ms", 0.5],
    ["45", 45],
    ["2d", 172800],
  ])("%s = %d s", (text, seconds) => {
    expect(parseDuration(text)).toEqual({ ok: true, value: seconds });
  });

  it.each(["10x", "m", "", "1h 30m", "-5s", "5s10"])("%j is refused", (text) => {
    expect(parseDuration(text).ok).toBe(false);
  });

  it("formats", () => {
    expect(formatDuration(0.25)).toBe("250ms");
    expect(formatDuration(42)).toBe("42s");
    expect(formatDuration(125)).toBe("2m05s");
    expect(formatDuration(3 * 3600 + 120)).toBe("3h02m");
  });

  it.each([
    [299.6, "5m00s"],
    [59.97, "1m00s"],
    [0.9996, "1s"],
    [3599.6, "1h00m"],
    [119.4, "1m59s"],
  ])("rounds %d s to whole units, never to 60 of one: %s", (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
  });
});
