/**
 * What a stranger gets: the repository packed as npm would publish it, installed into an empty project, and run through `npx memleak` — --help, and a short `run` that gives a verdict.
 * The licence is in it, and the shipped source maps carry their sources (of src/ only the agent's Python is shipped).
 */
import { execFile } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/temp.js";

const run = promisify(execFile);
const project = tempDir("package");
const npx = (args: string[]) =>
  run("npx", ["--no-install", "memleak", ...args], { cwd: project, env: { ...process.env, NO_COLOR: "1" } });

beforeAll(async () => {
  const packed = tempDir("packed");
  // --ignore-scripts: packs the dist/ that `npm test` has just built (its pretest), rather than prepack building it a
  // second time (~25 s of tsc on two cores). What prepack adds, a dist/ without files of since-deleted sources, is
  // what a fresh checkout's build already gives CI.
  await run("npm", ["pack", "--silent", "--ignore-scripts", "--pack-destination", packed], { cwd: REPO });
  const tarball = readdirSync(packed).find((f) => f.endsWith(".tgz"))!;
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "stranger", version: "1.0.0", private: true }));
  await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", join(packed, tarball)], { cwd: project });
}, 240_000);

describe("the packed package, installed into an empty project", () => {
  it("npx memleak --help prints the usage", async () => {
    const r = await npx(["--help"]);
    expect(r.stdout).toMatch(/^Usage: memleak/);
  });

  it("npx memleak run gives a verdict document on a short Python command", async () => {
    const r = await npx(["run", "--json", "--interval", "0.5s", "--", "python3", "-c", "import time; time.sleep(3)"]);
    const doc = JSON.parse(r.stdout) as { schema: string; verdict: { kind: string } };
    expect(doc.schema).toBe("memleak.verdict/1");
    expect(doc.verdict.kind).toBe("insufficient-data"); // 3 s at 0.5 s: 6 samples, under the 20 a verdict needs
  });

  it("ships its licence, and its source maps with their sources (src/ is not shipped but the agent's Python)", () => {
    expect(readFileSync(join(project, "node_modules/memleak/LICENSE"), "utf8")).toMatch(/^MIT License/);
    const map = JSON.parse(
      readFileSync(join(project, "node_modules/memleak/dist/sampling/sampler.js.map"), "utf8"),
    ) as {
      sourcesContent?: string[];
    };
    expect(map.sourcesContent?.[0]).toContain("export class Sampler");
    // The bundle the CLI runs from (scripts/bundle.mjs) maps back to the TypeScript, its sources inside.
    const bundleMap = JSON.parse(
      readFileSync(join(project, "node_modules/memleak/dist/bundle/cli.js.map"), "utf8"),
    ) as { sources: string[]; sourcesContent?: string[] };
    expect(bundleMap.sources.some((s) => s.endsWith("src/cli.ts"))).toBe(true);
    expect(bundleMap.sourcesContent?.length).toBe(bundleMap.sources.length);
    expect(readdirSync(join(project, "node_modules/memleak/src"))).toEqual(["agent"]);
  });
});
