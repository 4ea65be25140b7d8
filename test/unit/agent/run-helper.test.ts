/**
 * The injection helper's runner (src/agent/attach/run-helper.ts), on real processes: it must end when the helper ends,
 * even when something the helper forked still holds its output (gdb forks; a stopped fork kept a `watch` alive for
 * 90 minutes after its report), stop what is left of the helper's process group, and interrupt a helper that overruns.
 */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { OUTPUT_GRACE_MS, runHelper } from "../../../src/agent/attach/run-helper.js";

const alive = (pid: number) => existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(readStatus(pid));
function readStatus(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return "State:\tZ";
  }
}

describe("runHelper", () => {
  it("ends when the helper exits though a process it forked holds its output, and stops that process", async () => {
    // The fork keeps stdout and stderr open and stops itself, as the gdb fork that hung a watch did.
    const started = Date.now();
    const r = await runHelper("sh", ["-c", 'sh -c "kill -STOP \\$\\$; sleep 60" & echo "fork $!"; exit 3'], {}, 30_000);
    expect(r).toMatchObject({ code: 3, timedOut: false });
    expect(Date.now() - started).toBeLessThan(OUTPUT_GRACE_MS + 5_000);
    const fork = Number(/fork (\d+)/.exec(r.stdout)?.[1]);
    expect(fork).toBeGreaterThan(0);
    await expect.poll(() => alive(fork), { timeout: 5_000 }).toBe(false);
  });

  it("interrupts a helper that overruns its time, and says so", async () => {
    const r = await runHelper("sleep", ["60"], {}, 300);
    expect(r).toMatchObject({ code: null, timedOut: true });
  });

  it("reads the whole output of a helper that ends normally", async () => {
    const r = await runHelper("sh", ["-c", "echo to-out; echo to-err >&2; exit 0"], {}, 30_000);
    expect(r).toEqual({ code: 0, stdout: "to-out\n", stderr: "to-err\n", timedOut: false });
  });

  it("a helper that cannot start: code 127 and why", async () => {
    const r = await runHelper("/nonexistent/gdb", [], {}, 30_000);
    expect(r.code).toBe(127);
    expect(r.stderr).toMatch(/ENOENT/);
  });
});
