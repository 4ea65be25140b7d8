/**
 * `memleak pytest` takes the agent options `memleak run` takes: --trace-python's allocation sites reach the verdict
 * of a real pytest run (fixtures/pytest-suite), and --no-agent is refused in one line (the plugin needs the agent).
 */
import { describe, expect, it } from "vitest";
import type { VerdictDocument } from "../../src/analysis/types.js";
import { memleak, SYSTEM_PYTHON } from "../helpers/processes.js";

const pytest = (options: string[]) =>
  memleak([
    "pytest",
    "--python",
    SYSTEM_PYTHON,
    "--interval",
    "0.2",
    "--json",
    ...options,
    "--",
    "-q",
    "fixtures/pytest-suite/test_growth.py",
  ]);

// Two pytest sessions side by side take 19-21 s on a quiet machine, 33-37 s beside a busy loop, and went past the
// default 60 s when the machine ran four things a core (CI, issue 47): what is asserted is the sites, not the time.
describe("memleak pytest with run's agent options", { concurrent: true, timeout: 150_000 }, () => {
  it("--trace-python gives the allocation sites that grew, as under run; without it there are none", async () => {
    // --warmup 0: tracing starts at once (the suite runs in seconds, under the default 5 s warm-up); 20 calls each.
    const [traced, plain] = await Promise.all([
      pytest(["--trace-python", "--warmup", "0", "--repeat", "20"]),
      pytest(["--warmup", "0", "--repeat", "20"]),
    ]);
    const doc = JSON.parse(traced.stdout) as VerdictDocument;
    const docPlain = JSON.parse(plain.stdout) as VerdictDocument;
    expect(doc.tests?.length, traced.stderr).toBeGreaterThan(0);
    // The line that keeps 256 KiB a call (test_growth.py:8) is among the sites that grew.
    expect(
      doc.verdict.sites?.map((x) => `${x.file.split("/").pop()}:${x.line}`),
      traced.stderr,
    ).toContain("test_growth.py:8");
    expect(docPlain.verdict.sites).toBeUndefined();
  });

  it("--no-agent is a usage error, said in one line", async () => {
    const r = await memleak(["pytest", "--no-agent", "--", "-q"]);
    expect(r.code).toBe(2);
    expect(r.stderr.split("\n")[0]).toMatch(
      /^memleak: memleak pytest needs the agent \(its plugin reports each test through it\): drop --no-agent/,
    );
  });
});
