/**
 * The files the time to the limit reads: the cgroup's limits (v1 memory.limit_in_bytes, v2 memory.max and
 * memory.high) and the machine's /proc/meminfo, on captures (fixtures/README.md, SOURCES-v2.md say where from).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseLimitFile } from "../../../src/probes/cgroup-files.js";
import { parseMeminfo } from "../../../src/probes/meminfo.js";
import { readCgroup } from "../../../src/system/read-cgroup.js";
import { readMachineMemory } from "../../../src/system/read-machine-memory.js";
import { HostFs } from "../../../src/system/host-fs.js";
import { FIXTURES, fixture, value } from "../../helpers/fixtures.js";

describe("cgroup limits", () => {
  it("v1 memory.limit_in_bytes set to 300 MiB (the e2e test's limit, captured on the dev machine)", () => {
    expect(value(parseLimitFile(fixture("hybrid/memory.limit_in_bytes.300MiB"), "memory.limit_in_bytes"))).toBe(
      300 * 2 ** 20,
    );
  });

  it("v1 unlimited is no limit", () => {
    expect(value(parseLimitFile(fixture("hybrid/memory.limit_in_bytes"), "memory.limit_in_bytes"))).toBeNull();
  });

  it("v2 memory.high unset reads 'max': no limit (DataDog's capture); set, it is written as memory.max is", () => {
    expect(value(parseLimitFile(fixture("v2/memory.high"), "memory.high"))).toBeNull();
    // The kernel prints memory.high and memory.max with one function (mm/memcontrol.c seq_puts_memcg_tunable).
    expect(value(parseLimitFile(fixture("v2/memory.max.limited"), "memory.high"))).toBe(103079215104);
  });

  it("readCgroup reads memory.high on v2 only", () => {
    const fs = new HostFs(`${FIXTURES}trees/v2-container`);
    const v2 = readCgroup(fs, { version: 2, path: "/", dir: "/sys/fs/cgroup" });
    // The container capture has no memory.high: absent, not "no limit".
    expect("high" in v2).toBe(false);
    const v1 = readCgroup(new HostFs(`${FIXTURES}trees/v2-container`), {
      version: 1,
      path: "/",
      dir: "/sys/fs/cgroup",
    });
    expect("high" in v1).toBe(false);
    // A cgroup with memory.high set (the limited capture's value, written where a v2 cgroup keeps it).
    const root = mkdtempSync(join(tmpdir(), "memleak-high-"));
    try {
      mkdirSync(join(root, "cg"));
      writeFileSync(join(root, "cg/memory.high"), fixture("v2/memory.max.limited"));
      writeFileSync(join(root, "cg/memory.max"), fixture("v2/memory.max"));
      const set = readCgroup(new HostFs(root), { version: 2, path: "/cg", dir: "/cg" });
      expect(set.high).toBe(103079215104);
      expect(set.limit).toBeNull();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("/proc/meminfo", () => {
  it("MemTotal and MemAvailable of the dev machine (Linux 6.18, captured 2026-11-25)", () => {
    const m = value(parseMeminfo(fixture("hybrid/meminfo")));
    expect(m.memTotal).toBe(24683656 * 1024);
    expect(m.memAvailable).toBe(24196860 * 1024);
  });

  it("a kernel before 3.14 has no MemAvailable: undefined, never MemFree in its place", () => {
    const m = value(parseMeminfo(fixture("hybrid/meminfo").replace(/^MemAvailable:.*\n/m, "")));
    expect(m.memAvailable).toBeUndefined();
  });

  it("no MemTotal is an error, not zeros", () => {
    expect(parseMeminfo("garbage\n").ok).toBe(false);
  });

  it("readMachineMemory reads it through the host's root", () => {
    expect(readMachineMemory(new HostFs())?.memAvailable).toBeGreaterThan(0);
    expect(readMachineMemory(new HostFs(`${FIXTURES}trees/v2-container`))).toBeUndefined();
  });
});
