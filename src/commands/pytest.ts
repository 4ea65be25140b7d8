/**
 * `memleak pytest [options] -- [pytest args…]`: `memleak run` of `<python> -m pytest -p memleak_pytest …`, with the
 * plugin's settings in MEMLEAK_PYTEST_* variables. Everything of run holds (the cgroup, the agent, the whole-process
 * verdict, recordings, gates, --json, --html); the plugin adds each test's results, which the session puts in the
 * document and whose limits make the test-limits gate. pytest's own exit code passes through as run's does, and a
 * failed test-limits gate makes it 1.
 */
import { crashedTest } from "../analysis/pytest-verdicts.js";
import { safeText } from "../base/safe-text.js";
import type { CommandIO, CommandResult } from "../base/command-io.js";
import { runCommand, type RunOptions } from "./run.js";

/** Bytes as the plugin's int() reads them: String(1e32) is "1e+32", which int() refuses (pytest's INTERNALERROR). */
const integerText = (bytes: number) => BigInt(Math.round(bytes)).toString();
import type { SessionOptions } from "../session/session.js";

/** How the plugin measures each test (it reads them from MEMLEAK_PYTEST_* variables). */
export interface PytestFlags {
  repeat: number;
  warmupCalls: number;
  /** Default per-test limits, bytes; a test's marker overrides them. */
  maxTestGrowth: number | undefined;
  maxLeakPerCall: number | undefined;
}

export interface PytestOptions extends PytestFlags, SessionOptions {
  pytestArgs: string[];
  python: string;
  isolate: boolean;
  /** The agent options run takes (--no-agent is refused: the plugin needs the agent). */
  tracePython: boolean;
  trimProbe: boolean;
}

/** The plugin's module name: src/agent/python/memleak_pytest.py, on PYTHONPATH with the agent. */
export const PLUGIN = "memleak_pytest";

/** The plugin's settings, as it reads them. */
export function pluginEnv(o: PytestFlags): Record<string, string> {
  return {
    MEMLEAK_PYTEST_REPEAT: String(o.repeat),
    MEMLEAK_PYTEST_WARMUP_CALLS: String(o.warmupCalls),
    ...(o.maxTestGrowth !== undefined && { MEMLEAK_PYTEST_MAX_GROWTH: integerText(o.maxTestGrowth) }),
    ...(o.maxLeakPerCall !== undefined && { MEMLEAK_PYTEST_MAX_LEAK_PER_CALL: integerText(o.maxLeakPerCall) }),
  };
}

export function pytestArgv(o: Pick<PytestOptions, "python" | "pytestArgs">): string[] {
  return [o.python, "-m", "pytest", "-p", PLUGIN, ...o.pytestArgs];
}

export async function pytestCommand(o: PytestOptions, io: CommandIO): Promise<CommandResult> {
  const run: RunOptions = { ...o, command: pytestArgv(o), agent: true, extraEnv: pluginEnv(o) };
  const { exitCode, doc, targetExit } = await runCommand(run, io);
  const crashed = doc.tests && crashedTest(doc.tests);
  if (crashed) {
    const how = targetExit.signal ? `was killed by ${targetExit.signal}` : `exited (code ${targetExit.code})`;
    io.stderr(`memleak: the interpreter ${how} while running ${safeText(crashed.nodeid)}\n`);
  } else if (!doc.tests && targetExit.code === 1) {
    io.stderr(
      `memleak: pytest ran no test under ${safeText(o.python)} (is pytest installed for it? --python chooses the interpreter)\n`,
    );
  }
  return { exitCode };
}
