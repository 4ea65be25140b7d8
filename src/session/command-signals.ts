/**
 * Signals `run` sends to the command it launched and to the command's descendants: forwarded from memleak, or sent
 * to make them stop. Always to the whole tree, children first, so a parent cannot respawn what was just signalled.
 */
import type { HostFs } from "../system/host-fs.js";
import { processTree } from "../system/process-tree.js";
import type { CommandIO } from "../base/command-io.js";

/** Signals each of `pids` (a parent-first list) children first; one already gone is skipped. */
export function signalAll(pids: number[], signal: NodeJS.Signals): void {
  for (const pid of [...pids].reverse()) {
    try {
      process.kill(pid, signal);
    } catch {
      /* already gone */
    }
  }
}

export function killTree(fs: HostFs, pid: number, signal: NodeJS.Signals): void {
  signalAll(
    processTree(fs, pid).map((p) => p.pid),
    signal,
  );
}

/**
 * What the command's tree is sent when memleak gets its `nth` signal: the first is passed on, except a Ctrl-C on a
 * terminal, which reached the command directly (it is in memleak's foreground process group); a second kills it.
 */
export function signalToForward(nth: number, signal: NodeJS.Signals, stdinIsTTY: boolean): NodeJS.Signals | undefined {
  if (nth >= 2) return "SIGKILL";
  const terminalDeliveredIt = signal === "SIGINT" && stdinIsTTY;
  return terminalDeliveredIt ? undefined : signal;
}

/** Passes memleak's signals on to the tree under `pid` while subscribed; returns the unsubscribe function. */
export function forwardSignals(
  io: Pick<CommandIO, "onSignal" | "stdinIsTTY">,
  fs: HostFs,
  pid: () => number | undefined,
): () => void {
  let signals = 0;
  return io.onSignal((signal) => {
    signals++;
    const send = signalToForward(signals, signal, io.stdinIsTTY);
    if (send) killTree(fs, pid()!, send);
  });
}
