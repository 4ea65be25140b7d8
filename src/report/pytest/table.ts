/**
 * The terminal's table of the tests that grew (the pytest plugin's results): kind, growth, growth per call,
 * limit and the test's id, most serious first, every line within `columns` (an id too long for its row goes on the
 * lines below it, whole).
 */
import { signedBytes } from "../../base/units.js";
import type { ChalkInstance } from "chalk";
import type { VerdictDocument } from "../../analysis/types.js";
import { safeText } from "../../base/safe-text.js";
import { displayWidth, wrap } from "../text-width.js";
import { kindWord, limitWord, notableTests, perCallText, repeatsText, testHolderText, testsCensus } from "./rows.js";

export const MAX_TEST_ROWS = 20;

export function testsTable(doc: VerdictDocument, c: ChalkInstance, columns: number): string[] {
  const tests = doc.tests;
  if (!tests?.length) return [];
  const rows = notableTests(tests);
  const repeats = repeatsText(tests);
  const out = [
    "",
    ...wrap(`tests (${testsCensus(tests)}${repeats ? `; ${repeats}` : ""})`, columns).map((l) => c.bold(l)),
  ];
  if (rows.length === 0) return out;
  // "grew once" is the plugin's insufficient-data: what the docs call it, and how to get a kind instead.
  if (rows.some((t) => t.kind === "insufficient-data" && t.calls - t.warmupCalls <= 1))
    out.push(
      ...wrap(
        "grew once: growth in a single call, which cannot tell a leak from a cache filled once (insufficient-data); --repeat 5 tells them apart",
        columns,
        "  ",
        "  ",
      ).map((l) => c.dim(l)),
    );
  // No calls column: the heading says how many (only a test that failed midway, or --max-leak-per-call's own
  // repeats, differ), and the room is the test id's.
  const head = `  ${"kind".padEnd(13)} ${"growth".padStart(9)} ${"per call".padStart(9)} ${"limit".padEnd(5)} `;
  const room = Math.max(10, columns - displayWidth(head));
  out.push(c.dim(head + "test"));
  for (const t of rows.slice(0, MAX_TEST_ROWS)) {
    const word = kindWord(t);
    const paint =
      t.result === "crashed" || t.kind === "leak"
        ? c.bold.red
        : t.kind === "fragmentation"
          ? c.yellow
          : (s: string) => s;
    const limit = limitWord(t);
    const limitCell = limit === "FAIL" ? c.red(limit.padEnd(5)) : limit.padEnd(5);
    const cells = `${signedBytes(t.growthBytes).padStart(9)} ${perCallText(t).padStart(9)} ${limitCell}`;
    const id = safeText(t.nodeid);
    // The whole id, always: on the row when it fits, else on the lines below it.
    if (displayWidth(id) <= room) out.push(`  ${paint(word.padEnd(13))} ${cells} ${id}`);
    else out.push(`  ${paint(word.padEnd(13))} ${cells}`.trimEnd(), ...wrap(id, columns, "    ", "    "));
    const holder = testHolderText(t);
    if (holder) out.push(...wrap(safeText(holder), columns, "    ", "    ").map((l) => c.dim(l)));
  }
  if (rows.length > MAX_TEST_ROWS)
    out.push(c.dim(`  … and ${rows.length - MAX_TEST_ROWS} more (--json lists every test)`));
  return out;
}
