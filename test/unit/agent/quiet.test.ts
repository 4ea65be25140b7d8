/**
 * `run`'s quiet agents (issue 49; memleak_agent.py's "quiet" and "report" words, channel.ts quieten/wake): a worker
 * forked under `run` says hello and waits, quiet, for memleak's word; a quiet agent sends nothing and its thread never
 * wakes (its voluntary context switches do not move), and one word brings it back with a fresh report. A real
 * interpreter with the agent loaded as `run` loads it (sitecustomize), a real fork, a real socket.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { startAgentProgram, stopAgentPrograms } from "../../helpers/agent-program.js";
import { catchesSignal } from "../../../src/probes/signal-mask.js";

afterEach(stopAgentPrograms);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(done: () => boolean, ms = 8000): Promise<void> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error("timed out");
    await sleep(20);
  }
}

/** The agent's thread in pid (named memleak-agent by prctl): its voluntary context switches, one per wake-up. */
function agentWakeups(pid: number): number {
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    if (readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim() !== "memleak-agent") continue;
    return Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/task/${tid}/status`, "utf8"))![1]);
  }
  throw new Error(`no agent thread in PID ${pid}`);
}

// A parent that forks one child; both allocate a little every 0.2 s, so that no report is the same as the last (an
// unchanged report is not sent) and a report that does not come is the agent's silence, not the program's.
const PROGRAM = `
import os, sys, time
child = os.fork()
if child:
    print(child, flush=True)
kept = []
while True:
    kept.append([0] * 50)
    time.sleep(0.2)
`;

describe("run's quiet agents", { timeout: 30_000 }, () => {
  it("a forked worker's agent waits quiet; woken, it reports; quietened, it stops and its thread sleeps", async () => {
    // Without the wake signal (turned off, or a program that had taken it): each forked worker connects, quiet.
    const { ch, parent, pids } = await startAgentProgram(PROGRAM, {
      interval: 0.25,
      env: { MEMLEAK_WAKE_SIGNAL: "0" },
    });
    const child = pids[0]!;

    // the parent reports; the child said hello, quiet, and sends nothing
    await until(() => ch.hello.has(child) && ch.latest.has(parent.pid!));
    expect(ch.quiet.has(child)).toBe(true);
    const before = agentWakeups(child);
    await sleep(1500);
    expect(ch.latest.has(child)).toBe(false);
    expect(agentWakeups(child) - before).toBe(0);

    // a word, and it reports at once, at its interval after that
    expect(ch.wake(child)).toBe(true);
    await until(() => ch.latest.has(child), 2000);
    const first = ch.latest.get(child)!;
    await until(() => ch.latest.get(child) !== first, 2000);

    // quiet again: its last report forgotten, no new one, no wake-up
    expect(ch.quieten(child)).toBe(true);
    expect(ch.quieten(child)).toBe(false); // quiet already
    expect(ch.latest.has(child)).toBe(false);
    await sleep(300); // a report already on its way when the word left
    ch.latest.delete(child);
    const quietFrom = agentWakeups(child);
    await sleep(1500);
    expect(ch.latest.has(child)).toBe(false);
    expect(agentWakeups(child) - quietFrom).toBe(0);
    // the parent was never told anything: it reports all along
    expect(ch.quiet.has(parent.pid!)).toBe(false);
  });

  it("a worker forked where the wake signal is installed sleeps, unconnected and threadless, until it is sent", async () => {
    const { ch, parent, pids } = await startAgentProgram(PROGRAM, { interval: 0.25 });
    const child = pids[0]!;

    // the parent says which signal (SIGRTMIN+7) and reports; the child says nothing and runs no thread of ours
    await until(() => ch.latest.has(parent.pid!));
    const signo = ch.wakeSignals.get(parent.pid!)!;
    expect(signo).toBe(41);
    await sleep(1500);
    expect(ch.hello.has(child)).toBe(false);
    const threads = () =>
      readdirSync(`/proc/${child}/task`).map((t) => readFileSync(`/proc/${child}/task/${t}/comm`, "utf8").trim());
    expect(threads()).not.toContain("memleak-agent");
    // it inherited the handler: its status says it catches the signal, so sending it cannot end it
    expect(catchesSignal(readFileSync(`/proc/${child}/status`, "utf8"), signo)).toBe(true);

    // sent, it connects, says hello (not quiet) and reports at its interval
    process.kill(child, signo);
    await until(() => ch.hello.has(child) && ch.latest.has(child), 4000);
    expect(ch.quiet.has(child)).toBe(false);
    expect(threads()).toContain("memleak-agent");
    const first = ch.latest.get(child)!;
    await until(() => ch.latest.get(child) !== first, 2000);
    // sent again, nothing new: the agent is awake already (one connection, the same thread)
    process.kill(child, signo);
    await sleep(500);
    expect(threads().filter((t) => t === "memleak-agent")).toHaveLength(1);
    expect(ch.connected(child)).toBe(true);
  });

  // A sleeping worker asks for a signal at its parent's death (PR_SET_PDEATHSIG), to stop with a killed memleak.
  // The kernel keeps that setting across an exec and sends it when the forking *thread* ends: with the wake signal (a
  // real-time one, whose default action ends a process) a program the worker fork-exec'd from a short-lived thread
  // was killed at once (an outside review: signal 41 at 0.00 s). SIGURG's default is to be ignored.
  it("a sleeping worker's parent-death signal harms no program it starts, and with memleak alive wakes nothing", async () => {
    const { ch, parent, pids } = await startAgentProgram(
      `
import os, sys, threading, time
r, w = os.pipe()
worker = os.fork()
if worker == 0:
    def start_sleep():
        child = os.fork()
        if child == 0:
            os.execvp("sleep", ["sleep", "30"])
        os.write(w, b"%d " % child)
    t = threading.Thread(target=start_sleep)
    t.start()
    t.join()  # the thread that forked the sleep has ended
    while True:
        time.sleep(0.2)
sleeper = int(os.read(r, 64).split()[0])
print(worker, sleeper, flush=True)
time.sleep(1.5)
os._exit(0)  # the worker's parent dies while memleak (this test) is alive
`,
      { interval: 0.25 },
    );
    const [worker, sleeper] = pids as [number, number];
    const status = (pid: number) => readFileSync(`/proc/${pid}/status`, "utf8");
    // the exec'd program runs on, its parent-death signal ignored (SIGURG: bit 23 of SigIgn is not asked of it)
    await sleep(800);
    expect(status(sleeper)).toMatch(/^State:\s+S/m);
    // the worker's parent has gone: memleak is alive, so the worker neither stops nor wakes (no hello, no thread)
    await until(() => !existsSync(`/proc/${parent.pid!}`) || /^State:\s+Z/m.test(status(parent.pid!)), 5000);
    await sleep(1000);
    expect(status(worker)).toMatch(/^State:\s+S/m);
    expect(ch.hello.has(worker)).toBe(false);
    expect(status(sleeper)).toMatch(/^State:\s+S/m);
  });

  it("under run --try trim no worker sleeps: each one's agent trims on its own thread", async () => {
    const { ch, parent, pids } = await startAgentProgram(PROGRAM, {
      interval: 0.25,
      env: { MEMLEAK_TRIM_EVERY: "30" },
    });
    const child = pids[0]!;
    await until(() => ch.hello.has(child) && ch.latest.has(parent.pid!));
    expect(ch.wakeSignals.has(parent.pid!)).toBe(false);
    expect(ch.quiet.has(child)).toBe(true);
  });
});
