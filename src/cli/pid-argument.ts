/** The PID argument of `snapshot` and `watch`: a usage error (exit 2) for anything but a positive whole number. */
import { usageError } from "../base/errors.js";

export function parsePid(text: string | undefined): number {
  if (text === undefined || text.trim() === "") throw usageError("missing PID: memleak snapshot <pid>");
  if (!/^\d+$/.test(text.trim())) throw usageError(`"${text}" is not a PID: expected a positive whole number`);
  const pid = Number(text.trim());
  if (!Number.isSafeInteger(pid) || pid <= 0)
    throw usageError(`"${text}" is not a PID: expected a positive whole number`);
  return pid;
}
