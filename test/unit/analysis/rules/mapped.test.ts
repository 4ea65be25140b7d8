/**
 * Which mapped files a finding names (signals/mapped.ts): the largest first, and only those at least an eighth of the
 * largest, so a 400 MB model is not listed beside a few MB of libpython, while a second shard of it is.
 */
import { describe, expect, it } from "vitest";
import { mappedFilesText } from "../../../../src/analysis/signals/mapped.js";
import type { ProcessSeries } from "../../../../src/series/series.js";
import type { MappedFile } from "../../../../src/probes/smaps-files.js";
import { MB } from "./judge.js";

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
});
