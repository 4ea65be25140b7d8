/**
 * The advice texts are data: src/advice/<kind>.md, one "## variant" section per situation, with {{name}} placeholders
 * filled from the finding's numbers. They are inlined at build time (scripts/inline-advice.mjs writes texts.ts), so
 * the analysis that asks for them reads no file.
 */
import { ADVICE_TEXTS } from "./texts.js";
import type { VerdictKind } from "../base/verdict-kinds.js";
import { safeText } from "../base/safe-text.js";

const cache = new Map<VerdictKind | "no-agent" | "gpu", Map<string, string>>();

function sections(kind: VerdictKind | "no-agent" | "gpu"): Map<string, string> {
  const hit = cache.get(kind);
  if (hit) return hit;
  const text = ADVICE_TEXTS[kind];
  const map = new Map<string, string>();
  if (text !== undefined) {
    const body = text.replace(/<!--[\s\S]*?-->/g, "");
    for (const part of body.split(/^## /m).slice(1)) {
      const nl = part.indexOf("\n");
      map.set(part.slice(0, nl).trim(), part.slice(nl + 1).trim());
    }
  }
  cache.set(kind, map);
  return map;
}

/** The advice for a kind and variant with placeholders filled; unknown placeholders are left visible as "?". */
export function advice(
  kind: VerdictKind | "no-agent" | "gpu",
  variant: string,
  values: Record<string, string | number | undefined>,
): string {
  const all = sections(kind);
  const text = all.get(variant) ?? all.get("any") ?? "";
  return text.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const v = values[name];
    // Values can come from the target (its command line): no control characters into the advice.
    return v === undefined ? "?" : safeText(String(v));
  });
}
