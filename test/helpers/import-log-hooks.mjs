/**
 * Module hooks for test/e2e/help-imports.test.ts: every file: URL that Node resolves is appended to the file named
 * by MEMLEAK_IMPORT_LOG, so a test can tell which of memleak's modules a command loaded. Registered with
 * `node --import ./test/helpers/import-log.mjs`.
 */
import { appendFileSync } from "node:fs";

export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (process.env.MEMLEAK_IMPORT_LOG && r.url.startsWith("file:"))
    appendFileSync(process.env.MEMLEAK_IMPORT_LOG, `${r.url}\n`);
  return r;
}
