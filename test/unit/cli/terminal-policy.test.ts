import { describe, expect, it } from "vitest";
import { terminalPolicy } from "../../../src/cli/terminal-policy.js";

describe("what the terminal may use", () => {
  it.each([
    // env, stdout a terminal → colour, live view, ascii
    [{}, true, { color: true, live: true, ascii: false }],
    [{}, false, { color: false, live: false, ascii: false }],
    [{ NO_COLOR: "1" }, true, { color: false, live: true, ascii: false }],
    [{ NO_COLOR: "" }, true, { color: true, live: true, ascii: false }],
    [{ FORCE_COLOR: "1" }, false, { color: true, live: false, ascii: false }],
    [{ FORCE_COLOR: "" }, false, { color: true, live: false, ascii: false }],
    [{ FORCE_COLOR: "0" }, true, { color: false, live: true, ascii: false }],
    [{ FORCE_COLOR: "false" }, true, { color: false, live: true, ascii: false }],
    [{ FORCE_COLOR: "1", NO_COLOR: "1" }, true, { color: false, live: true, ascii: false }],
    [{ TERM: "dumb" }, true, { color: false, live: false, ascii: true }],
    [{ TERM: "dumb", FORCE_COLOR: "1" }, true, { color: true, live: false, ascii: true }],
    [{ TERM: "xterm-256color" }, true, { color: true, live: true, ascii: false }],
  ])("%j, terminal %s → %j", (env, tty, expected) => {
    expect(terminalPolicy(env, tty)).toEqual(expected);
  });
});
