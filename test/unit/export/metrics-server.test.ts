/** The /metrics endpoint on a real socket: formats by Accept, other paths, and a port already taken. */
import { afterEach, describe, expect, it } from "vitest";
import { startMetricsServer, type MetricsServer } from "../../../src/export/metrics-server.js";
import { SessionMetrics } from "../../../src/export/session-metrics.js";
import { MemleakError } from "../../../src/base/errors.js";

const servers: MetricsServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function started(): Promise<{ base: string; server: MetricsServer }> {
  const server = await startMetricsServer(new SessionMetrics(), "127.0.0.1", 0);
  servers.push(server);
  return { base: `http://127.0.0.1:${server.address.port}`, server };
}

describe("the metrics server", () => {
  it("serves Prometheus's text format, and OpenMetrics to a scraper that asks for it", async () => {
    const { base } = await started();
    const plain = await fetch(`${base}/metrics`);
    expect(plain.status).toBe(200);
    expect(plain.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(await plain.text()).toContain("# TYPE memleak_self_cpu_seconds_total counter");
    // What Prometheus 2.x sends.
    const om = await fetch(`${base}/metrics`, {
      headers: {
        accept:
          "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
      },
    });
    expect(om.headers.get("content-type")).toContain("application/openmetrics-text; version=1.0.0");
    expect((await om.text()).trimEnd().endsWith("# EOF")).toBe(true);
  });

  it("answers 404 elsewhere and 405 to other methods", async () => {
    const { base } = await started();
    expect((await fetch(`${base}/`)).status).toBe(404);
    expect((await fetch(`${base}/metrics`, { method: "POST" })).status).toBe(405);
  });

  it("a port in use is one line and exit 3", async () => {
    const { server } = await started();
    const err = await startMetricsServer(new SessionMetrics(), "127.0.0.1", server.address.port).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(MemleakError);
    expect((err as MemleakError).exitCode).toBe(3);
    expect((err as MemleakError).message).toBe(
      `--metrics 127.0.0.1:${server.address.port}: cannot listen: the port is in use (choose another, or 0 for any free one)`,
    );
  });

  it("an address this machine does not have is named", async () => {
    const err = await startMetricsServer(new SessionMetrics(), "192.0.2.1", 0).catch((e: unknown) => e);
    expect((err as MemleakError).message).toBe("--metrics 192.0.2.1:0: cannot listen: no such address on this machine");
  });
});
