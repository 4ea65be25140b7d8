/**
 * The pytest plugin's messages (test-start, test-end), checked field by field like every agent message: the plugin
 * runs inside the user's test suite, so what it sends is data to validate. A field of the wrong shape is dropped;
 * a message without a test id is not a test mark.
 */
import {
  TEST_KINDS,
  TEST_RESULTS,
  type TestKind,
  type TestMark,
  type TestMeasurement,
  type TestMetrics,
  type TestResultKind,
} from "./pytest-results.js";

/** A finite number, as JSON can carry one (messages.ts reads the agent's reports with it too). */
export const isNum = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

export const MAX_NODEID = 500;

const count = (v: unknown): number | undefined =>
  isNum(v) && Number.isInteger(v) && v >= 0 && v <= 1e6 ? v : undefined;

function metrics(v: unknown): TestMetrics | undefined {
  const m = v as Record<string, unknown> | undefined;
  if (!m || typeof m !== "object" || !isNum(m.allocatedBlocks) || !isNum(m.rssAnon)) return undefined;
  return {
    allocatedBlocks: m.allocatedBlocks,
    rssAnon: m.rssAnon,
    ...(isNum(m.mallocInUse) && { mallocInUse: m.mallocInUse }),
  };
}

function limits(v: unknown): { maxGrowth?: number; maxLeakPerCall?: number } | undefined {
  const l = v as Record<string, unknown> | undefined;
  if (!l || typeof l !== "object") return undefined;
  const out = {
    ...(isNum(l.maxGrowth) && l.maxGrowth >= 0 && { maxGrowth: l.maxGrowth }),
    ...(isNum(l.maxLeakPerCall) && l.maxLeakPerCall >= 0 && { maxLeakPerCall: l.maxLeakPerCall }),
  };
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The container a leaking test kept filling and what holds it; names from the suite, bounded. */
function testHolder(v: unknown): TestMeasurement["holder"] {
  const h = v as Record<string, unknown> | null;
  if (
    !h ||
    typeof h !== "object" ||
    typeof h.container !== "string" ||
    typeof h.found !== "boolean" ||
    !isNum(h.length)
  )
    return undefined;
  const out: NonNullable<TestMeasurement["holder"]> = {
    container: h.container.slice(0, 200),
    length: h.length,
    found: h.found,
  };
  if (typeof h.path === "string") out.path = h.path.slice(0, 500);
  if (typeof h.why === "string") out.why = h.why.slice(0, 200);
  return h.found && out.path === undefined ? undefined : out;
}

/** A parsed JSON object (already known to carry a valid pid) → a test mark, or undefined. */
export function parseTestMark(m: Record<string, unknown>, pid: number, t: number): TestMark | undefined {
  if (typeof m.nodeid !== "string" || m.nodeid.length === 0 || m.nodeid.length > MAX_NODEID) return undefined;
  const nodeid = m.nodeid;
  if (m.type === "test-start") return { type: "test-start", pid, t, nodeid };
  if (m.type !== "test-end") return undefined;
  const end: TestMark = { type: "test-end", pid, t, nodeid };
  const calls = count(m.calls);
  const warmupCalls = count(m.warmupCalls);
  if (calls !== undefined) end.calls = calls;
  if (warmupCalls !== undefined) end.warmupCalls = warmupCalls;
  const growth = metrics(m.growth);
  const perCall = metrics(m.perCall);
  if (growth) end.growth = growth;
  if (perCall) end.perCall = perCall;
  for (const k of ["growthBytes", "perCallBytes", "anonAfterTrim"] as const) if (isNum(m[k])) end[k] = m[k];
  if ((TEST_KINDS as readonly unknown[]).includes(m.kind)) end.kind = m.kind as TestKind;
  if ((TEST_RESULTS as readonly unknown[]).includes(m.result)) end.result = m.result as TestResultKind;
  const limit = limits(m.limit);
  if (limit) end.limit = limit;
  if (typeof m.message === "string") end.message = m.message.slice(0, 500);
  const holder = testHolder(m.holder);
  if (holder) end.holder = holder;
  return end;
}
