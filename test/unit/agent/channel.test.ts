/**
 * The agent's socket (agent/channel.ts) takes what agents send and nothing else: one pid per connection, and a
 * bounded number of connections. Real Unix sockets.
 */
import { createConnection, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { AgentChannel, MAX_AGENTS } from "../../../src/agent/channel.js";

const hello = (pid: number) => JSON.stringify({ type: "hello", pid, version: [3, 11], t: 1 }) + "\n";
const report = (pid: number) => JSON.stringify({ type: "report", pid, t: 2, data: { malloc: { inUse: 1 } } }) + "\n";
const connect = (path: string) => new Promise<Socket>((resolve, reject) => { const s = createConnection(path, () => resolve(s)); s.once("error", reject); });
const settle = () => new Promise((r) => setTimeout(r, 100));

let ch: AgentChannel | undefined;
afterEach(() => ch?.close());

describe("the agent socket", () => {
  it("a connection speaks for the first pid it names; messages for another pid are dropped", async () => {
    ch = await AgentChannel.open();
    const s = await connect(ch.socketPath);
    s.write(hello(4242) + report(4242) + hello(777) + report(777));
    await settle();
    expect([...ch.hello]).toEqual([4242]);
    expect([...ch.latest.keys()]).toEqual([4242]);
    expect(ch.dropped).toBe(2);
    s.destroy();
  });

  it("run --trace-python's periodic sites: each replaces the last, and none replaces the final one sent at exit", async () => {
    ch = await AgentChannel.open();
    const s = await connect(ch.socketPath);
    const trace = (t: number, line: number, interim: boolean) =>
      JSON.stringify({ type: "trace", pid: 4242, t, sites: [{ file: "a.py", line, sizeDiff: 10, countDiff: 1, size: 10 }], traced: 1, tracedPeak: 1, ...(interim && { interim: true }) }) + "\n";
    s.write(hello(4242) + trace(1, 1, true) + trace(2, 2, true));
    await settle();
    expect(ch.traces.get(4242)).toMatchObject({ interim: true, sites: [{ line: 2 }] });
    s.write(trace(3, 3, false) + trace(4, 4, true)); // the agent's thread sent one more while the process exited
    await settle();
    expect(ch.traces.get(4242)?.sites[0]?.line).toBe(3);
    expect(ch.traces.get(4242)?.interim).toBeUndefined();
    s.destroy();
  });

  it("keeps the pytest plugin's test marks in order and hands each to the recording once", async () => {
    ch = await AgentChannel.open();
    const s = await connect(ch.socketPath);
    const mark = (type: string, nodeid: unknown, t: number) => JSON.stringify({ type, pid: 4242, t, nodeid }) + "\n";
    s.write(hello(4242) + mark("test-start", "a.py::t", 1) + mark("test-end", "a.py::t", 2) + mark("test-start", 42, 3));
    await settle();
    expect(ch.testMarks.map((m) => [m.type, m.nodeid, m.t])).toEqual([
      ["test-start", "a.py::t", 1],
      ["test-end", "a.py::t", 2],
    ]);
    expect(ch.dropped).toBe(1); // a test id that is not a string
    expect(ch.takeTestMarks()).toHaveLength(2);
    s.write(mark("test-start", "a.py::u", 4));
    await settle();
    expect(ch.takeTestMarks().map((m) => m.nodeid)).toEqual(["a.py::u"]);
    expect(ch.takeTestMarks()).toEqual([]);
    s.destroy();
  });

  it(`takes at most ${MAX_AGENTS} connections at once`, async () => {
    ch = await AgentChannel.open();
    const sockets: Socket[] = [];
    for (let i = 0; i < MAX_AGENTS + 50; i++) sockets.push(await connect(ch.socketPath).catch(() => createConnection("/nonexistent")));
    await settle();
    const server = (ch as unknown as { server: { getConnections(cb: (e: Error | null, n: number) => void): void } }).server;
    const open = await new Promise<number>((r) => server.getConnections((_e, n) => r(n)));
    expect(open).toBeLessThanOrEqual(MAX_AGENTS);
    expect(open).toBeGreaterThan(MAX_AGENTS - 5);
    for (const s of sockets) s.destroy();
  });
});
