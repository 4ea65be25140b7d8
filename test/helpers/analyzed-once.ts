/**
 * The verdict document of a recording, analyzed once per test run however many test files ask for it: the golden
 * documents, the declared kinds, the warm-up checks, the calibration set and the report tests each analyzed every
 * recording again (~6 times in all). vitest runs each file in its own module graph, so the cache is on disk, in the
 * run's own temp dir (global-setup.ts points TMPDIR there and removes it after the run).
 *
 * Only the document is kept (it is JSON by design: what `--json` prints); a test that needs the series too analyzes
 * the recording itself. The key holds the recording's size and mtime and the newest mtime under src/, so a watch-mode
 * run after an edit analyzes afresh.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { analyzeRecording } from "../../src/recording/replay.js";
import type { VerdictDocument } from "../../src/analysis/types.js";
import { REPO } from "./fixtures.js";

function newestUnder(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) newest = Math.max(newest, statSync(join(e.parentPath, e.name)).mtimeMs);
  }
  return newest;
}

const SOURCES = newestUnder(`${REPO}src`);

/**
 * Only inside a run of the whole config (global-setup.ts's per-run temp dir), and never under StrykerJS: it switches
 * mutants inside the same sources (no mtime changes), and a document cached under one mutant would hide the next.
 */
const CACHING =
  basename(tmpdir()).startsWith("memleak-tests-") &&
  !Object.keys(process.env).some((k) => k.startsWith("STRYKER")) &&
  !("__stryker__" in globalThis);

/** The document `memleak analyze --json` would print for the recording at `path` (an absolute path). */
export async function analyzedDoc(path: string): Promise<VerdictDocument> {
  if (!CACHING) return (await analyzeRecording(path)).doc;
  const { size, mtimeMs } = statSync(path);
  const key = createHash("sha256").update(`${path}\0${size}\0${mtimeMs}\0${SOURCES}`).digest("hex").slice(0, 32);
  const dir = join(tmpdir(), "memleak-analyzed");
  const file = join(dir, `${key}.json`);
  try {
    return JSON.parse(readFileSync(file, "utf8")) as VerdictDocument;
  } catch {
    /* not analyzed yet in this run */
  }
  const { doc } = await analyzeRecording(path);
  mkdirSync(dir, { recursive: true });
  // Written aside and renamed: a file analyzing the same recording in parallel never reads half a document.
  const partial = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  writeFileSync(partial, JSON.stringify(doc));
  renameSync(partial, file);
  return JSON.parse(JSON.stringify(doc)) as VerdictDocument; // the same object a cached read gives, whoever is first
}
