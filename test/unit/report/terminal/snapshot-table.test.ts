/**
 * The snapshot's process table fits the terminal: at 80 columns (and in a log, where the width is unknown) no line is
 * wider, numbers are right-aligned, and the columns left out are named; at 160 every column is there.
 */
import { describe, expect, it } from "vitest";
import { renderCgroup, renderProcessTable } from "../../../../src/report/terminal/snapshot-table.js";
import type { Snapshot, SnapshotProcess } from "../../../../src/sampling/snapshot.js";

const MiB = 2 ** 20;
const proc = (pid: number, ppid: number, argv: string[]): SnapshotProcess => ({
  pid,
  ppid,
  starttime: pid,
  comm: "python3",
  cmdline: argv,
  rss: 128.4 * MiB,
  pss: 62.4 * MiB,
  uss: 29.7 * MiB,
  anon: 122 * MiB,
  file: 6.55 * MiB,
  shmem: 0,
  swap: 0,
  threads: 12,
});
const snap: Snapshot = {
  schema: "memleak.snapshot/1",
  t: 0,
  targetPid: 9983,
  platform: "linux",
  warnings: [],
  processes: [
    proc(9983, 1, ["python3", "train.py", "--epochs", "10"]),
    proc(10025, 9983, ["python3", "-m", "torch.utils.data.worker"]),
    proc(10026, 9983, ["python3", "-m", "torch.utils.data.worker"]),
  ],
  totals: {
    rss: 385 * MiB,
    pss: 187 * MiB,
    uss: 89 * MiB,
    anon: 366 * MiB,
    file: 19.6 * MiB,
    shmem: 0,
    swap: 0,
    threads: 36,
  },
  cgroup: { error: "none" },
};
const width = (line: string) => [...line].length;

describe("the snapshot's process table", () => {
  it.each([80, 100])("fits %d columns, says what it left out, right-aligns the numbers", (columns) => {
    const lines = renderProcessTable(snap, false, columns).split("\n");
    expect(Math.max(...lines.map(width))).toBeLessThanOrEqual(columns);
    const head = lines[1]!;
    expect(head).toMatch(/│\s+PID │ command\s+│\s+RSS │/);
    expect(lines.find((l) => l.includes("10025"))).toMatch(/│ +122 MiB │/);
    if (!head.includes("swap"))
      expect(lines.at(-1)).toMatch(/^swap.* not shown at \d+ columns \(--json has every field\)$/);
  });

  it("has every column when there is room", () => {
    const out = renderProcessTable(snap, false, 160);
    for (const h of ["PID", "command", "RSS", "PSS", "USS", "anon", "file", "shmem", "swap", "thr"])
      expect(out).toContain(` ${h} `);
    expect(out).toContain("total (3 processes)");
    expect(out).not.toContain("not shown");
  });
});

describe("the snapshot's cgroup title", () => {
  const withCgroup = (path: string): Snapshot => ({
    ...snap,
    cgroup: {
      location: { version: 1, path, dir: `/sys/fs/cgroup/memory${path}` },
      reading: { usage: 370 * MiB, workingSet: 276 * MiB, limit: null, peak: 1600 * MiB, oomKills: 0, stat: {} },
    } as unknown as Snapshot["cgroup"],
  });
  it("a long path: the directory on a line of its own, no line past 79 columns at 80", () => {
    const path = "/process_api/2c952b984877f889993fb8e825cc050f";
    const lines = renderCgroup(withCgroup(path), false, 80).split("\n");
    expect(lines.slice(0, 2)).toEqual([`cgroup v1 ${path}`, `  (/sys/fs/cgroup/memory${path})`]);
    expect(Math.max(...lines.map(width))).toBeLessThanOrEqual(79);
  });
  it("a short path: path and directory on one line", () => {
    expect(renderCgroup(withCgroup("/job"), false, 80).split("\n")[0]).toBe(
      "cgroup v1 /job  (/sys/fs/cgroup/memory/job)",
    );
  });
});
