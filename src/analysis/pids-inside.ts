/**
 * A watched process in a container has two pids: the host's, which every number of memleak is keyed by, and its own
 * PID namespace's, the one its logs, `ps` inside the container and its own os.getpid() show. The verdict document
 * keeps the host pid everywhere and says the pid inside beside it (target.pidInside, subject.pidInside).
 */
import type { VerdictDocument } from "./types.js";

export function markPidsInside(doc: VerdictDocument, pidsInside: ReadonlyMap<number, number> | undefined): void {
  if (!pidsInside || pidsInside.size === 0) return;
  const root = pidsInside.get(doc.target.pid);
  if (root !== undefined) doc.target.pidInside = root;
  for (const f of [doc.verdict, ...doc.findings]) {
    if (f.subject.type !== "process") continue;
    const inside = pidsInside.get(f.subject.pid);
    if (inside !== undefined) f.subject.pidInside = inside;
  }
}
