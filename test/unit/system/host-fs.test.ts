/**
 * HostFs reads every file through one shared 64 KiB buffer: the text must be the file's, whatever its size (a full
 * smaps runs to megabytes), with a UTF-8 character cut by the buffer's edge put back together, and the failures
 * named as before. The /proc reads are real: this test process's own files.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
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

  it("a file read while a parser looks at the shared buffer does not overwrite what it is looking at", () => {
    const outer = fileOf("outer", 300);
    const inner = fileOf("inner", 200);
    const r = fs.readWith(outer, (bytes) => {
      const before = bytes.toString("utf8");
      const nested = fs.readWith(inner, (b) => b.toString("utf8"));
      return { before, after: bytes.toString("utf8"), nested };
    });
    expect(r.ok && r.value.after).toBe(readFileSync(outer, "utf8"));
    expect(r.ok && r.value.before).toBe(r.ok && r.value.after);
    expect(r.ok && r.value.nested).toEqual({ ok: true, value: readFileSync(inner, "utf8") });
    // And the next read after both is whole again, through the shared buffer.
    expect(fs.read(inner)).toEqual({ ok: true, text: readFileSync(inner, "utf8") });
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

  it("reads a /proc file of megabytes in a few doublings of one buffer, as the kernel hands it out", async () => {
    // A process with 3,000 mappings (alternate protections keep the kernel from merging them): its smaps runs to
    // megabytes, like a PyTorch process's, and its mappings do not change while the process sleeps.
    const script =
      "import mmap, sys, time\nm = [mmap.mmap(-1, 4096, prot=mmap.PROT_READ if i % 2 else mmap.PROT_READ | mmap.PROT_WRITE) for i in range(3000)]\nprint('ready', flush=True)\ntime.sleep(60)";
    const mapper = spawn("python3", ["-c", script], { stdio: ["ignore", "pipe", "ignore"] });
    try {
      await new Promise((resolve) => mapper.stdout.once("data", resolve));
      const path = `/proc/${mapper.pid}/smaps`;
      const allocations = vi.spyOn(Buffer, "allocUnsafe");
      const r = fs.read(path);
      // One buffer that doubles (64 KiB → 4 MiB: 6 allocations), not a fresh 256 KiB chunk for each read the kernel
      // answers (hundreds here: hundreds of MB of garbage for a torch process's smaps).
      expect(allocations.mock.calls.length).toBeLessThanOrEqual(8);
      allocations.mockRestore();
      expect(r.ok && r.text.length).toBeGreaterThan(2 * 2 ** 20);
      // Line for line what a plain read gives: the same mappings, each with the same fields in the same order. The
      // figures are left out: Pss and the shared/private split of a library's pages change whenever another process
      // maps or drops the same library, between the two reads (seen on a loaded machine).
      const shape = (text: string) =>
        text
          .split("\n")
          .map((l) => (/^[0-9a-f]+-[0-9a-f]+ /.test(l) ? l : l.split(":")[0]))
          .join("\n");
      expect(r.ok && shape(r.text)).toBe(shape(readFileSync(path, "utf8")));
    } finally {
      mapper.kill("SIGKILL");
    }
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
