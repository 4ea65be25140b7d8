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

/** How its pages came to be copied, or, for a container whose items a larger one holds too, whose they are. */
export const copyHowText = (o: Pick<CopiedField["objects"][number], "how" | "sharedWith">): string =>
  o.sharedWith !== undefined && o.how === "none" ? `its items are ${o.sharedWith}'s too, counted there` : HOW[o.how];

/** "list of str, 600,000 items" */
export const copiedItemsText = (o: Pick<CopiedField["objects"][number], "what" | "length">): string =>
  `${o.what}, ${Math.round(o.length).toLocaleString("en-US")} items`;

/** "__main__.SAMPLES (list of str, 600,000 items): ~48.6 MiB private of 53.2 MiB — copied as the worker reads…". */
export function copiedObjectLine(o: CopiedField["objects"][number]): string {
  if (o.sharedWith !== undefined && o.how === "none") return `${o.name} (${copiedItemsText(o)}): ${copyHowText(o)}`;
  return `${o.name} (${copiedItemsText(o)}): ${o.how === "none" ? "" : "~"}${formatBytes(o.private)} private of ${formatBytes(o.bytes)} — ${copyHowText(o)}`;
}

/** How much of the process's copying the containers named explain, or why the agent could not look. */
export function copiedHeadline(x: CopiedField): string {
  if (x.why) return `PID ${x.pid} could not look: ${x.why}`;
  if (x.objects.length === 0)
    return `PID ${x.pid} found no large container in the program's modules (or its DataLoader's dataset): what it copied is held elsewhere (a function's locals, an object no module global reaches)`;
  const frozen = x.frozen ? ` (${x.frozen.toLocaleString("en-US")} objects frozen by gc.freeze())` : "";
  // Of what it held privately when it looked (the same moment as the containers' figures): its USS growth while
  // watched leaves out what it copied before memleak's first reading, and was less than the containers held.
  if (x.privateAtLook !== undefined)
    return `PID ${x.pid}: ${formatBytes(x.named)} of the ${formatBytes(x.privateAtLook)} private to it when it looked is in these containers${frozen}`;
  if (x.named > x.copied)
    return `PID ${x.pid}: ${formatBytes(x.named)} of what it copied is in these containers${frozen}`;
  return `PID ${x.pid}: ${formatBytes(x.named)} of the ${formatBytes(x.copied)} it copied is in these containers${frozen}`;
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
