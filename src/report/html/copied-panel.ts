/** The HTML report's "What it copied" panel: the parent's containers a copying worker holds private copies of. */
import type { Finding } from "../../analysis/types.js";
import { formatBytes } from "../../base/units.js";
import { copiedCost, copiedHeadline, copiedItemsText, copyHowText } from "../copied-lines.js";
import { escapeHtml as h } from "./escape.js";

export function copiedPanel(v: Finding): string {
  const x = v.copied;
  if (!x) return "";
  const rows = x.objects
    .map(
      (o) =>
        `<tr><td><code>${h(o.name)}</code></td><td>${h(copiedItemsText(o))}</td><td class="num">${h(formatBytes(o.private))}</td><td class="num">${h(formatBytes(o.bytes))}</td><td>${h(copyHowText(o))}</td></tr>`,
    )
    .join("");
  const table = rows
    ? `<table><thead><tr><th>held as</th><th>what</th><th>private to the worker</th><th>of its size</th><th>how</th></tr></thead><tbody>${rows}</tbody></table>`
    : "";
  const cost = copiedCost(x);
  return `<section class="sites copied" id="copied"><h2>What it copied</h2><p>${h(copiedHeadline(x))}.</p>${table}${cost ? `<p class="note">Found inside the process by memleak's agent: it ${h(cost)}.</p>` : ""}</section>`;
}
