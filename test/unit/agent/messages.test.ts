/** The agent's messages are data from inside someone else's program: validated field by field, never trusted. */
import { connect } from "node:net";
import { statSync, existsSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AgentChannel, MAX_LINE } from "../../../src/agent/channel.js";
import { parseAgentMessage } from "../../../src/agent/messages.js";

describe("agent messages", () => {
  it("a hello's wake signal is kept only as a real-time signal's number: memleak sends it to the program's workers", () => {
    const wake = (w: unknown) => parseAgentMessage(JSON.stringify({ type: "hello", pid: 7, wake: w }));
    expect(wake(41)).toEqual({ type: "hello", pid: 7, wake: 41 });
    expect(wake(64)).toMatchObject({ wake: 64 });
    // SIGTERM, SIGKILL, SIGUSR1, glibc's own two, a string, a fraction: never kept, so never sent
    for (const w of [15, 9, 10, 32, 33, "41", 41.5, 65, -41]) expect(wake(w)).toEqual({ type: "hello", pid: 7 });
  });

  it("keeps only known, numeric fields of a report", () => {
    const m = parseAgentMessage(
      JSON.stringify({
        type: "report",
        pid: 42,
        t: 1,
        threads: 3,
        py: { allocatedBlocks: 10, evil: "x" },
        malloc: { inUse: 5, allocator: "glibc", nested: { a: 1 } },
        extra: 1,
      }),
    );
    expect(m).toEqual({
      type: "report",
      pid: 42,
      t: 1,
      data: { threads: 3, py: { allocatedBlocks: 10 }, malloc: { inUse: 5, allocator: "glibc" } },
    });
  });

  it("a group's fields: all of 40 kept, the first 40 of 41, names that are not plain words dropped", () => {
    const fields = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, i]));
    const data = (line: string) => (parseAgentMessage(line) as { data: Record<string, unknown> }).data;
    expect(data(JSON.stringify({ type: "report", pid: 1, py: fields(40) })).py).toEqual(fields(40));
    expect(data(JSON.stringify({ type: "report", pid: 1, py: fields(41) })).py).toEqual(fields(40));
    const odd = data(
      '{"type":"report","pid":1,"py":{"__proto__":1,"bad-name":2,"ok":3},"malloc":{"allocator":"' +
        "x".repeat(201) +
        '","inUse":4}}',
    );
    expect(odd.py).toEqual({ ok: 3 });
    expect(Object.getPrototypeOf(odd.py)).toBe(Object.prototype);
    expect(odd.malloc).toEqual({ inUse: 4 });
  });

  it.each([
    "not json",
    '{"type":"report"}',
    '{"type":"report","pid":-1}',
    '{"type":"report","pid":1.5}',
    '{"type":"exec","pid":1,"code":"rm -rf /"}',
    '{"type":"trim","pid":1,"anonBefore":"a","anonAfter":1}',
    "null",
    "[]",
  ])("drops %s", (line) => {
    expect(parseAgentMessage(line)).toBeUndefined();
  });

  it("never throws on arbitrary input, and what it keeps is a known message from a real pid", () => {
    // Not only no exception: anything that comes out has a type memleak handles and a pid it can look up.
    const kept = (m: ReturnType<typeof parseAgentMessage>) => {
      if (m === undefined) return;
      expect(["hello", "report", "trace", "trim", "test-start", "test-end", "holder", "cow"]).toContain(m.type);
      expect(Number.isInteger(m.pid) && m.pid > 0, JSON.stringify(m)).toBe(true);
    };
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (s) => kept(parseAgentMessage(s))),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.jsonValue(), (v) => kept(parseAgentMessage(JSON.stringify(v)))),
      { numRuns: 500 },
    );
    // Objects shaped like messages, with the type and pid drawn from good and bad values alike.
    const shaped = fc.record({
      type: fc.constantFrom("hello", "report", "trim", "holder", "exec", 1),
      pid: fc.oneof(fc.integer(), fc.double(), fc.string()),
    });
    fc.assert(
      fc.property(shaped, (v) => kept(parseAgentMessage(JSON.stringify(v)))),
      { numRuns: 500 },
    );
  });
});

