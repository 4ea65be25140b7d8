/**
 * A subject's eachSample hands the judge the same samples, in the same order, as its samples array holds: a
 * container's are made one at a time from its series side by side, and must be what the map of times made. On the
 * captured answers and on generated subjects (any of the known metrics, unknown ones, limits, gaps and times that
 * only some series have, series out of order).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Sample } from "../../../src/system/sample.js";
import { KNOWN_METRICS, subjectsOf } from "../../../src/prometheus/series-samples.js";
import { parseRangeResponse, type RangeSeries } from "../../../src/prometheus/range-response.js";
import { fixture } from "../../helpers/fixtures.js";

function streamed(series: RangeSeries[]): { each: Sample[]; all: Sample[] }[] {
  return subjectsOf(series).map((s) => {
    const each: Sample[] = [];
    s.eachSample((x) => each.push(x));
    return { each, all: s.samples };
  });
}

const names = fc.constantFrom(...Object.keys(KNOWN_METRICS), "my_app_heap_bytes", undefined);
/** Times on a 15 s grid, some shared by several series, some not, sometimes in fractions of a second. */
const times = fc
  .uniqueArray(fc.integer({ min: 0, max: 60 }), { maxLength: 40 })
  .chain((ts) =>
    fc.constantFrom(
      ts.sort((a, b) => a - b),
      [...ts].reverse(),
      ts.map((t) => t + 0.0004),
    ),
  )
  .map((ts) => ts.map((t) => 1.8e9 + t * 15));
const series = fc.record({
  name: names,
  pod: fc.constantFrom("a", "b"),
  ts: times,
  values: fc.array(fc.oneof(fc.integer({ min: -5, max: 2 ** 40 }), fc.double({ noNaN: true })), {
    minLength: 40,
    maxLength: 40,
  }),
});

describe("eachSample", () => {
  it.each([
    "cadvisor-containers.json",
    "cadvisor-working-set-by-pod.json",
    "memleak-cgroup.json",
    "memleak-process.json",
  ])("%s (captured): the samples, in order", (file) => {
    const subjects = streamed(parseRangeResponse(200, fixture(`prometheus/${file}`), "x").series);
    expect(subjects.length).toBeGreaterThan(0);
    for (const { each, all } of subjects) {
      expect(each.length).toBeGreaterThan(10);
      expect(each).toStrictEqual(all);
    }
  });

  it("generated subjects: the samples, in order", () => {
    fc.assert(
      fc.property(fc.array(series, { minLength: 1, maxLength: 8 }), (gen) => {
        const input: RangeSeries[] = gen.map((g) => ({
          labels: { ...(g.name !== undefined && { __name__: g.name }), pod: g.pod },
          ts: g.ts,
          values: g.values.slice(0, g.ts.length),
        }));
        for (const { each, all } of streamed(input)) expect(each).toStrictEqual(all);
      }),
      { numRuns: 500 },
    );
  });
});
