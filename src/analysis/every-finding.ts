/**
 * Every finding of a verdict document, the ones listed beside another of the same subject (`alsoFound`) included:
 * what the gates judge (`--fail-on fragmentation` fails on fragmentation that has a leak beside it) and what the
 * reports list under "other findings".
 */
import type { Finding } from "./types.js";

export function everyFinding(findings: readonly Finding[]): Finding[] {
  return findings.flatMap((f) => [f, ...(f.alsoFound ?? [])]);
}
