/**
 * The whole verdict document of every recording in fixtures/, kept as it was last accepted (fixtures/verdicts/):
 * a change that moves code around (helpers to the bottom of the house, a session in parts) must give the same JSON,
 * byte for byte. A change that means to alter a verdict or its words updates these with `npx vitest run -u` and says
 * so in its commit; recordings.test.ts keeps the kinds the scenarios declare, whatever the words.
 */
import { execSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { analyzedDoc } from "../../helpers/analyzed-once.js";
import { FIXTURES, REPO } from "../../helpers/fixtures.js";

const recordings = execSync("find recordings calibration -name '*.jsonl' | sort", { cwd: FIXTURES })
  .toString()
  .trim()
  .split("\n");
const GOLDEN = `${REPO}fixtures/verdicts/`;
const goldenOf = (file: string) => `${file.replace(/\//g, "__").replace(/\.jsonl$/, "")}.json`;

describe("verdict documents of the recordings, byte for byte", () => {
  // Outside CI a missing golden file would be written and pass: every recording must have one already, and every
  // golden file a recording.
  it("one golden document per recording, no more, no fewer", () => {
    expect(recordings.length).toBeGreaterThanOrEqual(36);
    expect(readdirSync(GOLDEN).sort()).toEqual(recordings.map(goldenOf).sort());
  });

  it.each(recordings)("%s", async (file) => {
    const doc = await analyzedDoc(`${FIXTURES}${file}`);
    expect(existsSync(`${GOLDEN}${goldenOf(file)}`)).toBe(true);
    await expect(`${JSON.stringify(doc, null, 1)}\n`).toMatchFileSnapshot(`${GOLDEN}${goldenOf(file)}`);
  });
});
