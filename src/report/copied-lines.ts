/**
 * What a copying process copied (Finding.copied, signals/copied.ts), as lines of text: the terminal's "what it
 * copied" section, the step summary and the HTML page share them. The names come from the watched program (its
 * globals, its dataset's attributes): callers make them safe for where they go.
 */
import type { CopiedField, CopyHow } from "../analysis/types.js";
import { formatBytes } from "../base/units.js";

const HOW: Record<CopyHow, string> = {
  reads: "copied as the worker reads its items (reference counts)",
  collector: "copied as the worker reads its items and as the collector walks them",
  writes: "written by the worker: an expected copy",
  none: "read without being copied",
};

export const copyHowText = (how: CopyHow): string => HOW[how];

/** "list of str, 600,000 items" */
export const copiedItemsText = (o: Pick<CopiedField["objects"][number], "what" | "length">): string =>
  `${o.what}, ${Math.round(o.length).toLocaleString("en-US")} items`;

/** "__main__.SAMPLES (list of str, 600,000 items): ~48.6 MiB private of 53.2 MiB — copied as the worker reads…". */
export function copiedObjectLine(o: CopiedField["objects"][number]): string {
  return `${o.name} (${copiedItemsText(o)}): ${o.how === "none" ? "" : "~"}${formatBytes(o.private)} private of ${formatBytes(o.bytes)} — ${HOW[o.how]}`;
}

/** How much of the process's copying the containers named explain, or why the agent could not look. */
export function copiedHeadline(x: CopiedField): string {
  if (x.why) return `PID ${x.pid} could not look: ${x.why}`;
  if (x.objects.length === 0)
    return `PID ${x.pid} found no large container in the program's modules (or its DataLoader's dataset): what it copied is held elsewhere (a function's locals, an object no module global reaches)`;
  return `PID ${x.pid}: ${formatBytes(x.named)} of the ${formatBytes(x.copied)} it copied is in these containers${x.frozen ? ` (${x.frozen.toLocaleString("en-US")} objects frozen by gc.freeze())` : ""}`;
}

/** What the look cost the process: its time and the private memory it made itself, apart from the program's. */
export function copiedCost(x: CopiedField): string | undefined {
  const w = x.walk;
  if (w.ms === undefined) return undefined;
  const cpu = w.cpuMs !== undefined ? ` (${w.cpuMs} ms CPU)` : "";
  const own =
    w.bytes !== undefined ? `; the look itself made ${formatBytes(w.bytes)} private (its own, not counted above)` : "";
  const sampled = x.objects.some((o) => o.sampled) ? "; big containers read on a sample of their items" : "";
  return `looked at its own page flags (/proc/self/pagemap) in ${w.ms} ms${cpu}${own}${sampled}`;
}
