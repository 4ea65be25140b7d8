/**
 * HostFs reads every file through one shared 64 KiB buffer: the text must be the file's, whatever its size (a full
 * smaps runs to megabytes), with a UTF-8 character cut by the buffer's edge put back together, and the failures
 * named as before. The /proc reads are real: this test process's own files.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HostFs } from "../../../src/system/host-fs.js";
import { tempDir } from "../../helpers/temp.js";

const fs = new HostFs();
const dir = tempDir("host-fs");

/** A file of exactly `bytes` bytes whose UTF-8 characters ("é", two bytes) straddle the 64 KiB edges. */
function fileOf(name: string, bytes: number): string {
  const path = join(dir, name);
  const text = "a" + "é".repeat(Math.floor((bytes - 1) / 2)) + ((bytes - 1) % 2 ? "b" : "");
  writeFileSync(path, text);
  expect(Buffer.byteLength(text)).toBe(bytes);
  return path;
}

describe("HostFs.read through the shared buffer", () => {
  it.each([
    ["of one byte", 1],
    ["just under the buffer", 64 * 1024 - 1],
    ["exactly the buffer", 64 * 1024],
    ["one past the buffer (a character cut at its edge)", 64 * 1024 + 1],
    ["several chunks", 3 * 256 * 1024 + 11],
  ])("a file %s reads back whole", (_, bytes) => {
    const path = fileOf(`f${bytes}`, bytes);
    const r = fs.read(path);
    expect(r).toEqual({ ok: true, text: readFileSync(path, "utf8") });
    if (r.ok) expect(r.text).not.toContain("\uFFFD");
  });

  it("a short read after a long one gives only the short file (the buffer is not leaked into it)", () => {
    fs.read(fileOf("long", 64 * 1024 + 1));
    const short = join(dir, "short");
    writeFileSync(short, "xyz");
    expect(fs.read(short)).toEqual({ ok: true, text: "xyz" });
  });

  it("reads the kernel's own files, whose size stat reports as 0", () => {
    const r = fs.read(`/proc/${process.pid}/status`);
    expect(r.ok && r.text).toMatch(new RegExp(`^Name:.*\\n[\\s\\S]*\\nPid:\\s+${process.pid}\\n`));
    const stat = fs.read(`/proc/${process.pid}/stat`);
    expect(stat.ok && stat.text.startsWith(`${process.pid} (`)).toBe(true);
  });

  it("reads a /proc file bigger than the buffer, which the kernel hands out a page per read", () => {
    // This test process's own smaps: hundreds of mappings, well over 64 KiB.
    const path = `/proc/${process.pid}/smaps`;
    const r = fs.read(path);
    expect(r.ok && r.text.length).toBeGreaterThan(64 * 1024);
    const again = readFileSync(path, "utf8");
    // The process maps and unmaps as it runs: the two reads agree on the mappings they list, in order.
    const heads = (t: string) => t.split("\n").filter((l) => /^[0-9a-f]+-[0-9a-f]+ /.test(l)).slice(0, 50);
    expect(r.ok && heads(r.text)).toEqual(heads(again));
  });

  it("names the failures: gone is missing, a directory is an error", () => {
    expect(fs.read(join(dir, "absent"))).toMatchObject({ ok: false, reason: "missing" });
    expect(fs.read("/proc/999999999/status")).toMatchObject({ ok: false, reason: "missing" });
    const sub = join(dir, "sub");
    mkdirSync(sub);
    expect(fs.read(sub)).toMatchObject({ ok: false, reason: "error" });
    expect(fs.readOptional(sub)).toBeUndefined();
  });
});
