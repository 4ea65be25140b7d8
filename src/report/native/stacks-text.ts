/** The terminal report's section for `run --trace-native`: the leaking C/C++ stacks, site first, frames below. */
import type { ChalkInstance } from "chalk";
import type { NativeTrace } from "../../native/native-trace.js";
import { safeText } from "../../base/safe-text.js";
import { wrap } from "../text-width.js";
import { amountText, frameText, leftOutText, noStacksText, siteText, tracedText } from "./wording.js";

/** Stacks shown in the terminal (--json and the HTML report carry all that were kept). */
const SHOWN = 5;

export function nativeStackLines(t: NativeTrace | undefined, c: ChalkInstance, columns: number): string[] {
  if (!t) return [];
  const out = ["", c.bold("native stacks that leaked (heaptrack)")];
  if (t.stacks.length === 0) out.push(...wrap(noStacksText(t), columns, "  ", "  "));
  for (const s of t.stacks.slice(0, SHOWN)) {
    out.push(...wrap(`${safeText(siteText(s))}: ${amountText(s)}`, columns, "  ", "    "));
    for (const f of s.frames)
      out.push(...wrap(safeText(frameText(f)), columns, "      ", "        ").map((l) => c.dim(l)));
    if (s.framesLeftOut > 0) out.push(...wrap(leftOutText(s), columns, "      ", "        ").map((l) => c.dim(l)));
  }
  out.push(...wrap(tracedText(t), columns, "  ", "  ").map((l) => c.dim(l)));
  for (const p of t.problems) out.push(...wrap(`could not read a trace: ${safeText(p)}`, columns, "  ", "  "));
  return out;
}
