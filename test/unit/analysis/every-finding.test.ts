/** Every finding of a document, those listed beside another (alsoFound) right after it (every-finding.ts). */
import { describe, expect, it } from "vitest";
import { everyFinding } from "../../../src/analysis/every-finding.js";
import type { Finding } from "../../../src/analysis/types.js";

const finding = (kind: Finding["kind"], alsoFound?: Finding[]) =>
  ({ kind, ...(alsoFound ? { alsoFound } : {}) }) as Finding;

describe("everyFinding", () => {
  it("a finding alone is itself", () => {
    const f = finding("leak");
    expect(everyFinding([f])).toEqual([f]);
  });
  it("the ones found beside a finding follow it, in order", () => {
    const frag = finding("fragmentation");
    const cow = finding("cow");
    const leak = finding("leak", [frag, cow]);
    const stable = finding("stable");
    expect(everyFinding([leak, stable])).toEqual([leak, frag, cow, stable]);
  });
  it("none, none", () => expect(everyFinding([])).toEqual([]));
});
