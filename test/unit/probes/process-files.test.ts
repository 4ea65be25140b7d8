import { describe, expect, it } from "vitest";
import { parseStat } from "../../../src/probes/stat.js";
import { parseStatus } from "../../../src/probes/status.js";
import { parseSmapsRollup } from "../../../src/probes/smaps-rollup.js";
import { fixture, value } from "../../helpers/fixtures.js";

const KiB = 1024;

describe("/proc/PID/stat", () => {
  it("reads a comm holding ')' and spaces up to the LAST ')'", () => {
    const st = value(parseStat(fixture("hybrid/stat.paren-in-comm")));
    expect(st).toMatchObject({ pid: 6092, comm: "a) b (x", state: "S", ppid: 6090, numThreads: 1, starttime: 39477 });
    expect(st.rssPages).toBe(3413);
  });

  it.each([
    ["hybrid/stat.kthread", { pid: 2, comm: "kthreadd", ppid: 0 }],
    ["hybrid/stat.zombie", { state: "Z" }],
    ["hybrid/stat.torch", { comm: "python3" }],
    ["trees/hybrid-v1/proc/5974/stat", { pid: 5974, ppid: 5932, comm: "python3" }],
  ])("%s", (file, expected) => {
    expect(value(parseStat(fixture(file)))).toMatchObject(expected);
  });

  it.each([
    ["", "no (comm)"],
    ["12 (x) S 1 2", "fields"],
    ["abc (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 1 1", "pid"],
  ])("rejects %j with a typed error", (text, message) => {
    const r = parseStat(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toContain(message);
  });
});

describe("/proc/PID/status", () => {
  it("reads the memory lines of a PyTorch process in bytes; VmRSS = RssAnon + RssFile + RssShmem", () => {
    const s = value(parseStatus(fixture("hybrid/status.torch")));
    expect(s.rssAnon).toBe(119212 * KiB);
    expect(s.rssFile).toBe(116532 * KiB);
    expect(s.rssShmem).toBe(0);
    expect(s.vmRss).toBe(s.rssAnon! + s.rssFile! + s.rssShmem!);
    expect(s.vmHwm).toBeGreaterThanOrEqual(s.vmRss!);
    expect(s.uids).toEqual([0, 0, 0, 0]);
  });

  it("leaves memory lines missing (not 0) for a kernel thread and a zombie", () => {
    for (const file of ["hybrid/status.kthread", "hybrid/status.zombie"]) {
      const s = value(parseStatus(fixture(file)));
      expect(s.vmRss).toBeUndefined();
      expect(s.rssAnon).toBeUndefined();
      expect(s.threads).toBe(1);
    }
  });

  it("reads a name with ')' and spaces", () => {
    expect(value(parseStatus(fixture("hybrid/status.paren-in-comm"))).name).toBe("a) b (x");
  });

  it("rejects text that is not a status file", () => {
    expect(parseStatus("hello\nworld").ok).toBe(false);
  });
});

describe("/proc/PID/smaps_rollup", () => {
  it("reads every field of a 6.18 kernel and derives USS = Private_Clean + Private_Dirty + Private_Hugetlb", () => {
    const r = value(parseSmapsRollup(fixture("hybrid/smaps_rollup.torch")));
    expect(r.rss).toBe(235744 * KiB);
    expect(r.pss).toBe(233715 * KiB);
    expect(r.pssAnon).toBe(119212 * KiB);
    expect(r.pssFile).toBe(114503 * KiB);
    expect(r.pssDirty).toBe(119212 * KiB);
    expect(r.uss).toBe((113820 + 119212) * KiB);
    expect(r.anonymous).toBe(119212 * KiB);
  });

  it("an empty file (kernel thread, zombie) is an error, not zeros", () => {
    expect(parseSmapsRollup("").ok).toBe(false);
  });

  it("shared pages of forked children show as Shared_*, private ones as USS", () => {
    const r = value(parseSmapsRollup(fixture("trees/hybrid-v1/proc/5974/smaps_rollup")));
    expect(r.uss!).toBeLessThan(r.rss);
    expect(r.pss).toBeGreaterThan(r.uss!);
    expect(r.pss).toBeLessThan(r.rss);
  });
});
