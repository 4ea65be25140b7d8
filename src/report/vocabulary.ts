/**
 * The words and colours a verdict is told in, shared by the terminal report (terminal/verdict-text.ts,
 * terminal/subjects-table.ts) and the HTML report's banner: each kind's label, the subject in words, an evidence number
 * as a person reads it.
 */
import type { ChalkInstance } from "chalk";
import type { Finding } from "../analysis/types.js";
import { formatBytes, formatDuration } from "../base/units.js";
import { insideText } from "../base/pid-inside.js";

export const KIND_LABEL: Record<Finding["kind"], string> = {
  leak: "LEAK",
  fragmentation: "ALLOCATOR RETENTION (fragmentation)",
  "cgroup-artefact": "CGROUP ACCOUNTING ARTEFACT",
  cow: "COPY-ON-WRITE",
  plateau: "PLATEAU",
  stable: "STABLE",
  "insufficient-data": "NOT ENOUGH DATA",
};

/** "PID 42 (child of 7)", "process tree", "cgroup /a/b" — from the target, so pass it through safeText/escape. */
export function subjectText(f: Finding): string {
  if (f.subject.type === "process")
    return `PID ${f.subject.pid}${f.subject.isRoot ? "" : ` (child of ${f.subject.ppid})`}${insideText(f.subject.pidInside)}`;
  if (f.subject.type === "tree") return "process tree";
  if (f.subject.type === "gpu") return gpuLabel(f.subject.pid, f.subject.device, f.subject.source);
  return `cgroup ${f.subject.path}`;
}

/** "PID 42 cuda:0" (the device as the process numbers it), "PID 42 GPU 0" (the driver's index): a process's GPU. */
export const gpuLabel = (pid: number, device: string, source: "torch" | "driver") =>
  `PID ${pid} ${source === "driver" ? `GPU ${device}` : device}`;

/** A subject in a table cell: "PID 42", "PID 42 cuda:0", "tree", "cgroup". */
export function subjectLabel(f: Finding): string {
  if (f.subject.type === "process") return `PID ${f.subject.pid}`;
  if (f.subject.type === "gpu") return gpuLabel(f.subject.pid, f.subject.device, f.subject.source);
  return f.subject.type;
}

const BYTES_KEY = /(start|end|peak|growth|Growth|Bytes|bytes|noise|limit|bound|Drop|Swing|Footprint)$/;

/** An evidence number as a person reads it: sizes in binary units, seconds as durations, rates per second. */
export function evidenceValue(key: string, v: number | string | boolean): string {
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (typeof v === "string") return v;
  if (/BytesPerSecond$/.test(key)) return `${formatBytes(v)}/s`;
  if (/Seconds$/.test(key)) return v === 0 ? "0s" : formatDuration(v);
  if (BYTES_KEY.test(key) && !/samples/.test(key)) return formatBytes(v);
  return String(v);
}

/** The colour a kind is shown in, in the subjects table and the verdict. */
export function kindColour(c: ChalkInstance, kind: Finding["kind"]): (s: string) => string {
  if (kind === "leak") return c.bold.red;
  if (kind === "fragmentation" || kind === "cow") return c.bold.yellow;
  if (kind === "cgroup-artefact") return c.bold.magenta;
  if (kind === "insufficient-data") return c.bold.gray;
  return c.bold.green;
}