describe("agent channel", () => {
  it("lives in a 0700 directory, drops oversized lines, keeps the latest report per pid, and cleans up", async () => {
    const ch = await AgentChannel.open();
    expect(statSync(ch.dir).mode & 0o777).toBe(0o700);
    const send = (text: string) =>
      new Promise<void>((resolve) => {
        const s = connect(ch.socketPath, () => s.end(text, () => resolve()));
        s.on("error", () => resolve());
      });
    await send('{"type":"report","pid":7,"t":1,"threads":2}\n{"type":"report","pid":7,"t":2,"threads":5}\n');
    await send("x".repeat(MAX_LINE + 10)); // no newline: the connection is closed
    await send('{"type":"trim","pid":7,"t":3,"anonBefore":100,"anonAfter":40}\n');
    await ch.drain(1000);
    // drain returns at once if the channel has not yet accepted the last connection: wait for what it carried.
    const end = Date.now() + 5000;
    while ((ch.snapshot([7])?.["7"] as { trim?: unknown } | undefined)?.trim === undefined && Date.now() < end)
      await new Promise((r) => setTimeout(r, 5));
    expect(ch.latest.get(7)?.data.threads).toBe(5);
    expect(ch.snapshot([7, 8])).toEqual({ "7": { threads: 5, trim: { anonBefore: 100, anonAfter: 40 } } });
    expect(ch.dropped).toBeGreaterThanOrEqual(1);
    ch.close();
    expect(existsSync(ch.dir)).toBe(false);
  });
});

describe("the agent's holder message", () => {
  const base = {
    type: "holder",
    pid: 7,
    t: 1,
    container: "list of dict",
    length: 10,
    levels: 1,
    calls: 1,
    objects: 1,
    ms: 1,
    longestMs: 0.5,
  };

  it("keeps the chain, each hop's kind and name, and what the search cost", () => {
    const m = parseAgentMessage(
      JSON.stringify({
        ...base,
        found: true,
        path: "app.EVENTS",
        root: "module global",
        hops: [{ kind: "module global", name: "app.EVENTS", extra: 1 }],
        evil: 1,
      }),
    );
    expect(m).toEqual({
      ...base,
      found: true,
      path: "app.EVENTS",
      root: "module global",
      hops: [{ kind: "module global", name: "app.EVENTS" }],
    });
  });

  it("bounds what the program named: a path of 500 characters, 16 hops of 200", () => {
    const hops = Array.from({ length: 40 }, () => ({ kind: "attribute", name: "x".repeat(1000) }));
    const m = parseAgentMessage(JSON.stringify({ ...base, found: true, path: "p".repeat(5000), hops })) as {
      path: string;
      hops: { name: string }[];
    };
    expect(m.path).toHaveLength(500);
    expect(m.hops).toHaveLength(16);
    expect(m.hops[0]!.name).toHaveLength(200);
  });

  it("keeps where the items' tensors are off the host, a device PyTorch names and a byte count, or neither", () => {
    const m = (device: unknown, deviceBytesPerItem: unknown) =>
      parseAgentMessage(JSON.stringify({ ...base, found: false, device, deviceBytesPerItem })) as Record<
        string,
        unknown
      >;
    expect(m("cuda:0", 4194304)).toMatchObject({ device: "cuda:0", deviceBytesPerItem: 4194304 });
    for (const [device, bytes] of [
      ["cuda:0", "4194304"],
      ["cuda:0\u001b[31m", 1],
      ["x".repeat(300), 1],
      [7, 1],
      ["cuda:0", undefined],
    ]) {
      const kept = m(device, bytes);
      expect(kept.type, JSON.stringify([device, bytes])).toBe("holder");
      expect(kept).not.toHaveProperty("device");
      expect(kept).not.toHaveProperty("deviceBytesPerItem");
    }
  });

  it.each([
    ["found without a path", { found: true, hops: [{ kind: "module global", name: "a" }] }],
    ["found without hops", { found: true, path: "a", hops: [] }],
    ["a hop without a name", { found: true, path: "a", hops: [{ kind: "item" }] }],
    ["found that is not a boolean", { found: "yes" }],
    ["a cost that is not a number", { found: false, ms: "1" }],
  ])("drops a holder message with %s", (_why, fields) => {
    expect(parseAgentMessage(JSON.stringify({ ...base, ...fields }))).toBeUndefined();
  });
});

