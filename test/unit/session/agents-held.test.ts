/**
 * The agents a session's document lists (src/session/agents-held.ts): as placed at the last tick each process was seen,
 * so a program that exited with its agent in is still listed (a user's `run` said `in: []` beside its agent's holder).
 */
import { describe, expect, it } from "vitest";
import { AgentsHeld, type AgentHeld } from "../../../src/session/agents-held.js";

const watched = (pid: number): AgentHeld => ({ pid, reason: "watched", siblings: 1 });

describe("AgentsHeld", () => {
  it("lists the agents placed at the last tick, and keeps one whose process is gone", () => {
    const held = new AgentsHeld();
    held.update([10, 11], (pid) => (pid === 10 ? watched(10) : undefined));
    expect(held.list()).toEqual([watched(10)]);
    // The program exited: the last tick saw no process, and its agent was in until then.
    held.update([], () => undefined);
    expect(held.list()).toEqual([watched(10)]);
  });

  it("drops an agent released or quietened while its process lives, and takes the reason it has now", () => {
    const held = new AgentsHeld();
    held.update([10, 11], (pid) => ({ pid, reason: "grows", siblings: 2 }));
    held.update([10, 11], (pid) => (pid === 11 ? { pid, reason: "represents", siblings: 2 } : undefined));
    expect(held.list()).toEqual([{ pid: 11, reason: "represents", siblings: 2 }]);
  });
});
