/** The HTML report's "What holds it" panel: the chain of references to the growing container, hop by hop. */
import type { Finding } from "../../analysis/types.js";
import { holderCost, holderWhere, onDeviceText } from "../holder-lines.js";
import { escapeHtml as h } from "./escape.js";

export function holderPanel(v: Finding): string {
  const x = v.holder;
  if (!x) return "";
  const what = `${h(x.container)}, ${h(Math.round(x.length).toLocaleString("en-US"))} items${h(onDeviceText(x))}`;
  const head = x.found
    ? `<p class="holder-path"><code>${h(x.path ?? "")}</code> holds the growing ${what}.</p>`
    : `<p class="holder-path">No root found for the growing ${what}: ${h(x.why ?? "no root within the search's bounds")}.</p>`;
  const hops = x.hops?.length
    ? `<ol class="hops">${x.hops.map((hop) => `<li><span class="hop-kind">${h(hop.kind)}</span> <code>${h(hop.name)}</code></li>`).join("")}</ol>`
    : "";
  const where = holderWhere(x);
  const assigned = where ? `<p class="holder-where">${h(where.replace(/^assigned at /, "Assigned at "))}</p>` : "";
  // A holder the census's walk named (no pass over a heap too big to search) was found by no walk toward the roots.
  const how = x.search.calls > 0 ? " (a bounded walk of the references toward the roots)" : "";
  return `<section class="sites holder" id="holder"><h2>What holds it</h2>${head}${hops}${assigned}<p class="note">Found inside the process by memleak's agent${how}; ${h(holderCost(x))}.</p></section>`;
}