describe("the agent's gpu-sites message (its window of PyTorch's allocator history)", () => {
  const site = { file: "/srv/train.py", line: 19, name: "validate", size: 4096, count: 2 };
  const device = { device: "cuda:0", sites: [site], blocks: 2, bytes: 4096 };
  const parse = (m: Record<string, unknown>) =>
    parseAgentMessage(JSON.stringify({ type: "gpu-sites", pid: 7, t: 1, ...m }));

  it("keeps each device's sites, its counts and the request rates; a via where one is sent; nothing else", () => {
    const m = parse({
      seconds: 10,
      devices: [{ ...device, requestsPerSecondBefore: 20, requestsPerSecondDuring: 19.5, evil: 1 }],
      evil: 1,
    });
    expect(m).toEqual({
      type: "gpu-sites",
      pid: 7,
      t: 1,
      seconds: 10,
      devices: [{ ...device, requestsPerSecondBefore: 20, requestsPerSecondDuring: 19.5 }],
    });
    const via = parse({
      seconds: 10,
      devices: [{ ...device, sites: [{ ...site, via: "/torch/nn/linear.py:114 f" }] }],
    });
    expect(via).toMatchObject({ devices: [{ sites: [{ via: "/torch/nn/linear.py:114 f" }] }] });
  });

  it("bounds what the program named: 10 sites a device, 16 devices, paths of 500 and names of 200 characters", () => {
    const long = { ...site, file: "f".repeat(5000), name: "n".repeat(5000) };
    const m = parse({
      seconds: 10,
      devices: Array.from({ length: 20 }, (_, i) => ({ ...device, device: `cuda:${i}`, sites: Array(30).fill(long) })),
    }) as { devices: { sites: { file: string; name: string }[] }[] };
    expect(m.devices).toHaveLength(16);
    expect(m.devices[0]!.sites).toHaveLength(10);
    expect(m.devices[0]!.sites[0]!.file).toHaveLength(500);
    expect(m.devices[0]!.sites[0]!.name).toHaveLength(200);
  });

  it("a refusal keeps its reason alone", () => {
    expect(parse({ why: "TypeError: no" })).toEqual({
      type: "gpu-sites",
      pid: 7,
      t: 1,
      devices: [],
      why: "TypeError: no",
    });
  });

  it.each([
    ["no seconds", { devices: [device] }],
    ["a device PyTorch does not name so", { seconds: 1, devices: [{ ...device, device: "cuda:0\u001b[31m" }] }],
    ["a site without a line", { seconds: 1, devices: [{ ...device, sites: [{ ...site, line: "19" }] }] }],
    ["a negative size", { seconds: 1, devices: [{ ...device, sites: [{ ...site, size: -1 }] }] }],
    ["devices that are not a list", { seconds: 1, devices: device }],
  ])("drops a message with %s", (_why, fields) => {
    expect(parse(fields)).toBeUndefined();
  });
});

