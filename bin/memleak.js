#!/usr/bin/env node
// --help and --version are answered from the help recorded at build time, before the CLI (and commander) load.
import { existsSync } from "node:fs";
import { fastAnswer } from "../dist/cli/help-layout.js";

const answer = fastAnswer(
  process.argv.slice(2),
  process.stdout.isTTY ? process.stdout.columns : undefined,
  new URL("../dist/cli/help-model.json", import.meta.url),
);
// The bundle (scripts/bundle.mjs) loads in a few files what tsc's dist/ loads in ~280; a build of tsc alone has only
// the latter.
const bundled = new URL("../dist/bundle/cli.js", import.meta.url);
if (answer !== undefined) process.stdout.write(answer);
else if (existsSync(bundled)) await import(bundled.href);
else await import("../dist/cli.js");
