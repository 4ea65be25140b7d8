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
