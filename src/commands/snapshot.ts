/**
 * `memleak snapshot <pid>`: one reading of the process tree and its cgroup, as a table or JSON.
 * Exit 3 when the process cannot be observed, or when part of it (smaps of another user's process) could not be read.
 */
import { HostFs } from "../system/host-fs.js";
import { portableSnapshot } from "../sampling/portable-snapshot.js";
import { assertObservable } from "../system/target.js";
import { renderSnapshot } from "../report/terminal/snapshot-table.js";
import { takeSnapshot, type Snapshot } from "../sampling/snapshot.js";
import type { CommandIO, CommandResult } from "../base/command-io.js";
import { EXIT } from "../base/errors.js";

export interface SnapshotOptions {
  pid: number;
  json: boolean;
  /** Root prefix for /proc and /sys (tests point it at a captured tree). */
  root?: string;
}

export async function snapshotCommand(
  opts: SnapshotOptions,
  io: CommandIO,
): Promise<CommandResult & { snapshot: Snapshot }> {
  const platform = io.platform;
  let snap: Snapshot;
  if (platform === "linux") {
    const fs = new HostFs(opts.root ?? "/");
    assertObservable(fs, opts.pid);
    // memleak's own process is in the tree only on this machine's /proc, not in a captured one (--root).
    snap = takeSnapshot(fs, opts.pid, Date.now(), (opts.root ?? "/") === "/" ? io.pid : undefined);
  } else {
    snap = await portableSnapshot(opts.pid, platform);
  }
  // What could not be read goes to stderr, where a log or a CI step shows it, in both modes; the table is the data.
  if (opts.json) io.stdout(JSON.stringify(snap, null, 2) + "\n");
  else io.stdout(renderSnapshot({ ...snap, warnings: [] }, io.color, io.columns));
  for (const w of snap.warnings) io.stderr(`memleak: ${w}\n`);
  const partial = snap.processes.some((p) => p.smapsUnavailable === "denied");
  return { exitCode: partial ? EXIT.cannotObserve : EXIT.ok, snapshot: snap };
}
