#!/usr/bin/env node
// --help and --version are answered from the help recorded at build time, before the CLI (and commander) load.
import { fastAnswer } from "../dist/cli/help-layout.js";

const answer = fastAnswer(
  process.argv.slice(2),
  process.stdout.isTTY ? process.stdout.columns : undefined,
  new URL("../dist/cli/help-model.json", import.meta.url),
);
if (answer === undefined) await import("../dist/cli.js");
else process.stdout.write(answer);
