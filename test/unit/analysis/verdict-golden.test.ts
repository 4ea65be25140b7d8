/**
 * The whole verdict document of every recording in fixtures/, kept as it was last accepted (fixtures/verdicts/):
 * a change that moves code around (helpers to the bottom of the house, a session in parts) must give the same JSON,
 * byte for byte. A change that means to alter a verdict or its words updates these with `npx vitest run -u` and says
 * so in its commit; recordings.test.ts keeps the kinds the scenarios declare, whatever the words.
 */
import { execSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { analyseRecording } from "../../../src/commands/analyse-recording.js";
import { FIXTURES, REPO } from "../../helpers/fixtures.js";

const recordings = execSync("find recordings calibration -name '*.jsonl' | sort", { cwd: FIXTURES }).toString().trim().split("\n");

describe("verdict documents of the recordings, byte for byte", () => {
  it("finds every recording", () => expect(recordings.length).toBeGreaterThanOrEqual(36));

  it.each(recordings)("%s", async (file) => {
    const { doc } = await analyseRecording(`${FIXTURES}${file}`);
    await expect(`${JSON.stringify(doc, null, 1)}\n`).toMatchFileSnapshot(`${REPO}fixtures/verdicts/${file.replace(/\//g, "__").replace(/\.jsonl$/, ".json")}`);
  });
});
