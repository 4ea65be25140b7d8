/**
 * A local HTTP server that answers every request with one captured answer (a file under fixtures/ and its status),
 * and keeps what it was asked: for testing memleak's HTTP client against Prometheus's real answers on a real socket.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fixture } from "./fixtures.js";

export interface Asked {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export async function replayServer(
  file: string,
  status = 200,
): Promise<{ url: string; asked: Asked[]; close: () => Promise<void> }> {
  const body = fixture(file);
  const asked: Asked[] = [];
  const server = createServer((req, res) => {
    let text = "";
    req.on("data", (d: Buffer) => (text += d.toString()));
    req.on("end", () => {
      asked.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: text });
      res.writeHead(status, { "content-type": file.endsWith(".json") ? "application/json" : "text/plain" });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    asked,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A port nothing listens on: one the system gave and took back. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
