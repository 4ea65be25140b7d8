/**
 * Writes dist/bundle/: memleak's CLI and its verdict worker as a few files, its dependencies in them, where tsc's
 * dist/ is ~280 modules that Node resolves, reads and compiles one by one. Loading them was most of what a short
 * command costs and a fifth of `watch`'s first minute above a steady one, twice (the worker thread loads the analysis
 * again in its own isolate): a 3 s `watch --no-inject` of 8 processes took 0.49 s of CPU from tsc's dist/ and 0.28 s
 * from the bundle (BENCHMARKS §g¹⁸).
 *
 * - The commands stay lazy: cli.ts imports each one with `import()`, and splitting gives each its own chunk, so that
 *   `memleak help` loads no sampler and `watch` no Prometheus client.
 * - Everything sits in dist/bundle/, two levels under the package's root as tsc's dist/agent/preload.js is, so the
 *   paths a module finds from its own URL (the agent's Python files, the worker's file, uPlot's assets through
 *   `createRequire`) resolve from a chunk as they do from dist/.
 * - A dependency written as CommonJS calls `require`; in an ES module there is none, so each file makes one.
 * - dist/bundle/meta.json says which source module went into which file (test/e2e/help-imports.test.ts reads it).
 * tsc's dist/ stays: the types are checked there, some e2e tests import its modules, and bin/memleak.js falls back to
 * it when there is no bundle (a build that ran tsc alone).
 * Usage: node scripts/bundle.mjs (`npm run build` runs it after tsc)
 */
import { build } from "esbuild";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const OUT = `${ROOT}dist/bundle`;

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
const result = await build({
  absWorkingDir: ROOT,
  entryPoints: { cli: "src/cli.ts", worker: "src/session/interim/worker.ts" },
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: true,
  metafile: true,
  logLevel: "warning",
  banner: {
    js: 'import { createRequire as memleakCreateRequire } from "node:module";\nconst require = memleakCreateRequire(import.meta.url);',
  },
});
writeFileSync(`${OUT}/meta.json`, `${JSON.stringify(result.metafile)}\n`);
