/**
 * What run and watch tell the user beside the report (src/session/feedback.ts), end to end on real
 * processes: the line at once when sampling starts, the next step after the verdict, and a run too short for any
 * sample saying so instead of printing figures.
 */
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import type { VerdictDocument } from "../../src/analysis/types.js";
import { memleak } from "../helpers/processes.js";
import { tempDir } from "../helpers/temp.js";

const leak = (seconds: number) => ["python3", "fixtures/scenarios/leak_main.py", String(seconds)];

describe("feedback from run and watch", { concurrent: true }, () => {
  it("run says at once what it samples, how often and how to stop, and after a leak with no gate how to fail CI and keep the samples", async () => {
    const r = await memleak(["run", "--interval", "0.5", "--json", "--", ...leak(14)]);
    const doc = JSON.parse(r.stdout) as VerdictDocument;
    const lines = r.stderr.split("\n").filter((l) => l.startsWith("memleak: "));
    // First of memleak's lines, before any progress line (one every 10 s in a log).
    expect(lines[0]).toMatch(
      new RegExp(
        `^memleak: sampling python3 fixtures/scenarios/leak_main.py 14 \\(PID ${doc.target.pid}\\) and its children every 500ms until it exits; Ctrl-C stops the command, then memleak reports$`,
      ),
    );
    expect(r.code).toBe(0);
    // A loaded machine may leave too little to call: the hint is checked against the verdict given.
    const leaked = [doc.verdict, ...doc.findings].some((f) => f.kind === "leak");
    expect(leaked, doc.verdict.summary).toBe(true);
    const after = lines.slice(lines.findIndex((l) => l.startsWith("memleak: stopped:")));
    expect(after).toContainEqual(expect.stringMatching(/add --fail-on leak to fail a CI step on it \(exit code 1\)/));
    expect(after).toContainEqual(
      expect.stringMatching(/add --record run\.jsonl to keep the samples, then `memleak analyze run\.jsonl`/),
    );
  });

  it("with a gate and a recording, no CI hint: it names the recording and how to analyze it again", async () => {
    const file = `${tempDir("feedback")}/leak.jsonl`;
    const r = await memleak(["run", "--interval", "0.5", "--fail-on", "cow", "--record", file, "--", ...leak(4)]);
    expect(r.stderr).not.toMatch(/--fail-on leak/);
    expect(r.stderr).not.toMatch(/add --record/);
    expect(r.stderr).toContain(
      `memleak: the samples are kept in ${file}: \`memleak analyze ${file}\` analyzes them again`,
    );
    const again = await memleak(["analyze", file]);
    expect(again.code, again.stderr).toBe(0);
  });

  it("a run too short for any sample says so, with no figures of a window that was never observed", async () => {
    const r = await memleak(["run", "--duration", "5", "--", "true"]);
    // stderr with it: CI on 90990cc and on f189e9d saw exit 70 (an internal error) once each. The crash file of a
    // repro (1 in 160 runs, four at once beside two busy loops) showed why: `true` exited between the sampler's stat and
    // status reads, and its root was judged with no memory figures (exit-mid-read.test.ts; none in 280 runs since).
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/next:/);
    expect(r.stdout).not.toMatch(/0 samples every/);
    // `true` exits within a millisecond, usually before memleak's first reading; on a busy machine that reading can
    // still catch it (a CI run: one sample). Then the one sample is said as such, and nothing more: no next steps
    // either (feedback.ts: a CI run printed "add --record run.jsonl to keep the samples" after that one reading).
    if (/^observed 1 sample\b/m.test(r.stdout)) return;
    expect(r.stdout).toMatch(/no samples: the process exited before memleak could read it/);
    expect(r.stdout).not.toMatch(/observed|of a core/);
  });

  it("watch says what it samples, and that the process runs on after Ctrl-C", async () => {
    const sleeper = spawn("sleep", ["60"], { stdio: "ignore" });
    try {
      const r = await memleak(["watch", "--interval", "0.5", "--duration", "1", String(sleeper.pid)]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr.split("\n")[0]).toBe(
        `memleak: sampling sleep 60 (PID ${sleeper.pid}) and its children every 500ms for 1s or until it exits; Ctrl-C stops watching (PID ${sleeper.pid} runs on) and reports`,
      );
    } finally {
      sleeper.kill("SIGKILL");
    }
  });
});
