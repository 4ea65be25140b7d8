/**
 * /proc/PID/smaps per mapping (src/probes/smaps-files.ts), on a capture of a Python process that mapped an 8 MiB
 * file and read half of it, and mapped a 2 MiB scratch file it then deleted (fixtures/README.md).
 */
import { describe, expect, it } from "vitest";
import { parseMappedFiles } from "../../../src/probes/smaps-files.js";
import { fixture, value } from "../../helpers/fixtures.js";

const KiB = 1024;

describe("/proc/PID/smaps: resident size per mapped file", () => {
  const files = value(parseMappedFiles(fixture("hybrid/smaps.mapped-file"), 50));

  it("sums each file's mappings, largest first, keeping spaces in the path", () => {
    expect(files.find((f) => f.path.includes("model"))).toEqual({
      path: "/var/tmp/memleak-capture/model weights.bin",
      rss: 4096 * KiB,
    });
    for (let i = 1; i < files.length; i++) expect(files[i - 1]!.rss).toBeGreaterThanOrEqual(files[i]!.rss);
    // libpython is mapped five times (r--p, r-xp, r--p, r--p, rw-p): one entry, its pages summed.
    expect(files.filter((f) => f.path.endsWith("libpython3.11.so.1.0"))).toHaveLength(1);
  });

  it("marks a file deleted while mapped, without the suffix in its path", () => {
    expect(files.find((f) => f.path.endsWith("scratch.bin"))).toEqual({
      path: "/var/tmp/memleak-capture/scratch.bin",
      rss: 2048 * KiB,
      deleted: true,
    });
  });

  it("leaves out anonymous mappings ([heap], [stack], unnamed) and files with nothing resident", () => {
    expect(files.every((f) => f.path.startsWith("/") && f.rss > 0)).toBe(true);
    expect(files.some((f) => f.path.includes("["))).toBe(false);
  });

  it("keeps the `top` largest", () => {
    // The model file, then libpython3.11: 5,232 KiB resident over its five mappings, of which 1,316 KiB are its data
    // pages the process wrote to (Anonymous: copies, not page cache).
    expect(value(parseMappedFiles(fixture("hybrid/smaps.mapped-file"), 2)).map((f) => f.rss)).toEqual([
      4096 * KiB,
      3916 * KiB,
    ]);
  });

  it("leaves out shmem (tmpfs, memfd, SysV): not page cache the kernel can drop", () => {
    const mapping = (path: string, kib: number) =>
      `7f0000000000-7f0000100000 rw-s 00000000 00:1a 42                         ${path}\nRss:            ${kib} kB\nAnonymous:             0 kB\n`;
    const text = [
      mapping("/dev/shm/torch_123_456", 9000),
      mapping("/memfd:pytorch (deleted)", 8000),
      mapping("/SYSV00000000 (deleted)", 7000),
      mapping("/data/train.npy", 100),
    ].join("");
    expect(value(parseMappedFiles(text))).toEqual([{ path: "/data/train.npy", rss: 100 * KiB }]);
  });

  it("an empty file (a zombie, a kernel thread) is no files; text with no mapping header is an error", () => {
    expect(value(parseMappedFiles(""))).toEqual([]);
    expect(parseMappedFiles("Rss: 4 kB\nPss: 4 kB\n")).toMatchObject({ ok: false, source: "/proc/PID/smaps" });
  });
});
