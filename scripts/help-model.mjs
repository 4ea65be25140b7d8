/**
 * Writes dist/cli/help-model.json: commander's help for each command, recorded so that `memleak --help` and
 * `--version` answer without loading commander (src/cli/help-layout.ts says how). `npm run build` runs it after tsc;
 * without the file, the help goes through commander as before.
 * Usage: node scripts/help-model.mjs
 */
import { writeFileSync } from "node:fs";
import { helpModel } from "../dist/cli/help-model.js";

writeFileSync(new URL("../dist/cli/help-model.json", import.meta.url), `${JSON.stringify(helpModel())}\n`);
