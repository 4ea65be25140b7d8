/**
 * The options' table (src/cli/options.ts) against what users see: each command's --help lists exactly the table's
 * options for it, with the table's words and defaults; every parser turns a malformed value into a usage error that
 * names the option; an option is refused by the commands it does not belong to.
 */
import { describe, expect, it } from "vitest";
import { MemleakError } from "../../../src/base/errors.js";
import { parseCLI } from "../../../src/cli/parse.js";
import { COMMANDS, descriptionIn, takes, type CommandName, type OptionSpec } from "../../../src/cli/option-spec.js";
import { OPTIONS, type OptionName } from "../../../src/cli/options.js";
import { HELP_GROUP, SHORT_FLAG } from "../../../src/cli/help-text.js";

const ROWS = Object.entries(OPTIONS) as [OptionName, OptionSpec][];

/** A value each kind of placeholder refuses. A new kind of value must say here how it can be malformed. */
const MALFORMED: Record<string, string> = {
  "<duration>": "soon",
  "<size>": "50MX",
  "<size/time>": "5MB",
  "<kinds>": "leak,oops",
  "<metric>": "heap",
  "<percent>": "0",
  "<count>": "1.5",
  "<[host:]port>": "host:",
  "<url>": "prom:9090",
  "<promql>": " ",
  "<pids>": "812,x",
  "<setting>": "tcmalloc",
};
/** Names of files and directories: any text is one, until it is opened. */
const FREE_TEXT = ["<file.jsonl>", "<report.html>", "<dir>", "<interpreter>"];

/** argv for `command` with `extra` options, and whatever its positional arguments must be. */
function argv(command: CommandName, extra: string[]): string[] {
  switch (command) {
    case "run":
      return ["run", ...extra, "--", "true"];
    case "watch":
      return ["watch", "42", ...extra];
    case "analyze":
      return ["analyze", "r.jsonl", ...extra];
    case "snapshot":
      return ["snapshot", "7", ...extra];
    case "pytest":
      return ["pytest", ...extra, "--", "tests/"];
  }
}

/** --help's option entries, each on one line with its wrapping undone: "--interval <duration> time between … (default: "1s")". */
function helpEntries(command: CommandName): string[] {
  const r = parseCLI([command, "--help"]);
  if (r.kind !== "print") throw new Error(`${command} --help gave ${r.kind}`);
  // The options stand in groups (help-text.ts), after the arguments and before the examples; headings left out.
  const options = r.text.slice(
    r.text.search(/^(?!Usage|Arguments)[A-Z][^\n]*:\n {2}-/m),
    r.text.indexOf("\nExamples:\n"),
  );
  return options
    .replace(/^[A-Z][^\n]*:$/gm, "")
    .split(/\n(?= {2}-)/)
    .map((entry) => entry.trim().replace(/\s+/g, " "))
    .filter((entry) => entry !== "" && !entry.startsWith("-h, --help"));
}

/** The entry commander writes for a row: flags, description, then what it lists of the choices and the default. */
function expectedEntry(name: OptionName, option: OptionSpec, command: CommandName): string {
  const extras = [
    ...(option.choices ? [`choices: ${option.choices.map((c) => JSON.stringify(c)).join(", ")}`] : []),
    ...(option.default !== undefined ? [`default: ${JSON.stringify(option.default)}`] : []),
  ];
  const described = descriptionIn(option, command) + (extras.length ? ` (${extras.join(", ")})` : "");
  const short = SHORT_FLAG[name];
  return [short ? `${short}, ${option.flag}` : option.flag, option.placeholder, described]
    .filter(Boolean)
    .join(" ")
    .replace(/\s+/g, " ");
}

describe("the options' table", () => {
  it("every row belongs to at least one command", () => {
    for (const [, option] of ROWS) expect(option.commands.length, option.flag).toBeGreaterThan(0);
  });

  it.each(COMMANDS)(
    "%s --help lists the table's options for it, in order, with their descriptions, choices and defaults",
    (command) => {
      // In the table's order within each group: compared sorted, the groups' order being help-text.ts's.
      const listed = ROWS.filter(([, o]) => takes(o, command) && !o.hidden).map(([name, o]) =>
        expectedEntry(name, o, command),
      );
      expect(helpEntries(command).sort()).toEqual(listed.sort());
    },
  );

  it("a hidden option is accepted where it belongs though --help does not list it", () => {
    for (const command of COMMANDS) {
      expect(parseCLI(argv(command, ["--root", "/captured"]))).toMatchObject(
        takes(OPTIONS.root, command) ? { root: "/captured" } : { kind: "error" },
      );
    }
  });

  it.each(COMMANDS)("%s refuses the options of other commands as unknown", (command) => {
    for (const [, option] of ROWS.filter(([, o]) => !takes(o, command))) {
      const given = option.placeholder ? [option.flag, "1"] : [option.flag];
      expect(parseCLI(argv(command, given)), option.flag).toMatchObject({
        kind: "error",
        exitCode: 2,
        message: expect.stringContaining(`unknown option '${option.flag}'`),
      });
    }
  });

  it("every value's placeholder says how it can be malformed, or is free text", () => {
    for (const [, option] of ROWS) {
      if (option.placeholder)
        expect([...Object.keys(MALFORMED), ...FREE_TEXT], option.flag).toContain(option.placeholder);
    }
  });

  describe.each(ROWS.filter(([, o]) => o.placeholder && o.placeholder in MALFORMED))("%s", (_name, option) => {
    const bad = MALFORMED[option.placeholder!]!;

    it("its parser throws a usage error (exit 2) naming it", () => {
      let thrown: unknown;
      try {
        option.parse!(bad, option.flag);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(MemleakError);
      expect(thrown).toMatchObject({ exitCode: 2, message: expect.stringMatching(new RegExp(`^${option.flag}: `)) });
    });

    it.each(option.commands)("%s refuses a malformed value with exit 2 and a message naming it", (command) => {
      const r = parseCLI(argv(command, [option.flag, bad]));
      expect(r).toMatchObject({ kind: "error", exitCode: 2 });
      if (r.kind === "error") expect(r.message).toContain(option.flag);
    });
  });

  describe.each(ROWS.filter(([, o]) => o.default !== undefined))("%s's default", (name, option) => {
    it.each(option.commands)("%s: when not given, the value is the default's, parsed", (command) => {
      // --range and --step belong to a Prometheus source: read with one.
      const source = name === "range" || name === "step" ? ["--prometheus", "http://p:9090", "--query", "up"] : [];
      const r = parseCLI(source.length ? ["analyze", ...source] : argv(command, []));
      const fields = r as unknown as Record<string, unknown> & {
        gates?: Record<string, unknown>;
        prometheus?: Record<string, unknown>;
      };
      expect(fields[name] ?? fields.gates?.[name] ?? fields.prometheus?.[name]).toEqual(
        option.parse!(option.default!, option.flag),
      );
    });
  });
});

describe("--help's groups", () => {
  // --min-time-to-limit was listed under "Options:", apart from the gates it is one of (issue 48).
  it.each(ROWS.filter(([, spec]) => spec.description.startsWith("gate:")).map(([name]) => name))(
    "%s, a gate, is listed among the gates",
    (name) => expect(HELP_GROUP[name]).toMatch(/^Gates /),
  );
});
