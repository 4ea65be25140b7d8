/**
 * The options' table told to commander: the options a command takes, in the table's order, and the values commander
 * collected read back through each row's parser. commander only collects text here; every value is read by the
 * table's parsers, in the order the caller asks for them, so that the first error reported does not depend on where
 * the options stand on the command line.
 */
import { Option, type Command } from "commander";
import {
  descriptionIn,
  optionValue,
  takes,
  type CommandName,
  type OptionSpec,
  type OptionValue,
} from "./option-spec.js";
import { OPTIONS, type OptionName } from "./options.js";
import { HELP_GROUP, SHORT_FLAG } from "./help-text.js";

type Table = typeof OPTIONS;

/** The options command `C` takes; for a union of commands, the options every one of them takes. */
export type OptionOf<C extends CommandName> = {
  [K in OptionName]: [C] extends [Table[K]["commands"][number]] ? K : never;
}[OptionName];

/** A command's option values, each parsed when it is asked for (a usage error for a malformed one). */
export type OptionReader<C extends CommandName> = <K extends OptionOf<C>>(name: K) => OptionValue<Table[K]>;

const NAMES = Object.keys(OPTIONS) as OptionName[];

function commanderOption(name: OptionName, option: OptionSpec, command: CommandName): Option {
  const short = SHORT_FLAG[name];
  const flags = `${short ? `${short}, ` : ""}${option.flag}`;
  const o = new Option(option.placeholder ? `${flags} ${option.placeholder}` : flags, descriptionIn(option, command));
  const group = HELP_GROUP[name];
  if (group) o.helpGroup(group);
  if (option.default !== undefined) o.default(option.default);
  if (option.choices) o.choices(option.choices);
  if (option.hidden) o.hideHelp();
  // commander keeps the last of a repeated option; a repeatable one keeps each text, parsed later like the others.
  if (option.repeatable) o.argParser((text: string, previous: unknown) => [...((previous as string[]) ?? []), text]);
  return o;
}

/** Where commander keeps the option's value: its camel-cased name ("--no-agent" → "agent"). */
const attributeName = (option: OptionSpec) => new Option(option.flag).attributeName();

export function addOptions(cmd: Command, command: CommandName): Command {
  for (const name of NAMES)
    if (takes(OPTIONS[name], command)) cmd.addOption(commanderOption(name, OPTIONS[name], command));
  return cmd;
}

/** `collected`: what commander hands an action (its opts()). */
export function optionReader<C extends CommandName>(collected: Record<string, unknown>): OptionReader<C> {
  return (name) => optionValue(OPTIONS[name], collected[attributeName(OPTIONS[name])]);
}
