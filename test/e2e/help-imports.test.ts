/**
 * `memleak --help` and `--version` load only the help recorded at build time (cli/help-layout.ts), and any other help
 * only the CLI layer: not the sampler, /proc's readers or the analysis (cli.ts imports each command lazily, and what
 * parse.ts needs to say the defaults sits at the bottom of the house).
 * Every module Node resolves is logged by a module hook, and a file of the bundle (scripts/bundle.mjs: one chunk per
 * command) stands for the source modules its metafile says are in it; `snapshot` of this process is the control that
 * shows the hook sees the layers when they are loaded.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { REPO } from "../helpers/fixtures.js";
import { MEMLEAK } from "../helpers/processes.js";
import { tempDir } from "../helpers/temp.js";

const run = promisify(execFile);
const dir = tempDir("imports");

/** The source modules in each file of the bundle (scripts/bundle.mjs), as tsc's paths under dist/: cli/parse.js. */
function bundled(): Map<string, string[]> {
  const meta = JSON.parse(readFileSync(`${REPO}dist/bundle/meta.json`, "utf8")) as {
    outputs: Record<string, { inputs: Record<string, unknown> }>;
  };
  return new Map(
    Object.entries(meta.outputs).map(([file, o]) => [
      file,
      Object.keys(o.inputs)
        .filter((i) => i.startsWith("src/"))
        .map((i) => i.slice("src/".length).replace(/\.ts$/, ".js")),
    ]),
  );
}

/**
 * memleak's own modules that `args` loaded, as paths relative to dist/: tsc's files as they are, a file of the bundle
 * as the source modules in it — what a command loads is the same question whichever form it was loaded from.
 */
async function loaded(name: string, args: string[]): Promise<string[]> {
  const log = join(dir, name);
  await run(process.execPath, ["--import", `${REPO}test/helpers/import-log.mjs`, MEMLEAK, ...args], {
    cwd: REPO,
    env: { ...process.env, MEMLEAK_IMPORT_LOG: log, NO_COLOR: "1" },
  });
  const dist = new URL(`file://${REPO}dist/`).href;
  const chunks = bundled();
  return [
    ...new Set(
      readFileSync(log, "utf8")
        .split("\n")
        .filter((u) => u.startsWith(dist))
        .map((u) => u.slice(dist.length))
        .flatMap((m) => (m.startsWith("bundle/") ? (chunks.get(`dist/${m}`) ?? [m]) : [m])),
    ),
  ];
}

/** What --help may load: the CLI layer, the shared base (base/), and the three small files it reads its words from: what the gates may check (gates/spec.ts), what a watch reads by default (sampling/defaults.ts) and what --try may name (trial/setting-text.ts). */
const CLI_LAYER = /^(cli\.js|cli\/.*|base\/.*|gates\/spec\.js|sampling\/defaults\.js|trial\/setting-text\.js)$/;
const deep = (modules: string[]) => modules.filter((m) => !CLI_LAYER.test(m));

describe("what --help loads", () => {
  it.each([["--help"], ["--version"], ["watch", "--help"], ["run", "-h"]])(
    "memleak %s loads the recorded help's layout alone: not even commander",
    async (...args) => {
      expect(await loaded(args.join("_"), args)).toEqual(["cli/help-layout.js"]);
    },
  );

  it.each([["help"], ["help", "watch"], ["watch", "--help", "--json"]])(
    "memleak %s (help the recorded one does not answer) loads the CLI layer only: nothing from system/, probes/, analysis/, commands/, report/",
    async (...args) => {
      const modules = await loaded(args.join("_"), args);
      expect(modules).toContain("cli/parse.js");
      expect(deep(modules)).toEqual([]);
    },
  );

  it("the CLI runs from the bundle: `memleak help` loads its files, not tsc's", async () => {
    const log = join(dir, "help-raw");
    await run(process.execPath, ["--import", `${REPO}test/helpers/import-log.mjs`, MEMLEAK, "help"], {
      cwd: REPO,
      env: { ...process.env, MEMLEAK_IMPORT_LOG: log, NO_COLOR: "1" },
    });
    const files = readFileSync(log, "utf8").split("\n");
    expect(files).toContain(new URL(`file://${REPO}dist/bundle/cli.js`).href);
    expect(files).not.toContain(new URL(`file://${REPO}dist/cli.js`).href);
  });

  it("the control: a snapshot does load them, and the hook sees it", async () => {
    const modules = await loaded("snapshot", ["snapshot", String(process.pid), "--json"]);
    expect(modules).toEqual(expect.arrayContaining(["system/host-fs.js", "probes/status.js"]));
  });
});

describe("what a session off a terminal loads", () => {
  // The live view's region (log-update and its width tables) is drawn only on a terminal and without --json, so it is
  // loaded only there (report/live/open-region.ts); these have no terminal (execFile's pipes).
  it.each([
    ["run", ["run", "--", "python3", "-c", "import time; time.sleep(2)"]],
    ["watch --json", ["watch", String(process.pid), "--no-inject", "--duration", "2s", "--json"]],
  ])("memleak %s samples without loading the live view", async (name, args) => {
    const modules = await loaded(name.replace(/\W+/g, "_"), args);
    expect(modules).toEqual(expect.arrayContaining(["session/session.js", "sampling/sampler.js"]));
    expect(modules).not.toContain("report/live/region.js");
  });
});
