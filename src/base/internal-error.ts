/**
 * A bug in memleak (not bad input, not a refusal of the system) ends with exit 70 and one line on stderr, which names
 * the file the details were written to: a stack trace in a CI log or at 2 a.m. says nothing to the user, and the
 * README promises none. Without a writable temp dir the stack is printed after all, so the report is never lost.
 */
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { safeText } from "./safe-text.js";
import { VERSION } from "./version.js";

export const INTERNAL_ERROR_EXIT = 70;

/** What to print for an internal error, having written its details where `write` puts them. */
export function reportInternalError(
  err: unknown,
  argv: readonly string[],
  write: (path: string, text: string) => void = (path, text) => writeFileSync(path, text, { mode: 0o600 }),
  dir = tmpdir(),
  now = new Date(),
): string {
  const stack = err instanceof Error ? (err.stack ?? err.message) : String(err);
  const first = safeText((err instanceof Error ? err.message : String(err)).split("\n")[0] ?? "").slice(0, 200);
  const path = join(dir, `memleak-crash-${process.pid}-${now.getTime()}.txt`);
  const details = `memleak ${VERSION}, ${now.toISOString()}, node ${process.version} on ${process.platform}\nargv: ${JSON.stringify(argv)}\n\n${stack}\n`;
  try {
    write(path, details);
    return `memleak: internal error (a bug in memleak): ${first}\nmemleak: details written to ${path}; please attach it to a report\n`;
  } catch {
    return `memleak: internal error (a bug in memleak; please report it): ${stack}\n`;
  }
}
