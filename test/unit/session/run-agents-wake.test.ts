/**
 * run-agents.ts's sleeping agents (issue 49), with real processes: a parent with the agent loaded as `run` loads it
 * (sitecustomize's environment), six workers it forks, and one child that exec'd `sleep`. The placement wakes the
 * worker that speaks for the group with the wake signal; the others stay asleep (no hello) and say why; the exec'd
 * child, which no longer catches the signal, is never sent it (it would end it) and lives on.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startAgentProgram, stopAgentPrograms } from "../../helpers/agent-program.js";
import { RunAgents } from "../../../src/session/run-agents.js";
import { HostFs } from "../../../src/system/host-fs.js";
import { readBasic } from "../../../src/system/read-process.js";

afterEach(stopAgentPrograms);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Six forked workers asleep in time.sleep (a signal interrupts it and Python runs the handler), and a `sleep` the
// parent starts through subprocess: a fork that exec'd, whose caught signals the exec reset.
const PROGRAM = `
import os, subprocess, time
kids = []
for _ in range(6):
    pid = os.fork()
    if pid == 0:
        while True:
            time.sleep(3600)
    kids.append(pid)
other = subprocess.Popen(["sleep", "60"])
print(" ".join(map(str, kids)), other.pid, flush=True)
time.sleep(60)
`;

describe("run's sleeping agents", { timeout: 40_000 }, () => {
  it("the group's worker is woken by the signal; the others sleep and say why; a child that exec'd is never sent it", async () => {
    const { ch, parent, pids } = await startAgentProgram(PROGRAM, { interval: 0.5 });
    const workers = pids.slice(0, 6);
    const execed = pids[6]!;

    const fs = new HostFs();
    const said: string[] = [];
    const agents = new RunAgents(ch, fs, { rootPid: parent.pid!, say: (l) => said.push(l) });
    const tick = () => {
      const processes = [parent.pid!, ...workers, execed].flatMap((pid) => {
        const r = readBasic(fs, pid);
        return r.ok ? [r.sample] : [];
      });
      agents.consider(processes);
    };
    for (let i = 0; i < 100 && !ch.wakeSignals.has(parent.pid!); i++) await sleep(100);
    expect(ch.wakeSignals.get(parent.pid!)).toBe(41);
    // Two ticks to read each worker's SigCgt, a third to find them still there; the wake goes at the second.
    for (let i = 0; i < 6; i++) {
      tick();
      await sleep(500);
    }
    const woken = workers.filter((w) => ch.hello.has(w));
    expect(woken, said.join("\n")).toEqual([Math.min(...workers)]);
    expect(agents.facts()).toMatchObject({
      max: 4,
      in: [
        { pid: parent.pid, reason: "watched" },
        { pid: woken[0], reason: "represents" },
      ],
      readFromProc: 5,
    });
    const missing = agents.missing();
    for (const w of workers.filter((p) => p !== woken[0]))
      expect(missing.get(w)).toMatch(/^read from \/proc only: an idle sibling of PID \d+ \(same parent and command\)/);
    // the exec'd child: not a sleeping agent, never signalled, alive
    expect(missing.has(execed)).toBe(false);
    expect(readBasic(fs, execed).ok).toBe(true);
    expect(said.join("\n")).toMatch(/agents report from 2 of 7 Python processes/);
  });
});