describe("the agent's gpu-oom message (what was held at a CUDA out-of-memory error)", () => {
  const oom = { device: "cuda:0", request: 128, deviceFree: 64, freeInReserve: 384, largestFreeBlock: 96 };
  const parse = (m: Record<string, unknown>) =>
    parseAgentMessage(JSON.stringify({ type: "gpu-oom", pid: 7, t: 1, ...m }));

  it("keeps the request, what was free, the allocator's numbers and the sites; nothing else", () => {
    const site = { file: "/srv/train.py", line: 9, name: "step", size: 4096, count: 1 };
    expect(parse({ ...oom, allocated: 10, reserved: 448, inactiveSplit: 5, sites: [site], evil: 1 })).toEqual({
      type: "gpu-oom",
      pid: 7,
      t: 1,
      ...oom,
      allocated: 10,
      reserved: 448,
      inactiveSplit: 5,
      sites: [site],
    });
    expect(parse({ ...oom, allocated: "10", sites: [] })).toEqual({ type: "gpu-oom", pid: 7, t: 1, ...oom });
  });

  it.each([
    ["no request", { ...oom, request: undefined }],
    ["a device PyTorch does not name so", { ...oom, device: "GPU-0" }],
    ["a negative free size", { ...oom, deviceFree: -1 }],
  ])("drops a message with %s", (_why, fields) => {
    expect(parse(fields)).toBeUndefined();
  });

  it("keeps the numbers of a message whose sites are malformed, without the sites", () => {
    expect(parse({ ...oom, sites: [{ file: "x" }] })).toEqual({ type: "gpu-oom", pid: 7, t: 1, ...oom });
  });
});

describe("the pytest plugin's holder of a leaking test", () => {
  const end = (holder: unknown) =>
    parseAgentMessage(JSON.stringify({ type: "test-end", pid: 7, t: 1, nodeid: "t.py::t", kind: "leak", holder }));

  it("keeps the container, its length and the path, bounded", () => {
    expect(end({ container: "list of bytes", length: 7, found: true, path: "m._KEPT", evil: 1 })).toMatchObject({
      holder: { container: "list of bytes", length: 7, found: true, path: "m._KEPT" },
    });
    expect(
      (end({ container: "x", length: 1, found: true, path: "p".repeat(900) }) as { holder: { path: string } }).holder
        .path,
    ).toHaveLength(500);
  });

  it.each([
    ["found without a path", { container: "x", length: 1, found: true }],
    ["no length", { container: "x", found: false }],
  ])("drops a holder with %s, keeping the test's end", (_why, holder) => {
    const m = end(holder) as Record<string, unknown>;
    expect(m.type).toBe("test-end");
    expect(m.holder).toBeUndefined();
  });
});

describe("the agent's cow message (what a forked worker copied)", () => {
  const object = {
    name: "the DataLoader's dataset (TextDataset).samples",
    what: "list of str",
    length: 400000,
    bytes: 45203072,
    itemsPrivate: 21420000,
    trackedPrivate: 0,
    storagePrivate: 0,
    sampled: true,
  };
  const cow = (o: Record<string, unknown>) => parseAgentMessage(JSON.stringify({ type: "cow", pid: 9, t: 3, ...o }));

  it("keeps the containers and the look's cost; drops unknown fields", () => {
    expect(
      cow({ objects: [{ ...object, evil: "x" }], frozen: 0, walkBytes: 618496, ms: 22.8, cpuMs: 22.7, x: 1 }),
    ).toEqual({ type: "cow", pid: 9, t: 3, objects: [object], frozen: 0, walkBytes: 618496, ms: 22.8, cpuMs: 22.7 });
  });

  it("bounds names and the number of containers", () => {
    const m = cow({ objects: Array.from({ length: 20 }, () => ({ ...object, name: "n".repeat(900) })) }) as {
      objects: { name: string }[];
    };
    expect(m.objects).toHaveLength(8);
    expect(m.objects[0]!.name).toHaveLength(200);
  });

  it.each([
    ["no objects", {}],
    ["a negative size", { objects: [{ ...object, itemsPrivate: -1 }] }],
    ["a container without a name", { objects: [{ ...object, name: "" }] }],
    ["a size that is a string", { objects: [{ ...object, bytes: "45203072" }] }],
  ])("drops a cow message with %s", (_why, fields) => expect(cow(fields)).toBeUndefined());

  it("says why the worker could not look", () => {
    expect(cow({ objects: [], why: "pagemap cannot be read" })).toMatchObject({
      objects: [],
      why: "pagemap cannot be read",
    });
  });
});
