/**
 * The agent's socket (agent/channel.ts) takes what agents send and nothing else: one pid per connection, and a
 * bounded number of connections. Real Unix sockets.
 */
import { createConnection, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { AgentChannel, MAX_AGENTS } from "../../../src/agent/channel.js";

const hello = (pid: number) => JSON.stringify({ type: "hello", pid, version: [3, 11], t: 1 }) + "\n";
const report = (pid: number) => JSON.stringify({ type: "report", pid, t: 2, data: { malloc: { inUse: 1 } } }) + "\n";
const connect = (path: string) =>
  new Promise<Socket>((resolve, reject) => {
    const s = createConnection(path, () => resolve(s));
    s.once("error", reject);
  });
/**
 * Waits until the channel has done what the test waits for (at most 5 s, then the test's own expectations say what
 * is missing): the socket delivers asynchronously, and a fixed pause is either too long or, on a loaded machine, short.
 */
async function until(done: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await done()) && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
}

let ch: AgentChannel | undefined;
afterEach(() => ch?.close());

describe("the agent socket", () => {
  it("a connection speaks for the first pid it names; messages for another pid are dropped", async () => {
    ch = await AgentChannel.open();
    const s = await connect(ch.socketPath);
    s.write(hello(4242) + report(4242) + hello(777) + report(777));
    await until(() => ch!.dropped === 2);
    expect([...ch.hello]).toEqual([4242]);
    expect([...ch.latest.keys()]).toEqual([4242]);
    expect(ch.dropped).toBe(2);
    s.destroy();
  });

  it("release: the agent of one pid gets its goodbye and its connection ends; its last report is forgotten", async () => {
    ch = await AgentChannel.open();
    const kept = await connect(ch.socketPath);
    const released = await connect(ch.socketPath);
    let said = "";
    released.setEncoding("utf8");
    released.on("data", (d: string) => (said += d));
    const ended = new Promise<void>((r) => released.once("end", () => r()));
    kept.write(hello(100) + report(100));
    released.write(hello(101) + report(101));
    await until(() => ch!.latest.size === 2);
    expect(ch.connected(101)).toBe(true);
    expect(ch.release(101)).toBe(true);
    await ended;
    expect(said).toBe("bye\n");
    expect(ch.connected(101)).toBe(false);
    expect(ch.hello.has(101)).toBe(false);
    expect(Object.keys(ch.snapshot([100, 101]) ?? {})).toEqual(["100"]);
    // the other agent is still connected; a pid with no connection has nothing to release
    expect(ch.connected(100)).toBe(true);
    expect(ch.release(555)).toBe(false);
    kept.destroy();
    released.destroy();
  });

  it("last words: the reports no sample carried, with when each was sent for a process that has exited", async () => {
    ch = await AgentChannel.open();
    const s = await connect(ch.socketPath);
    s.write(hello(4242) + report(4242));
    await until(() => ch!.latest.has(4242));
    // Sent from atexit (t 2, the agent's clock): the series leave out samples after it (the interpreter's teardown).
    expect(ch.unsampled([4242], () => true)?.["4242"]).toMatchObject({ sentAt: 2 });
    // A process still running (a watch that ended first): its report is no last word, and carries no time.
    const again = await AgentChannel.open();
    const s2 = await connect(again.socketPath);
    s2.write(hello(4242) + report(4242));
    await until(() => again.latest.has(4242));
    expect(again.unsampled([4242], () => false)?.["4242"]).not.toHaveProperty("sentAt");
    s.destroy();
    s2.destroy();
    again.close();
  });

  it("run --trace-python's periodic sites: each replaces the last, and none replaces the final one sent at exit", async () => {
    ch = await AgentChannel.open();
    const s = await connect(ch.socketPath);
    const trace = (t: number, line: number, interim: boolean) =>
      JSON.stringify({
        type: "trace",
        pid: 4242,
        t,
        sites: [{ file: "a.py", line, sizeDiff: 10, countDiff: 1, size: 10 }],
        traced: 1,
        tracedPeak: 1,
        ...(interim && { interim: true }),
      }) + "\n";
    s.write(hello(4242) + trace(1, 1, true) + trace(2, 2, true));
    await until(() => ch!.traces.get(4242)?.sites[0]?.line === 2);
    expect(ch.traces.get(4242)).toMatchObject({ interim: true, sites: [{ line: 2 }] });
    // The agent's thread sent one more while the process exited; a later line on the same socket (another hello)
    // says when both were read.
    s.write(trace(3, 3, false) + trace(4, 4, true) + hello(4343));
    await until(() => ch!.hello.has(4343));
    expect(ch.traces.get(4242)?.sites[0]?.line).toBe(3);
    expect(ch.traces.get(4242)?.interim).toBeUndefined();
    s.destroy();
  });

  it("keeps the pytest plugin's test marks in order and hands each to the recording once", async () => {
    ch = await AgentChannel.open();
    const s = await connect(ch.socketPath);
    const mark = (type: string, nodeid: unknown, t: number) => JSON.stringify({ type, pid: 4242, t, nodeid }) + "\n";
    s.write(
      hello(4242) + mark("test-start", "a.py::t", 1) + mark("test-end", "a.py::t", 2) + mark("test-start", 42, 3),
    );
    await until(() => ch!.dropped === 1); // the last line read
    expect(ch.testMarks.map((m) => [m.type, m.nodeid, m.t])).toEqual([
      ["test-start", "a.py::t", 1],
      ["test-end", "a.py::t", 2],
    ]);
    expect(ch.dropped).toBe(1); // a test id that is not a string
    expect(ch.takeTestMarks()).toHaveLength(2);
    s.write(mark("test-start", "a.py::u", 4));
    await until(() => ch!.testMarks.length === 3); // kept whole; takeTestMarks hands out what is new
    expect(ch.takeTestMarks().map((m) => m.nodeid)).toEqual(["a.py::u"]);
    expect(ch.takeTestMarks()).toEqual([]);
    s.destroy();
  });

  it(`takes at most ${MAX_AGENTS} connections at once`, async () => {
    ch = await AgentChannel.open();
    const sockets: Socket[] = [];
    for (let i = 0; i < MAX_AGENTS + 50; i++)
      sockets.push(await connect(ch.socketPath).catch(() => createConnection("/nonexistent")));
    const server = (ch as unknown as { server: { getConnections(cb: (e: Error | null, n: number) => void): void } })
      .server;
    const connections = () => new Promise<number>((r) => server.getConnections((_e, n) => r(n)));
    // Settled once every connection is either held by the channel or closed by it.
    await until(async () => (await connections()) + sockets.filter((s) => s.closed).length >= sockets.length, 10_000);
    const open = await connections();
    expect(open).toBeLessThanOrEqual(MAX_AGENTS);
    expect(open).toBeGreaterThan(MAX_AGENTS - 5);
    for (const s of sockets) s.destroy();
  });
});
