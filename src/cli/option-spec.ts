/**
 * The shape of one row of the options' table (options.ts), and the value a row gives: what its parser returns, or a
 * boolean for a switch. Types only and one pure function, so that the table, the commander wiring and the tests
 * agree on what a row means.
 */
import type { ValueParser } from "./option-values.js";

export const COMMANDS = ["run", "watch", "analyze", "snapshot", "pytest"] as const;
export type CommandName = (typeof COMMANDS)[number];

interface OptionRow {
  /** The long flag as typed: "--max-growth"; "--no-agent" for a switch that is on unless it is given. */
  flag: `--${string}`;
  /** What --help says, in every command that has the option unless `descriptionIn` says otherwise for one. */
  description: string;
  descriptionIn?: { readonly [C in CommandName]?: string };
  commands: readonly CommandName[];
  /** Accepted, but not listed in --help: for tests and captured trees, not for users. */
  hidden?: boolean;
}

/** An option that takes a value: `--interval <duration>`. */
export interface ValueOptionRow<T> extends OptionRow {
  placeholder: `<${string}>`;
  parse: ValueParser<T>;
  /** As a user would type it: --help shows it, and it is parsed like a typed value, so both always agree. */
  default?: string;
  /** Words commander itself checks and lists in --help (the parser checks them too, for callers other than commander). */
  choices?: readonly string[];
  /** Given once per value (`--try jemalloc --try MALLOC_ARENA_MAX=2`): its value is the list, each parsed, in order. */
  repeatable?: true;
}

/** An option without a value: `--json`, `--no-agent`. */
export interface SwitchOptionRow extends OptionRow {
  placeholder?: never;
  parse?: never;
  default?: never;
  choices?: never;
  repeatable?: never;
}

export type OptionSpec = ValueOptionRow<unknown> | SwitchOptionRow;

/** What a row gives: its parser's type (undefined when not given and no default), or a boolean for a switch. */
export type OptionValue<O extends OptionSpec> = O extends { parse: ValueParser<infer T> }
  ? O extends { repeatable: true }
    ? T[]
    : O extends { default: string }
      ? T
      : T | undefined
  : boolean;

/**
 * The row's value from what commander collected: `raw` is the text typed (or the default), undefined when the option
 * was not given, or a switch's true/false (commander makes a --no-x switch true unless it is given).
 */
export function optionValue<O extends OptionSpec>(option: O, raw: unknown): OptionValue<O> {
  // The conditional type cannot be narrowed by these tests; each branch is the one OptionValue names.
  if (option.parse === undefined) return Boolean(raw) as OptionValue<O>;
  if (option.repeatable) {
    const parse = option.parse;
    const texts: unknown[] = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
    return texts.map((text) => parse(String(text), option.flag)) as OptionValue<O>;
  }
  return (raw === undefined ? undefined : option.parse(String(raw), option.flag)) as OptionValue<O>;
}

export function takes(option: OptionSpec, command: CommandName): boolean {
  return option.commands.includes(command);
}

export function descriptionIn(option: OptionSpec, command: CommandName): string {
  return option.descriptionIn?.[command] ?? option.description;
}
