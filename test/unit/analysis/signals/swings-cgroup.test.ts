/**
 * A shared cgroup's growth found on its lows under swings (issue 46): fixtures/recordings/gc_cycles_raised.jsonl, a
 * GC-churn program watched from 5 s in for 2 minutes in the sandbox's cgroup (334 MiB of other processes), cut every
 * 5 s as its progress lines saw it. Its process is undecided (allocators settling) throughout; the cgroup's lows rose
 * 15-21 MiB while the tenths' medians of usage and anon fell. Before: a cgroup-artefact "grew by -10.2 MiB … the
 * growth is kernel memory (+216 KiB)" from 39 to 71 s, and a cgroup leak at 44, 54, 71 and 77 s.
 */
import { describe, expect, it } from "vitest";
import { FIXTURES } from "../../../helpers/fixtures.js";
import { analyzedUntil } from "../../../helpers/recording-cut.js";

const FILE = `${FIXTURES}recordings/gc_cycles_raised.jsonl`;
const MOMENTS = Array.from({ length: 17 }, (_, i) => 39 + 5 * i);

describe("a GC-churn program watched in a shared cgroup, at every progress line from 39 s", () => {
  it.each(MOMENTS)("at %i s: no leak and no artefact", async (seconds) => {
    const doc = await analyzedUntil(FILE, seconds);
    const kinds = doc.findings.map((f) => `${f.subject.type}:${f.kind}`);
    expect(kinds).not.toContain("cgroup:leak");
    expect(kinds).not.toContain("cgroup:cgroup-artefact");
    expect(doc.findings.find((f) => f.subject.type === "process")?.evidence.settling).toBe(true);
  });

  // Where its growth passed the trend test (the moments it was an artefact or a leak before): it waits with its
  // settling process, whose growth accounts for its lows'.
  it.each([39, 44, 54, 71])("at %i s the cgroup waits with its settling process", async (seconds) => {
    const cgroup = (await analyzedUntil(FILE, seconds)).findings.find((f) => f.subject.type === "cgroup")!;
    expect(cgroup, cgroup.summary).toMatchObject({ kind: "insufficient-data", evidence: { settling: true } });
  });
});
