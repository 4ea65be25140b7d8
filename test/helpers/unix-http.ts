/** HTTP over a Unix socket, for the tests that drive a real gunicorn (no port to collide with another test's). */
import { request } from "node:http";

/** GET `path`: its status, or 0 when nothing answers yet (or any more): the caller tries again. */
export function get(socket: string, path: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ socketPath: socket, path }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", () => resolve(0));
    req.end();
  });
}
