/**
 * The help recorded at build time and laid out without commander (src/cli/help-layout.ts) is commander's help, byte
 * for byte, at every width a terminal may have: commander itself is the other side of each comparison.
 */
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { fastAnswer, layOut } from "../../../src/cli/help-layout.js";
import { helpModel } from "../../../src/cli/help-model.js";
import { buildProgram } from "../../../src/cli/parse.js";
import { COMMANDS } from "../../../src/cli/option-spec.js";
import { VERSION } from "../../../src/base/version.js";
import { tempDir } from "../../helpers/temp.js";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** commander's --help for `name` ("" for the program) written for a terminal `width` columns wide. */
function commanderHelp(name: string, width: number | undefined): string {
  const output = { text: "" };
  const program = buildProgram(() => {}, output);
  for (const cmd of [program, ...program.commands] as Command[])
    cmd.configureOutput({ getOutHelpWidth: () => width ?? 80 });
  try {
    program.parse(name === "" ? ["--help"] : [name, "--help"], { from: "user" });
  } catch {
    // --help ends in commander's exitOverride.
  }
  return output.text;
}

const model = helpModel();
const WIDTHS = [undefined, 20, 39, 40, 41, 57, 80, 81, 100, 132, 200, 400];

describe("the recorded help, laid out", () => {
  it.each(["", ...COMMANDS])("'%s --help' is commander's at every width", (name) => {
    for (const width of WIDTHS)
      expect(layOut(model.help[name]!, width ?? 80), `width ${width}`).toBe(commanderHelp(name, width));
  });

  it("a wider terminal changes the layout (the comparison above can fail)", () => {
    expect(layOut(model.help["watch"]!, 200)).not.toBe(layOut(model.help["watch"]!, 80));
  });
});

describe("what the fast path answers", () => {
  const file = join(tempDir("help-model"), "help-model.json");
  writeFileSync(file, JSON.stringify(model));
  const url = pathToFileURL(file);

  it("--version, -V, --help, -h and '<command> --help'", () => {
    expect(fastAnswer(["--version"], undefined, url)).toBe(`${VERSION}\n`);
    expect(fastAnswer(["-V"], undefined, url)).toBe(`${VERSION}\n`);
    expect(fastAnswer(["--help"], undefined, url)).toBe(commanderHelp("", undefined));
    expect(fastAnswer(["-h"], 120, url)).toBe(commanderHelp("", 120));
    expect(fastAnswer(["run", "--help"], undefined, url)).toBe(commanderHelp("run", undefined));
  });

  it("nothing else: those go to commander", () => {
    for (const args of [
      [],
      ["watch"],
      ["help"],
      ["watch", "1", "--help"],
      ["--help", "watch"],
      ["frobnicate", "--help"],
      ["--version", "--json"],
    ]) {
      expect(fastAnswer(args, undefined, url), args.join(" ")).toBeUndefined();
    }
  });

  it("without a recorded model (tsc alone built dist/) it leaves the answer to commander", () => {
    expect(
      fastAnswer(["--help"], undefined, pathToFileURL(join(tempDir("help-model"), "absent.json"))),
    ).toBeUndefined();
  });
});
