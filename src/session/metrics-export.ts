/**
 * `--metrics [host:]port` for run and watch: the exporter's gauges and its HTTP server, loaded only when asked for
 * (prom-client and node:http stay out of every other command, and out of --help).
 */
import type { ListenAddress } from "../export/listen-address.js";
import type { VerdictDocument } from "../analysis/types.js";
import type { Sample } from "../system/sample.js";
import type { CommandIO } from "../base/command-io.js";

/** What the session tells the exporter: each sample with the verdict so far, then the final verdict. */
export interface MetricsSink {
  update(sample: Sample, soFar: VerdictDocument | undefined): void;
  setVerdict(doc: VerdictDocument): void;
  cgroupPath: string | undefined;
  /** `watch` of a container: host pid → pid inside, exported beside the host pid. */
  pidsInside: ReadonlyMap<number, number> | undefined;
}

export interface MetricsExport {
  sink: MetricsSink;
  close(): Promise<void>;
}

export async function openMetricsExport(
  at: ListenAddress | undefined,
  io: CommandIO,
): Promise<MetricsExport | undefined> {
  if (!at) return undefined;
  const [{ SessionMetrics }, { startMetricsServer }] = await Promise.all([
    import("../export/session-metrics.js"),
    import("../export/metrics-server.js"),
  ]);
  const sink = new SessionMetrics();
  const server = await startMetricsServer(sink, at.host, at.port, (line) => io.stderr(line));
  const host = server.address.host.includes(":") ? `[${server.address.host}]` : server.address.host;
  io.stderr(`memleak: serving metrics on http://${host}:${server.address.port}/metrics\n`);
  return { sink, close: () => server.close() };
}
