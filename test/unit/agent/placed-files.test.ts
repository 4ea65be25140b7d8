/**
 * The files memleak places in a container's view for `watch` (src/agent/attach/placement.ts PLACED_FILES) are all the
 * agent loads: the rooms it loads with itself (memleak_agent.py `_ROOMS`, which precompile.ts AGENT_CODE_FILES
 * compiles for `watch`), every room it loads by name when needed (`_sibling_module("…")`) and the loaders themselves. A
 * room missing there loads under `run` and fails only inside a container, where nothing says why.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { AGENT_CODE_FILES } from "../../../src/agent/attach/precompile.js";
import { PLACED_FILES } from "../../../src/agent/attach/placement.js";
import { REPO } from "../../helpers/fixtures.js";

const DIR = `${REPO}src/agent/python/`;

/** The rooms a file loads by name through the agent's _sibling_module. */
const roomsOf = (file: string) =>
  [...readFileSync(DIR + file, "utf8").matchAll(/_sibling_module\("(\w+)"\)/g)].map((m) => `${m[1]}.py`);

/** The rooms memleak_agent.py loads with itself, in its order: its _ROOMS. */
function alwaysLoaded(): string[] {
  const rooms = /^_ROOMS = \(([^)]*)\)/m.exec(readFileSync(`${DIR}memleak_agent.py`, "utf8"))?.[1];
  expect(rooms).toBeDefined();
  return [...rooms!.matchAll(/"(\w+)"/g)].map((m) => `${m[1]}.py`);
}

describe("the agent's files placed in a container", () => {
  it("hold every room the agent's files load, and each placed file exists", () => {
    const python = readdirSync(DIR).filter((f) => f.endsWith(".py"));
    const loaded = new Set(python.flatMap(roomsOf));
    expect(loaded.size).toBeGreaterThanOrEqual(5); // holder, retained, graphs, cow, trace: the check reads them
    for (const room of loaded) expect(PLACED_FILES, `${room} is loaded but not placed`).toContain(room);
    for (const room of alwaysLoaded()) expect(PLACED_FILES, `${room} is loaded but not placed`).toContain(room);
    for (const file of PLACED_FILES) expect(python).toContain(file);
    // and the loaders: memleak_attach.py (run by gdb/lldb), memleak_code.py (its compiled-code cache), the agent
    for (const loader of ["memleak_attach.py", "memleak_code.py", "memleak_agent.py"])
      expect(PLACED_FILES).toContain(loader);
  });

  it("the files compiled for `watch` before the agent is loaded are its entry and the rooms it loads with itself", () => {
    const rooms = alwaysLoaded();
    expect(rooms.length).toBeGreaterThanOrEqual(4); // channel, readings, census, lifecycle: the check reads them
    expect(AGENT_CODE_FILES).toEqual(["memleak_agent.py", ...rooms]);
  });

  it("and the files memleak_code.py has compiled elsewhere under `run` are the same (its _AGENT_FILES)", () => {
    const listed = /^_AGENT_FILES = \(([^)]*)\)/m.exec(readFileSync(`${DIR}memleak_code.py`, "utf8"))?.[1];
    expect(listed).toBeDefined();
    expect([...listed!.matchAll(/"([\w.]+)"/g)].map((m) => m[1])).toEqual(AGENT_CODE_FILES);
  });
});
