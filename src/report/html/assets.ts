/**
 * uPlot's minified script and stylesheet, read from the installed package at render time and inlined, so the report
 * is one file that opens without a network. Resolved through Node's module resolution from this file, which finds
 * node_modules/uplot the same way from src/report/html (vitest) and dist/report/html (after tsc), and from an
 * installed memleak's own node_modules.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

export interface UplotAssets {
  js: string;
  css: string;
}

let cached: UplotAssets | undefined;

export function uplotAssets(): UplotAssets {
  if (cached) return cached;
  let dist: string;
  try {
    // The package's main file lives in its dist/ folder, beside the minified builds.
    dist = dirname(createRequire(import.meta.url).resolve("uplot"));
  } catch {
    throw new Error("cannot render the HTML report: the uplot package is not installed (npm install)");
  }
  cached = {
    js: readFileSync(join(dist, "uPlot.iife.min.js"), "utf8"),
    css: readFileSync(join(dist, "uPlot.min.css"), "utf8"),
  };
  return cached;
}
