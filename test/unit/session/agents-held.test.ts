/**
 * The agents a session's document lists (src/session/agents-held.ts): as placed at the last tick each process was seen,
 * so a program that exited with its agent in is still listed (a user's `run` said `in: []` beside its agent's holder).
 */
import { describe, expect, it } from "vitest";
import type { Placement } from "../../../src/analysis/agent-placement.js";
import { AgentsHeld, type AgentHeld } from "../../../src/session/agents-held.js";

const watched = (pid: number): AgentHeld => ({ pid, reason: "watched", siblings: 1 });
const placed = (...agents: AgentHeld[]): Placement => ({
  wanted: new Map(agents.map((a) => [a.pid, { reason: a.reason, siblings: a.siblings }])),
  passedOver: new Map(),
});
const none = placed();
const always = () => true;

describe("AgentsHeld", () => {
  it("lists the agents placed at the last tick, and keeps one whose process is gone", () => {
    const held = new AgentsHeld();
    held.update([10, 11], placed(watched(10)), always);
    expect(held.list()).toEqual([watched(10)]);
    // The program exited: the last tick saw no process, and its agent was in until then.
    held.update([], none, always);
    expect(held.list()).toEqual([watched(10)]);
  });

  it("drops an agent released or quietened while its process lives, and takes the reason it has now", () => {
    const held = new AgentsHeld();
    held.update(
      [10, 11],
      placed({ pid: 10, reason: "grows", siblings: 2 }, { pid: 11, reason: "grows", siblings: 2 }),
      always,
    );
    // 10 is still wanted but quietened (it no longer reports); 11 now speaks for the group.
    held.update(
      [10, 11],
      placed({ pid: 10, reason: "grows", siblings: 2 }, { pid: 11, reason: "represents", siblings: 2 }),
      (pid) => pid === 11,
    );
    expect(held.list()).toEqual([{ pid: 11, reason: "represents", siblings: 2 }]);
  });
});
