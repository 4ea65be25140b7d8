/**
 * The HTTP side of `--metrics`: GET /metrics answers with the registries' text (OpenMetrics when the scraper asks for
 * it, as Prometheus does, else Prometheus's text format); anything else is a 404. Listening is checked before memleak
 * starts sampling, so a port in use is one line and exit 3 before anything is launched or attached to.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { EXIT, MemleakError } from "../base/errors.js";
import type { Registry } from "prom-client";

export interface MetricsRegistries {
  prometheus: Registry;
  openMetrics: Registry<"application/openmetrics-text; version=1.0.0; charset=utf-8">;
}

export interface MetricsServer {
  /** The address bound, the port chosen by the system when 0 was asked for. */
  address: { host: string; port: number };
  close(): Promise<void>;
}

const wantsOpenMetrics = (req: IncomingMessage) =>
  /application\/openmetrics-text/.test(String(req.headers.accept ?? ""));

async function handle(req: IncomingMessage, res: ServerResponse, registries: MetricsRegistries): Promise<void> {
  const path = (req.url ?? "/").split("?")[0];
  if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
    res.writeHead(path === "/metrics" ? 405 : 404, { "content-type": "text/plain; charset=utf-8" });
    res.end(path === "/metrics" ? "GET only\n" : "memleak serves /metrics\n");
    return;
  }
  const registry: Pick<Registry, "metrics"> & { contentType: string } = wantsOpenMetrics(req)
    ? registries.openMetrics
    : registries.prometheus;
  const body = await registry.metrics();
  res.writeHead(200, { "content-type": registry.contentType });
  res.end(req.method === "HEAD" ? undefined : body);
}

/** Why listening failed, in a user's words. */
function listenError(err: NodeJS.ErrnoException, host: string, port: number): MemleakError {
  const at = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  const why =
    err.code === "EADDRINUSE"
      ? "the port is in use (choose another, or 0 for any free one)"
      : err.code === "EACCES"
        ? "permission denied (ports under 1024 need root)"
        : err.code === "EADDRNOTAVAIL" || err.code === "ENOTFOUND" || err.code === "EAI_AGAIN"
          ? "no such address on this machine"
          : (err.message ?? String(err));
  return new MemleakError(`--metrics ${at}: cannot listen: ${why}`, EXIT.cannotObserve);
}

/**
 * @param warn a line for the user about an error once listening (EMFILE on accept, …): said, never thrown — the
 *        watch goes on without its metrics rather than end with an internal error
 */
export function startMetricsServer(
  registries: MetricsRegistries,
  host: string,
  port: number,
  warn: (line: string) => void = () => {},
): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    handle(req, res, registries).catch((err: unknown) => {
      res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
      res.end(`memleak could not write its metrics: ${(err as Error).message}\n`);
    });
  });
  // A scraper's idle keep-alive connection must not keep memleak from exiting once it has reported.
  server.keepAliveTimeout = 5000;
  return new Promise((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) => reject(listenError(err, host, port)));
    server.listen({ host, port }, () => {
      let said = false;
      server.on("error", (err: Error) => {
        if (!said) warn(`memleak: warning: --metrics: ${err.message}; sampling goes on\n`);
        said = true;
      });
      const a = server.address() as AddressInfo;
      resolve({
        address: { host, port: a.port },
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
