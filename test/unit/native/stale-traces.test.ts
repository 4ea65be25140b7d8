/** Trace directories a killed memleak left: removed once its pid is gone and nothing in them changed for 10 minutes. */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { removeStaleTraceDirs } from "../../../src/native/stale-traces.js";
import { tempDir } from "../../helpers/temp.js";

describe("removeStaleTraceDirs", () => {
  it("removes a dead memleak's quiet directory, and keeps live, recent and foreign ones", () => {
    const tmp = tempDir("stale-traces");
    const dead = spawnSync("true").pid!; // exited and reaped: a pid nobody has
    const make = (name: string, ageMinutes: number) => {
      const dir = `${tmp}/${name}`;
      mkdirSync(dir);
      writeFileSync(`${dir}/heaptrack.123`, "v 10400 3\n");
      const t = new Date(Date.now() - ageMinutes * 60_000);
      utimesSync(`${dir}/heaptrack.123`, t, t);
      utimesSync(dir, t, t);
      return dir;
    };
    const stale = make(`memleak-native-${dead}-aaaaaa`, 30);
    const recent = make(`memleak-native-${dead}-bbbbbb`, 2);
    const live = make(`memleak-native-${process.pid}-cccccc`, 30);
    const parent = make(`memleak-native-${process.ppid}-dddddd`, 30);
    const other = make(`memleak-agent-${dead}-eeeeee`, 30);
    removeStaleTraceDirs(tmp);
    expect(existsSync(stale)).toBe(false);
    expect([recent, live, parent, other].filter(existsSync)).toEqual([recent, live, parent, other]);
  });
});
