/**
 * `memleak snapshot $$` from a shell: the tree is the shell's, and memleak's own Node process (a child of that shell
 * while it reads) is left out, so its tens of MiB are not counted as the user's memory.
 */
import { describe, expect, it } from "vitest";
import type { Snapshot } from "../../src/sampling/snapshot.js";
import { execFileP, MEMLEAK } from "../helpers/processes.js";
import { REPO } from "../helpers/fixtures.js";

describe("snapshot of the shell that runs memleak", () => {
  it("lists the shell and not memleak's own process", async () => {
    // "; true" keeps bash from exec-ing memleak in its own place, so memleak is the shell's child, as from a prompt.
    const script = `echo shell $$; "${process.execPath}" "${MEMLEAK}" snapshot --json $$; true`;
    const r = await execFileP("bash", ["-c", script], { cwd: REPO, env: { ...process.env, NO_COLOR: "1" } });
    const shell = Number(/^shell (\d+)$/m.exec(r.stdout)?.[1]);
    const snap = JSON.parse(r.stdout.slice(r.stdout.indexOf("{"))) as Snapshot;
    expect(snap.targetPid).toBe(shell);
    // Only the shell: memleak was its one child, and it is left out of the tree and of the totals.
    expect(snap.processes.map((p) => p.pid)).toEqual([shell]);
    expect(snap.totals.rss).toBe(snap.processes[0]!.rss);
  });
});
