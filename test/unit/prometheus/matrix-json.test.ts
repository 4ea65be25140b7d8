/**
 * readMatrixJson gives what JSON.parse gives, with each result's values as the points range-response.ts kept from
 * JSON.parse's arrays (point.ts's rule), or NOT_READ exactly where JSON.parse refuses the text: on the captured
 * answers, on generated documents of every JSON shape, and on damaged ones.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { NOT_READ, Points, readMatrixJson } from "../../../src/prometheus/matrix-json.js";
import { pointInto } from "../../../src/prometheus/point.js";
import { fixture } from "../../helpers/fixtures.js";

/** JSON.parse's value with data.result[i].values (where an array) turned into the points kept from it. */
function reference(text: string): unknown {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return NOT_READ;
  }
  const data = (v as { data?: { result?: unknown } } | null)?.data;
  if (v && typeof v === "object" && !Array.isArray(v) && data && typeof data === "object" && !Array.isArray(data))
    if (Array.isArray(data.result))
      for (const entry of data.result as unknown[]) {
        if (!entry || typeof entry !== "object" || Array.isArray(entry)) continue;
        const e = entry as { values?: unknown };
        if (!Array.isArray(e.values)) continue;
        const points = new Points();
        for (const p of e.values) pointInto(p, points.ts, points.values);
        e.values = points;
      }
  return v;
}

function same(text: string): void {
  const got = readMatrixJson(text);
  const want = reference(text);
  expect(got === NOT_READ, `NOT_READ where JSON.parse ${want === NOT_READ ? "refuses" : "reads"}`).toBe(
    want === NOT_READ,
  );
  expect(got).toStrictEqual(want);
}

/** Point values as Prometheus and other servers write them, and ones they should not. */
const valueText = fc.oneof(
  fc.integer({ min: 0, max: 2 ** 53 - 1 }).map(String),
  fc.double({ noNaN: true }).map(String),
  fc.constantFrom("NaN", "+Inf", "-Inf", "", " 12 ", "1e3", "0x10", "1.5e+09", "0123", "-0", "00000000000000000001"),
);
const element = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(fc.oneof(fc.integer({ min: 0, max: 2e9 }), fc.double()), valueText) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);
const entry = fc.record(
  {
    metric: fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.jsonValue({ maxDepth: 1 }))),
    values: fc.oneof({ weight: 6, arbitrary: fc.array(element, { maxLength: 30 }) }, fc.jsonValue({ maxDepth: 2 })),
  },
  { requiredKeys: [] },
);
const answer = fc.record(
  {
    status: fc.constantFrom("success", "error"),
    warnings: fc.array(fc.string(), { maxLength: 2 }),
    data: fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record({ resultType: fc.constant("matrix"), result: fc.array(entry, { maxLength: 4 }) }),
      },
      fc.jsonValue({ maxDepth: 3 }),
    ),
  },
  { requiredKeys: [] },
);
/** The text, as JSON.stringify writes it, indented, or with an escape written for every character of its strings. */
const written = (v: unknown, how: number) =>
  how === 0
    ? JSON.stringify(v)
    : how === 1
      ? JSON.stringify(v, null, "\t ")
      : JSON.stringify(v).replace(
          /"((?:[^"\\]|\\.)*)"/g,
          (_m, s: string) =>
            `"${[...JSON.parse(`"${s}"`)].map((c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, "0").slice(-4)}`).join("")}"`,
        );

describe("readMatrixJson", () => {
  it.each([
    "cadvisor-containers.json",
    "cadvisor-working-set-by-pod.json",
    "empty.json",
    "error-bad-query.json",
    "error-too-many-points.json",
    "memleak-cgroup.json",
    "memleak-process.json",
    "not-the-api.txt",
  ])("%s (captured): as JSON.parse", (file) => same(fixture(`prometheus/${file}`)));

  it("generated answers, however written: as JSON.parse", () => {
    fc.assert(
      fc.property(answer, fc.integer({ min: 0, max: 2 }), (v, how) => same(written(v, how))),
      { numRuns: 400 },
    );
  });

  it("any JSON value at all: as JSON.parse", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => same(JSON.stringify(v))),
      { numRuns: 300 },
    );
  });

  it("damaged answers (cut, a character changed or put in): NOT_READ exactly where JSON.parse refuses", () => {
    const chars = fc.constantFrom(...'[]{},:"\\ \t\n-+.eE0123456789aunlx\u0001\u00a0\ufeff');
    fc.assert(
      fc.property(answer, fc.nat(), chars, fc.constantFrom("cut", "replace", "insert"), (v, at, c, how) => {
        const text = JSON.stringify(v);
        const i = at % (text.length + 1);
        const damaged =
          how === "cut"
            ? text.slice(0, i)
            : how === "replace"
              ? text.slice(0, i) + c + text.slice(i + 1)
              : text.slice(0, i) + c + text.slice(i);
        same(damaged);
      }),
      { numRuns: 1500 },
    );
  });

  it('"__proto__" is an own key, as JSON.parse makes it, never the prototype', () => {
    const text = '{"__proto__":{"status":"success"},"data":{"result":[{"__proto__":{"values":[[1,"2"]]}}]}}';
    same(text);
    expect((readMatrixJson(text) as { status?: unknown }).status).toBeUndefined();
  });

  it("nesting deeper than the stack: NOT_READ, and JSON.parse reads it", () => {
    const deep = "[".repeat(200_000) + "]".repeat(200_000);
    expect(readMatrixJson(deep)).toBe(NOT_READ);
    expect(() => JSON.parse(deep)).not.toThrow();
  });

  it("digits alone are summed exactly, longer ones and others go through Number", () => {
    const got = readMatrixJson(
      '{"data":{"result":[{"values":[[1700000000,"999999999999999"],[1700000000.123,"9007199254740993"],[2,"-5"],[3,"1e3"]]}]}}',
    ) as { data: { result: [{ values: Points }] } };
    expect(got.data.result[0].values.ts).toEqual([1700000000, 1700000000.123, 2, 3]);
    expect(got.data.result[0].values.values).toEqual([999999999999999, Number("9007199254740993"), -5, 1000]);
  });
});
