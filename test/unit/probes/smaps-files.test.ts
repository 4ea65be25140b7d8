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
    expect(files.find((f) => f.path.includes("model"))).toEqual({ path: "/var/tmp/memleak-capture/model weights.bin", rss: 4096 * KiB });
    for (let i = 1; i < files.length; i++) expect(files[i - 1]!.rss).toBeGreaterThanOrEqual(files[i]!.rss);
    // libpython is mapped five times (r--p, r-xp, r--p, r--p, rw-p): one entry, its pages summed.
    expect(files.filter((f) => f.path.endsWith("libpython3.11.so.1.0"))).toHaveLength(1);
  });

  it("marks a file deleted while mapped, without the suffix in its path", () => {
    expect(files.find((f) => f.path.endsWith("scratch.bin"))).toEqual({ path: "/var/tmp/memleak-capture/scratch.bin", rss: 2048 * KiB, deleted: true });
  });

  it("leaves out anonymous mappings ([heap], [stack], unnamed) and files with nothing resident", () => {
    expect(files.every((f) => f.path.startsWith("/") && f.rss > 0)).toBe(true);
    expect(files.some((f) => f.path.includes("["))).toBe(false);
  });

  it("keeps the `top` largest", () => {
    // libpython3.11 (5,232 KiB resident over its five mappings), then the model file.
    expect(value(parseMappedFiles(fixture("hybrid/smaps.mapped-file"), 2)).map((f) => f.rss)).toEqual([5232 * KiB, 4096 * KiB]);
  });

  it("an empty file (a zombie, a kernel thread) is no files; text with no mapping header is an error", () => {
    expect(value(parseMappedFiles(""))).toEqual([]);
    expect(parseMappedFiles("Rss: 4 kB\nPss: 4 kB\n")).toMatchObject({ ok: false, source: "/proc/PID/smaps" });
  });
});
