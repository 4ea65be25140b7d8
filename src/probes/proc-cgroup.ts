/**
 * /proc/PID/cgroup: one "ID:controllers:path" line per hierarchy.
 *   v1:     "4:memory:/docker/abc"
 *   v2:     "0::/system.slice/foo.service"
 *   hybrid: both; if any line names `memory`, the memory controller is on v1 and that line wins.
 * The path may itself contain ":" so only the first two colons split.
 */
import { fail, ok, parseCount, type Parsed } from "./parsed.js";

export interface CgroupLine {
  id: number;
  controllers: string[];
  path: string;
}

export interface MemoryCgroupRef {
  version: 1 | 2;
  /** Path as the kernel prints it, relative to the reader's cgroup namespace root. */
  path: string;
}

const SOURCE = "/proc/PID/cgroup";

export function parseProcCgroup(text: string): Parsed<CgroupLine[]> {
  const lines: CgroupLine[] = [];
  for (const raw of text.split("\n")) {
    if (raw.trim() === "") continue;
    const first = raw.indexOf(":");
    const second = first < 0 ? -1 : raw.indexOf(":", first + 1);
    if (second < 0) return fail(SOURCE, `line without two colons: ${JSON.stringify(raw.slice(0, 80))}`);
    const id = parseCount(raw.slice(0, first));
    if (id === undefined) return fail(SOURCE, `hierarchy id is not a number: ${JSON.stringify(raw.slice(0, 80))}`);
    const controllers = raw
      .slice(first + 1, second)
      .split(",")
      .filter((c) => c !== "");
    lines.push({ id, controllers, path: raw.slice(second + 1) });
  }
  if (lines.length === 0) return fail(SOURCE, "empty");
  return ok(lines);
}

/** Which cgroup holds this process's memory accounting: the v1 `memory` line if there is one, else the v2 `0::` line. */
export function memoryCgroupOf(lines: CgroupLine[]): MemoryCgroupRef | undefined {
  const v1 = lines.find((l) => l.controllers.includes("memory"));
  if (v1) return { version: 1, path: v1.path };
  const v2 = lines.find((l) => l.id === 0 && l.controllers.length === 0);
  if (v2) return { version: 2, path: v2.path };
  return undefined;
}
