/** memleak's Prometheus client on a real socket: what it asks, and what it says when the server cannot be read. */
import { afterEach, describe, expect, it } from "vitest";
import { MemleakError } from "../../../src/base/errors.js";
import {
  chooseStep,
  MAX_POINTS_PER_SERIES,
  queryRange,
  queryRangeUrl,
  serverText,
} from "../../../src/prometheus/query-range.js";
import { closedPort, replayServer } from "../../helpers/replay-server.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function rejection(p: Promise<unknown>): Promise<MemleakError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof MemleakError) return err;
    throw err;
  }
  throw new Error("resolved");
}

describe("chooseStep", () => {
  it.each([
    [6 * 3600, 15, 15, false],
    [1800, 1, 1, false],
    [3600, 1, 2, true],
    // 30 days at 15 s would be 172,801 points: one every 1,297 s keeps 2,000
    [30 * 86400, 15, 1297, true],
    [86400, 1, 44, true],
  ])("range %ds at step %ds → %ds (raised: %s)", (range, step, expected, raised) => {
    const c = chooseStep(range, step);
    expect(c).toEqual({ step: expected, raised });
    expect(range / c.step + 1).toBeLessThanOrEqual(MAX_POINTS_PER_SERIES);
  });
});

describe("the request", () => {
  it("keeps a path prefix and hides credentials in messages", () => {
    const u = queryRangeUrl({ url: new URL("http://h:9090/prometheus"), query: "up", start: 1, end: 2, step: 1 });
    expect(u.pathname).toBe("/prometheus/api/v1/query_range");
    expect(serverText(new URL("http://user:secret@h:9090/"))).toBe("http://h:9090");
  });

  it("is a form POST of query, start, end and step; credentials in the URL become basic auth", async () => {
    const server = await replayServer("prometheus/empty.json");
    closers.push(server.close);
    const url = new URL(server.url.replace("http://", "http://ops:p%40ss@"));
    const r = await queryRange({ url, query: 'container_memory_rss{pod="a b"}', start: 100, end: 200, step: 15 });
    expect(r.series).toEqual([]);
    const [asked] = server.asked;
    expect(asked).toMatchObject({ method: "POST", url: "/api/v1/query_range" });
    expect(Object.fromEntries(new URLSearchParams(asked!.body))).toEqual({
      query: 'container_memory_rss{pod="a b"}',
      start: "100",
      end: "200",
      step: "15",
    });
    expect(asked!.headers.authorization).toBe(`Basic ${Buffer.from("ops:p@ss").toString("base64")}`);
  });
});

describe("what cannot be read", () => {
  it("a server that is not there: exit 3, with the system's reason", async () => {
    const port = await closedPort();
    const err = await rejection(
      queryRange({ url: new URL(`http://127.0.0.1:${port}`), query: "up", start: 1, end: 2, step: 1 }),
    );
    expect(err.exitCode).toBe(3);
    expect(err.message).toMatch(
      new RegExp(`^cannot read from Prometheus at http://127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`),
    );
  });

  it("a port fetch refuses (9, the fetch standard's blocked ports): exit 3, saying that it is fetch's rule", async () => {
    // undici says only "bad port", as if the URL were malformed; nothing was asked of the port.
    const err = await rejection(
      queryRange({ url: new URL("http://127.0.0.1:9"), query: "up", start: 1, end: 2, step: 1 }),
    );
    expect(err.exitCode).toBe(3);
    expect(err.message).toBe(
      "cannot read from Prometheus at http://127.0.0.1:9: Node's fetch does not connect to port 9, one the fetch " +
        "standard blocks (as browsers do); serve Prometheus on another port (its own is 9090)",
    );
  });

  it("Prometheus's refusal of a bad query (its captured answer, HTTP 400): exit 2 with its words", async () => {
    const server = await replayServer("prometheus/error-bad-query.json", 400);
    closers.push(server.close);
    const err = await rejection(queryRange({ url: new URL(server.url), query: "sum(", start: 1, end: 2, step: 1 }));
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain("parse error: unclosed left parenthesis");
  });
});
