/**
 * A process's agent columns by any name. The series keep every field an agent sends, declared or not (a recording
 * from another version's agent), and the series builder's own tests use made-up fields ("a", "top"), which the
 * declared names (src/agent/report-fields.ts) do not allow as keys.
 */
import type { AgentColumns, AgentTexts } from "../../src/agent/report-fields.js";

export const agentOf = <C>(ps: { agent: AgentColumns<C> }) => ps.agent as Record<string, C | undefined>;

export const textOf = (ps: { agentText: AgentTexts }) => ps.agentText as Record<string, string | undefined>;
