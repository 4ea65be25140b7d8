/**
 * Where run and watch will write (--record, --html), checked before anything starts: a typo in a directory must not
 * cost the user a whole training run and then the report (it did: `--html /nonexistent/r.html` ran the command to
 * its end, then exited 2 with nothing printed).
 */
import { accessSync, constants, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { usageError } from "../base/errors.js";

/** @param keepExisting refuse an existing regular file (a recording someone made) instead of replacing it */
export function checkOutputPath(path: string | undefined, option: string, keepExisting = false): void {
  if (path === undefined) return;
  const full = resolve(path);
  let existing: ReturnType<typeof statSync> | undefined;
  try {
    existing = statSync(full);
  } catch {
    existing = undefined;
  }
  if (existing?.isDirectory()) throw usageError(`${option} ${path}: is a directory; give a file name`);
  if (keepExisting && existing?.isFile())
    throw usageError(`${option} ${path}: the file exists; pass --overwrite to replace it, or choose another name`);
  const dir = dirname(full);
  try {
    if (!statSync(dir).isDirectory()) throw usageError(`${option} ${path}: ${dir} is not a directory`);
  } catch (err) {
    if ((err as { exitCode?: number }).exitCode !== undefined) throw err;
    throw usageError(`${option} ${path}: the directory ${dir} does not exist`);
  }
  try {
    accessSync(existing ? full : dir, constants.W_OK);
  } catch {
    throw usageError(`${option} ${path}: ${existing ? "the file" : `the directory ${dir}`} is not writable`);
  }
}
