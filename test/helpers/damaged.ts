/** Real captures damaged the way real reads get damaged: for the parsers' property tests. */
import fc from "fast-check";

/** A real capture, truncated, with lines dropped or shuffled, or a few characters replaced. */
export function mutated(base: string): fc.Arbitrary<string> {
  const lines = base.split("\n");
  return fc.oneof(
    fc.nat(base.length).map((n) => base.slice(0, n)), // truncated
    fc.subarray(lines).map((ls) => ls.join("\n")), // lines dropped
    fc.tuple(fc.nat(Math.max(0, base.length - 1)), fc.string({ minLength: 1, maxLength: 4 })).map(
      ([i, s]) => base.slice(0, i) + s + base.slice(i + 1), // bytes replaced
    ),
    fc.shuffledSubarray(lines).map((ls) => ls.join("\n")),
  );
}
