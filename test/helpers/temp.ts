/**
 * Temporary directories for a test file, removed when the file's tests are done: the suite used to leave ~700
 * directories (40 MB recordings among them) in /tmp per run.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

const made: string[] = [];

// Registered when a test file first imports this module (vitest isolates each file), so it runs after that file.
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A new directory under the system's temp dir named memleak-<prefix>-XXXXXX, removed after the file's tests. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `memleak-${prefix}-`));
  made.push(dir);
  return dir;
}
