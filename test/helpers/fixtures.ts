import { readFileSync, existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

export const FIXTURES = fileURLToPath(new URL("../../fixtures/", import.meta.url));
export const REPO = fileURLToPath(new URL("../../", import.meta.url));

export function fixture(path: string): string {
  return readFileSync(join(FIXTURES, path), "utf8");
}

export function hasFixture(path: string): boolean {
  return existsSync(join(FIXTURES, path));
}

/** Unwraps a Parsed<T>, failing the test with the parser's message if it was an error. */
export function value<T>(r: { ok: true; value: T } | { ok: false; message: string }): T {
  if (!r.ok) throw new Error(`expected a value, got parse error: ${r.message}`);
  return r.value;
}
