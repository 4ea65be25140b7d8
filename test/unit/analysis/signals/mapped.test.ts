/**
 * Which mapped files a finding names (signals/mapped.ts): the largest first, and only those at least an eighth of the
 * largest, so a 400 MB model is not listed beside a few MB of libpython, while a second shard of it is.
 */
import { describe, expect, it } from "vitest";
import { mappedFilesText } from "../../../../src/analysis/signals/mapped.js";
import type { ProcessSeries } from "../../../../src/series/series.js";
import type { MappedFile } from "../../../../src/probes/smaps-files.js";
import { alone, fill, flat, judge, linear, MB, processFinding } from "./judge.js";

const mapping = (...files: MappedFile[]) =>
  ({ files: new Map(files.map((f) => [f.path, f])) }) as unknown as ProcessSeries;

describe("the mapped files a finding names", () => {
  it("keeps files of at least an eighth of the largest (60 MB of 400 MB: 0.15), leaves out smaller (30 MB: 0.075)", () => {
    const text = mappedFilesText([
      mapping(
        { path: "/m/shard-1.bin", rss: 400 * MB },
        { path: "/m/shard-2.bin", rss: 60 * MB },
        { path: "/usr/lib/libtorch_cpu.so", rss: 30 * MB },
      ),
    ]);
    expect(text).toBe("/m/shard-1.bin (400 MiB resident), /m/shard-2.bin (60.0 MiB resident)");
  });

  it("takes each file's largest residence over the processes, says deleted files are, and keeps three at most", () => {
    const text = mappedFilesText([
      mapping({ path: "/d/a", rss: 100 * MB }, { path: "/d/b", rss: 90 * MB, deleted: true }),
      mapping({ path: "/d/a", rss: 120 * MB }, { path: "/d/c", rss: 80 * MB }, { path: "/d/d", rss: 70 * MB }),
    ]);
    expect(text).toBe("/d/a (120 MiB resident), /d/b (deleted) (90.0 MiB resident), /d/c (80.0 MiB resident)");
  });

  it("names nothing when no files were read", () => {
    expect(mappedFilesText([mapping()])).toBeUndefined();
  });

  it("sorts by size whatever order the files were read in, and keeps a file's larger residence when read first", () => {
    const text = mappedFilesText([
      mapping({ path: "/d/small", rss: 60 * MB }, { path: "/d/big", rss: 300 * MB }),
      mapping({ path: "/d/big", rss: 200 * MB }, { path: "/d/mid", rss: 100 * MB }),
    ]);
    expect(text).toBe("/d/big (300 MiB resident), /d/mid (100 MiB resident), /d/small (60.0 MiB resident)");
  });

  it("an eighth of the largest exactly is kept", () => {
    expect(mappedFilesText([mapping({ path: "/a", rss: 400 * MB }, { path: "/b", rss: 50 * MB })])).toBe(
      "/a (400 MiB resident), /b (50.0 MiB resident)",
    );
  });
});

describe("a process's growing file pages beside its finding", () => {
  // 300 s of a process whose anon is `anon` and whose resident file pages are `file`
  const finding = (anon: ReturnType<typeof flat>, file: ReturnType<typeof flat>, warmup = 0) =>
    processFinding(judge(alone({ anon, file }), { warmup }), 100);

  it("a stable process: in the summary, and the growth in the evidence", () => {
    const f = finding(flat(100 * MB), linear(30 * MB, 0.5 * MB, 0.1 * MB));
    expect(f.kind).toBe("stable");
    expect(f.summary).toMatch(/; resident file pages grew 1[34]\d MiB: page cache the kernel can drop/);
    expect(Number(f.evidence.fileBackedGrowth) / MB).toBeGreaterThan(130);
    expect(Number(f.evidence.fileBackedGrowth) / MB).toBeLessThan(150);
    expect(Number.isInteger(f.evidence.fileBackedGrowth)).toBe(true);
    expect(f.caveats.join(" ")).not.toMatch(/resident file pages/);
  });

  it("a plateau: in the summary too", () => {
    const f = finding(fill(100 * MB, 40 * MB, 100), linear(30 * MB, 0.5 * MB, 0.1 * MB));
    expect(f.kind).toBe("plateau");
    expect(f.summary).toMatch(/resident file pages grew/);
  });

  it("a leak: as a caveat, its summary left as it is", () => {
    const f = finding(linear(100 * MB, 0.5 * MB), linear(30 * MB, 0.5 * MB, 0.1 * MB));
    expect(f.kind).toBe("leak");
    expect(f.summary).not.toMatch(/resident file pages/);
    expect(f.caveats.join(" ")).toMatch(/resident file pages grew 1[34]\d MiB/);
  });

  it("nothing under 16 MiB (12 MiB here), nor for growth that was over by the end of the warm-up", () => {
    const small = finding(flat(100 * MB), linear(30 * MB, 0.04 * MB, 0.01 * MB));
    expect(small.evidence.fileBackedGrowth).toBeUndefined();
    expect(small.summary).not.toMatch(/file pages/);
    // 100 MiB paged in over the first 20 s, then flat; warm-up 30 s
    const early = finding(flat(100 * MB), fill(30 * MB, 100 * MB, 20, 0.01 * MB), 30);
    expect(early.evidence.fileBackedGrowth).toBeUndefined();
    expect(finding(flat(100 * MB), fill(30 * MB, 100 * MB, 20, 0.01 * MB), 0).evidence.fileBackedGrowth).toBeDefined();
  });
});
