/**
 * What run and watch say to the user beside the report: one line at once when sampling starts (what is sampled, how
 * often, for how long, how to stop), so a log is not silent for the first progress line's 10 s; and after the verdict
 * the next step that fits it (how to fail a CI step on a leak when no gate was asked for; how to keep the samples and
 * analyze them again). Pure: the commands print what these return, on stderr, so --json stdout stays one document.
 */
import type { VerdictDocument } from "../analysis/types.js";
import { shortCommand } from "../base/command-text.js";
import type { GateOptions } from "../gates/spec.js";
import { formatDuration } from "../base/units.js";
import { safeText } from "../base/safe-text.js";
import { clip, wrap } from "../report/text-width.js";

export interface StartFacts {
  mode: "run" | "watch";
  pid: number;
  command?: string[] | undefined;
  /** Seconds between samples. */
  interval: number;
  /** Seconds, when --duration was given. */
  duration?: number | undefined;
}

/** The command as the start line names it: long enough to recognise, short enough not to fill the line. */
const COMMAND_WIDTH = 48;

/**
 * "memleak: sampling python3 train.py (PID 42) and its children every 1s until it exits; Ctrl-C stops the command,
 * then memleak reports". On a terminal (`columns`) it is wrapped to fit above the live view.
 */
export function startLine(s: StartFacts, columns?: number): string {
  const who = s.command?.length
    ? `${clip(safeText(shortCommand({ cmdline: s.command, comm: "" })), COMMAND_WIDTH)} (PID ${s.pid})`
    : `PID ${s.pid}`;
  const until = s.duration !== undefined ? `for ${formatDuration(s.duration)} or until it exits` : "until it exits";
  // run: Ctrl-C reaches the command too, whose exit memleak waits for. watch: the process runs on.
  const stop =
    s.mode === "run"
      ? "Ctrl-C stops the command, then memleak reports"
      : `Ctrl-C stops watching (PID ${s.pid} runs on) and reports`;
  const line = `memleak: sampling ${who} and its children every ${formatDuration(s.interval)} ${until}; ${stop}`;
  return (columns === undefined ? [line] : wrap(line, columns, "", "  ")).join("\n") + "\n";
}

export interface NextStepFacts {
  gates: GateOptions;
  /** The --record file, when one was kept. */
  record?: string | undefined;
  /** The --html report, when one was written. */
  html?: string | undefined;
}

/** Whether any gate that can fail the step on memory was asked for. */
function gated(g: GateOptions): boolean {
  return (g.failOn?.length ?? 0) > 0 || g.maxGrowth !== undefined || g.maxRate !== undefined;
}

/**
 * The next steps that fit the verdict, each a line for stderr (wrapped to `columns` on a terminal); none when fewer
 * than two samples were taken: one reading is no series, and neither keeping it nor analyzing it again says more
 * (`run -- true` on a busy machine: a reading caught it, and "add --record run.jsonl to keep the samples" followed).
 */
export function nextSteps(doc: VerdictDocument, f: NextStepFacts, columns?: number): string[] {
  if (doc.window.samples < 2) return [];
  const out: string[] = [];
  const fit = (line: string) => (columns === undefined ? [line] : wrap(line, columns, "", "  ")).join("\n") + "\n";
  const leak = [doc.verdict, ...doc.findings].some((x) => x.kind === "leak");
  if (leak && !gated(f.gates))
    out.push(
      fit(
        "memleak: next: the exit code is 0 on a leak unless a gate asks: add --fail-on leak to fail a CI step on it (exit code 1)",
      ),
    );
  // Charts are offered only where they were not asked for; where they were, the line says where they went.
  const charts = f.html ? "" : f.record ? " (add --html report.html for charts)" : " (--html for charts)";
  if (f.html)
    out.push(fit(`memleak: the HTML report is in ${safeText(f.html)}: charts of every series, for a browser`));
  if (f.record)
    out.push(
      fit(
        `memleak: the samples are kept in ${safeText(f.record)}: \`memleak analyze ${safeText(f.record)}\` analyzes them again${charts}`,
      ),
    );
  else
    out.push(
      fit(
        `memleak: next: add --record run.jsonl to keep the samples, then \`memleak analyze run.jsonl\` analyzes them again${charts}`,
      ),
    );
  return out;
}
