/**
 * /proc/PID/status: world-readable, cheap (~20 µs), read every tick.
 * VmRSS = RssAnon + RssFile + RssShmem on kernels ≥ 4.5; older kernels have no Rss* split (those stay undefined).
 */
import { colonFields, kibField } from "./key-value.js";
import { fail, ok, parseCount, type Parsed } from "./parsed.js";

export interface ProcStatus {
  name: string;
  pid: number;
  ppid: number | undefined;
  /** Real, effective, saved, filesystem uid. */
  uids: number[] | undefined;
  vmRss: number | undefined;
  vmHwm: number | undefined;
  rssAnon: number | undefined;
  rssFile: number | undefined;
  rssShmem: number | undefined;
  vmSwap: number | undefined;
  threads: number | undefined;
}

const SOURCE = "/proc/PID/status";

/** The lines memleak uses; the rest of the file is not even split. */
const WANTED = new Set(["Name", "Pid", "PPid", "Uid", "VmRSS", "VmHWM", "RssAnon", "RssFile", "RssShmem", "VmSwap", "Threads"]);

export function parseStatus(text: string): Parsed<ProcStatus> {
  const f = colonFields(text, WANTED);
  const name = f.get("Name");
  const pid = parseCount(f.get("Pid") ?? "");
  if (name === undefined || pid === undefined) return fail(SOURCE, "no Name/Pid lines: not a status file, or truncated");
  const uidText = f.get("Uid");
  const uids = uidText?.split(/\s+/).map(parseCount);
  return ok({
    name,
    pid,
    ppid: parseCount(f.get("PPid") ?? ""),
    uids: uids && uids.every((u): u is number => u !== undefined) ? uids : undefined,
    vmRss: kibField(f, "VmRSS"),
    vmHwm: kibField(f, "VmHWM"),
    rssAnon: kibField(f, "RssAnon"),
    rssFile: kibField(f, "RssFile"),
    rssShmem: kibField(f, "RssShmem"),
    vmSwap: kibField(f, "VmSwap"),
    threads: parseCount(f.get("Threads") ?? ""),
  });
}
