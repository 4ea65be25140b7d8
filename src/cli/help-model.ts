/**
 * The help as commander writes it, recorded for help-layout.ts: the build (scripts/help-model.mjs) runs this and
 * writes dist/cli/help-model.json. Commander is asked for each command's --help with its two width-dependent steps
 * (formatItem, boxWrap) replaced by numbered markers; the markers become the model's open parts.
 */
import type { Command } from "commander";
import { buildProgram } from "./parse.js";
import { COMMANDS } from "./option-spec.js";
import { VERSION } from "../base/version.js";
import type { HelpModel, HelpPart, RecordedHelp } from "./help-layout.js";

const MARK = "\u0000";

function record(name: string): RecordedHelp {
  const output = { text: "" };
  const program = buildProgram(() => {}, output);
  const open: Exclude<HelpPart, string>[] = [];
  let termWidth = 0;
  const marker = (part: Exclude<HelpPart, string>) => `${MARK}${open.push(part) - 1}${MARK}`;
  for (const cmd of [program, ...program.commands] as Command[]) {
    cmd.configureHelp({
      ...cmd.configureHelp(),
      formatItem: (term: string, width: number, description: string) => {
        termWidth = width;
        return marker({ item: [term, description] });
      },
      boxWrap: (str: string) => marker({ wrap: str }),
    });
  }
  try {
    program.parse(name === "" ? ["--help"] : [name, "--help"], { from: "user" });
  } catch {
    // commander ends --help by throwing (exitOverride): the text is in output.
  }
  if (output.text.includes("\x1b")) throw new Error(`${name} --help is styled: the recorded help would not strip it`);
  const parts = output.text
    .split(new RegExp(`${MARK}(\\d+)${MARK}`))
    .map((p, i) => (i % 2 === 0 ? p : open[Number(p)]!));
  return { termWidth, parts: parts.filter((p) => p !== "") };
}

/** Every command's help and the version, as help-layout.ts reads them. */
export function helpModel(): HelpModel {
  const help: Record<string, RecordedHelp> = { "": record("") };
  for (const name of COMMANDS) help[name] = record(name);
  return { version: VERSION, help };
}
