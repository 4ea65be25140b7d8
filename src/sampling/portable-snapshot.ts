/**
 * Off Linux there is no /proc to read PSS, USS or cgroups from: pidusage gives RSS and CPU of one process, portably
 * (ps on macOS/BSD, WMI on Windows). We say plainly that this is all we can see.
 */
import { observeError } from "../base/errors.js";
import type { Snapshot } from "./snapshot.js";

export async function portableSnapshot(pid: number, platform: string, now = Date.now()): Promise<Snapshot> {
  const { default: pidusage } = await import("pidusage");
  let stat: { memory: number; cpu: number; ppid: number; elapsed: number; timestamp: number };
  try {
    stat = await new Promise((resolve, reject) => pidusage(pid, (err, s) => (err ? reject(err) : resolve(s))));
  } catch {
    throw observeError(`no process with PID ${pid} (or no permission to see it)`);
  } finally {
    pidusage.clear();
  }
  return {
    schema: "memleak.snapshot/1",
    t: now,
    targetPid: pid,
    platform,
    warnings: [
      `${platform} is not Linux: only RSS and CPU of the process itself are available (via pidusage); ` +
        "PSS, USS, child processes and cgroup memory need Linux's /proc and /sys/fs/cgroup",
    ],
    processes: [
      {
        pid,
        ppid: stat.ppid,
        starttime: Math.round(stat.timestamp - stat.elapsed),
        comm: "",
        rss: stat.memory,
        cpuPercent: stat.cpu,
      },
    ],
    totals: { rss: stat.memory },
    cgroup: { error: "not available off Linux" },
  };
}
