/**
 * The parent-death wrapper (system/launch.ts): util-linux's setpriv when it has --pdeathsig, nothing otherwise. The
 * setprivs here are real executables on a PATH of their own: the one this machine has, and a stand-in for an old
 * util-linux (before 2.33) or busybox, which refuse the option with a usage error.
 */
import { chmodSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parentDeathWrapper } from "../../../src/system/launch.js";
import { tempDir } from "../../helpers/temp.js";

describe("the parent-death wrapper", () => {
  it("is the machine's setpriv --pdeathsig TERM when it has the option", () => {
    expect(parentDeathWrapper({ PATH: "/usr/bin:/bin" })).toEqual([
      expect.stringMatching(/\/setpriv$/),
      "--pdeathsig",
      "TERM",
      "--",
    ]);
  });

  it("is nothing where setpriv refuses --pdeathsig (util-linux before 2.33, busybox): the command starts unwrapped", () => {
    const dir = tempDir("old-setpriv");
    writeFileSync(`${dir}/setpriv`, `#!/bin/sh\necho "setpriv: unrecognized option '--pdeathsig'" >&2\nexit 1\n`);
    chmodSync(`${dir}/setpriv`, 0o755);
    expect(parentDeathWrapper({ PATH: dir })).toEqual([]);
  });
});
