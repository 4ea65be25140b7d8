/**
 * Directories a killed memleak left behind are named `<prefix><its pid>-…`: those of this user whose memleak is gone
 * (not this process, not alive) are the candidates for removal. What else must hold before one is removed differs by
 * what it holds (a socket nobody answers; trace files nothing has written to for minutes): the callers decide.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { alive } from "./isolate.js";

/** Paths of `dir`'s entries named `<prefix><pid>-…` whose pid is gone, owned by this user. */
export function deadOwnersDirs(dir: string, prefix: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const named = new RegExp(`^${prefix}(\\d+)-`);
  return names.flatMap((name) => {
    const m = named.exec(name);
    if (!m || Number(m[1]) === process.pid || alive(Number(m[1]))) return [];
    const path = join(dir, name);
    try {
      return statSync(path).uid === process.geteuid?.() ? [path] : [];
    } catch {
      return []; // gone meanwhile
    }
  });
}
