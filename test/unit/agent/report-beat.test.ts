/**
 * The agent reports on the wall clock's whole intervals (memleak_lifecycle.py `_until_next_beat`), so that the agents of a
 * tree report at the same moment and memleak reads them in one wake-up (issue 32: three times cheaper on 64 agents).
 * Run in a real interpreter, its reports read from a real socket.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { REPO } from "../../helpers/fixtures.js";

const AGENT_DIR = `${REPO}src/agent/python`;

function python(body: string): unknown {
  const code = `import json, sys, time\nsys.path.insert(0, ${JSON.stringify(AGENT_DIR)})\nimport memleak_agent as agent\n${body}`;
  return JSON.parse(execFileSync("python3", ["-c", code], { encoding: "utf8" }));
}

describe("when the agent reports", () => {
  it("at the next whole interval of the wall clock, at least half an interval ahead", () => {
    const waits = python(`
out = []
for interval in (1.0, 0.5, 2.0, 0.05):
    now = time.time()
    wait = agent.lifecycle._until_next_beat(interval)
    out.append([interval, wait, (now + wait) / interval])
print(json.dumps(out))`) as [number, number, number][];
    for (const [interval, wait, beats] of waits) {
      expect(wait).toBeGreaterThanOrEqual(interval / 2);
      expect(wait).toBeLessThanOrEqual(1.5 * interval + 1e-6);
      // (now + wait) is a whole number of intervals, to the clock's reading between the two calls.
      expect(Math.abs(beats - Math.round(beats))).toBeLessThan(0.01 / interval);
    }
  });

  it("an agent started half-way through a second reports at the whole seconds", () => {
    // Started at x.5 s, an agent that waited a whole interval between reports would report at every x.5 s.
    const phases = python(`
import socket, threading, os
a, b = socket.socketpair()
t0 = time.time()
landed = []
def reader():
    buf = b""
    while len(landed) < 6:
        buf += b.recv(65536)
        while b"\\n" in buf:
            line, buf = buf.split(b"\\n", 1)
            if json.loads(line)["type"] == "report":
                landed.append(time.time() % 1.0)
threading.Thread(target=reader, daemon=True).start()
# A program that keeps allocating, so that no report is the same as the last (an unchanged one is not sent)
kept = []
def busy():
    while True:
        kept.append([0] * 10)
        time.sleep(0.05)
threading.Thread(target=busy, daemon=True).start()
agent.channel._conn.sock = a
agent.channel._conn.pid = os.getpid()
time.sleep((0.5 - time.time() % 1.0) % 1.0)
stop = threading.Event()
threading.Thread(target=agent.lifecycle._loop, args=(1.0, stop, a), daemon=True).start()
while len(landed) < 6 and time.time() - t0 < 10:
    time.sleep(0.05)
stop.set()
print(json.dumps(landed))`) as number[];
    expect(phases.length).toBe(6);
    // Each report at the whole second (the report's own work, ~ms, after it).
    for (const p of phases) expect(Math.min(p, 1 - p)).toBeLessThan(0.2);
  });
});
