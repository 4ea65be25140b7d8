/**
 * The final report in the terminal: the verdict in colour with its one-sentence reason, the evidence, the advice,
 * what could not be decided, the other findings, and the gates.
 */
import type { Finding, VerdictDocument } from "../analysis/types.js";
import { formatRate } from "../analysis/evidence.js";
import { formatBytes, formatDuration } from "../units.js";
import { palette, safeText } from "./style.js";
import type { ChalkInstance } from "chalk";

const KIND_LABEL: Record<Finding["kind"], string> = {
  leak: "LEAK",
  fragmentation: "ALLOCATOR RETENTION (fragmentation)",
  "cgroup-artefact": "CGROUP ACCOUNTING ARTEFACT",
  cow: "COPY-ON-WRITE",
  plateau: "PLATEAU",
  stable: "STABLE",
  "insufficient-data": "NOT ENOUGH DATA",
};

function kindColour(c: ChalkInstance, kind: Finding["kind"]): (s: string) => string {
  if (kind === "leak") return c.bold.red;
  if (kind === "fragmentation" || kind === "cow") return c.bold.yellow;
  if (kind === "cgroup-artefact") return c.bold.magenta;
  if (kind === "insufficient-data") return c.bold.gray;
  return c.bold.green;
}

function subjectText(f: Finding): string {
  if (f.subject.type === "process") return `PID ${f.subject.pid}${f.subject.isRoot ? "" : ` (child of ${f.subject.ppid})`}`;
  if (f.subject.type === "tree") return "process tree";
  return `cgroup ${f.subject.path}`;
}

const BYTES_KEY = /(start|end|peak|growth|Growth|Bytes|bytes|noise|limit|bound|Drop)$/;

function evidenceLines(f: Finding): string[] {
  return Object.entries(f.evidence).map(([k, v]) => {
    const shown = typeof v === "number" && BYTES_KEY.test(k) && !/Seconds|samples/.test(k) ? formatBytes(v) : String(v);
    return `  ${k.padEnd(22)} ${shown}`;
  });
}

/** Markdown advice → terminal: keep the text, drop the emphasis markers. */
function plainMarkdown(md: string): string {
  return md.replace(/\*\*(.+?)\*\*/g, "$1").replace(/`([^`]+)`/g, "$1");
}

export function renderVerdict(doc: VerdictDocument, color: boolean): string {
  const c = palette(color);
  const v = doc.verdict;
  const out: string[] = [];
  const w = doc.window;
  out.push(c.dim(`observed ${formatDuration(w.end - w.start)}, ${w.samples} samples every ${formatDuration(w.interval)}${w.warmup > 0 ? `, warm-up ${formatDuration(w.warmup)} left out` : ""}`));
  out.push(`${kindColour(c, v.kind)(`verdict: ${KIND_LABEL[v.kind]}`)} ${c.dim(`— ${subjectText(v)}, confidence ${Math.round(v.confidence * 100)}%`)}`);
  out.push(safeText(v.summary));
  if (v.rate && v.kind !== "stable" && v.kind !== "insufficient-data") out.push(`rate: ${v.metric} ${formatRate(v.rate)}`);
  out.push("", c.bold("evidence"), ...evidenceLines(v));
  if (v.advice) out.push("", c.bold("what to do"), plainMarkdown(v.advice));
  if (v.caveats.length) out.push("", c.bold("could not decide"), ...v.caveats.map((x) => `  - ${x}`));
  const others = doc.findings.filter((f) => f !== v && f.summary !== v.summary);
  if (others.length) {
    out.push("", c.bold("other findings"));
    for (const f of others) out.push(`  ${kindColour(c, f.kind)(f.kind.padEnd(17))} ${safeText(f.summary)}`);
  }
  if (doc.gates?.length) {
    out.push("", c.bold("gates"));
    for (const g of doc.gates) out.push(`  ${g.passed ? c.green("pass") : c.red("FAIL")} ${g.name}: ${safeText(g.message)}`);
  }
  return out.join("\n") + "\n";
}
