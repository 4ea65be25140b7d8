/**
 * /proc/PID/mountinfo (proc(5)):
 *   36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
 *   (1)(2)(3)   (4)   (5)      (6)      (7)   (8) (9)   (10)         (11)
 * Optional fields (7) end at a lone "-". Paths escape space, tab, newline and backslash as octal (\040).
 */
import { fail, ok, parseCount, type Parsed } from "./parsed.js";

export interface Mount {
  mountId: number;
  parentId: number;
  /** The path inside the filesystem that is mounted here (field 4); for cgroups, the cgroup the mount starts at. */
  root: string;
  mountPoint: string;
  fsType: string;
  source: string;
  superOptions: string[];
}

const SOURCE = "/proc/PID/mountinfo";

export function unescapeOctal(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(parseInt(oct, 8)));
}

export function parseMountinfo(text: string): Parsed<Mount[]> {
  const mounts: Mount[] = [];
  for (const raw of text.split("\n")) {
    if (raw.trim() === "") continue;
    const fields = raw.trim().split(" ");
    const dash = fields.indexOf("-", 6);
    if (fields.length < 10 || dash < 0 || fields.length < dash + 3) {
      return fail(SOURCE, `malformed line: ${JSON.stringify(raw.slice(0, 80))}`);
    }
    const mountId = parseCount(fields[0]!);
    const parentId = parseCount(fields[1]!);
    if (mountId === undefined || parentId === undefined) {
      return fail(SOURCE, `mount ids are not numbers: ${JSON.stringify(raw.slice(0, 80))}`);
    }
    mounts.push({
      mountId,
      parentId,
      root: unescapeOctal(fields[3]!),
      mountPoint: unescapeOctal(fields[4]!),
      fsType: fields[dash + 1]!,
      source: unescapeOctal(fields[dash + 2]!),
      superOptions: (fields[dash + 3] ?? "").split(","),
    });
  }
  if (mounts.length === 0) return fail(SOURCE, "empty");
  return ok(mounts);
}
