/** The HTML report's section for `run --trace-native`: each leaking C/C++ stack, its site, amount and frames. */
import type { NativeTrace } from "../../native/native-trace.js";
import { escapeHtml as h } from "./escape.js";
import { amountText, frameText, leftOutText, noStacksText, siteText, tracedText } from "../native/wording.js";

export function nativeSection(t: NativeTrace | undefined): string {
  if (!t) return "";
  const stacks = t.stacks.map((s) => {
    const frames = s.frames.map((f) => `<li><code>${h(frameText(f))}</code></li>`).join("");
    const more = s.framesLeftOut > 0 ? `<li class="note">${h(leftOutText(s))}</li>` : "";
    return `<div class="native-stack"><p><strong>${h(siteText(s))}</strong>: ${h(amountText(s))}</p><ol>${frames}${more}</ol></div>`;
  });
  const none = t.stacks.length === 0 ? `<p>${h(noStacksText(t))}</p>` : "";
  const problems = t.problems.map((p) => `<p class="note">could not read a trace: ${h(p)}</p>`).join("");
  return `<section class="sites native" id="native"><h2>Native stacks that leaked</h2>${none}${stacks.join("")}<p class="note">${h(tracedText(t))}</p>${problems}</section>`;
}
