/**
 * /proc/PID/status's SigCgt line: the signals the process has a handler for, a 64-bit mask in hex, bit n-1 for
 * signal n (proc(5)). `run` reads it before it sends a forked worker the signal that wakes its agent
 * (session/run-agents.ts): a signal the process does not catch would run its default action, and for a real-time
 * signal that ends the process. An exec resets every caught signal, so a worker that became another program no longer
 * shows the bit.
 */

const SIG_CGT = /^SigCgt:\s*([0-9a-fA-F]{1,16})\s*$/m;

/** Whether the status text says the process catches `signo`; undefined when it has no readable SigCgt line. */
export function catchesSignal(status: string, signo: number): boolean | undefined {
  const m = SIG_CGT.exec(status);
  if (!m || !Number.isInteger(signo) || signo < 1 || signo > 64) return undefined;
  return ((BigInt(`0x${m[1]!}`) >> BigInt(signo - 1)) & 1n) === 1n;
}
