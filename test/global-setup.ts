/**
 * Everything the suite writes to the temp dir goes under one directory per run, /tmp/memleak-tests-<pid>: the tests'
 * own directories (helpers/temp.ts) and what the memleaks they start make there (agent socket directories, crash
 * files), through TMPDIR, which the test processes and their children inherit. An interrupted run (Ctrl-C, a killed
 * CI job) cannot clean up after itself, so the next run removes the directories of runs whose process is gone.
 */
import { chmodSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { alive } from "../src/system/isolate.js";

const PREFIX = "memleak-tests-";

export default function setup(): () => void {
  // Each vitest project (unit, e2e) runs this: the first makes the run's directory, the others find it in place.
  if (process.env.TMPDIR?.endsWith(`${PREFIX}${process.pid}`)) return () => {};
  const base = tmpdir();
  for (const name of readdirSync(base)) {
    const pid = Number(name.startsWith(PREFIX) ? name.slice(PREFIX.length) : NaN);
    if (!Number.isInteger(pid) || alive(pid)) continue;
    try {
      rmSync(join(base, name), { recursive: true, force: true });
    } catch {
      /* another user's run: theirs to remove */
    }
  }
  const own = join(base, `${PREFIX}${process.pid}`);
  mkdirSync(own, { recursive: true });
  // Like /tmp itself: the tests run memleak as other users too (nobody, in watch-safety.test.ts).
  chmodSync(own, 0o1777);
  process.env.TMPDIR = own;
  return () => rmSync(own, { recursive: true, force: true });
}
