/**
 * b. Overhead on the target: the same fixed CPU-bound, allocating Python workload (bench/py/workload.py) alone, under
 * `memleak run --no-agent` (sampling from outside only), and under `memleak run` (the in-process agent too). The
 * workload times itself, so interpreter and memleak start-up are not counted. The three are interleaved, round after
 * round, so a burst of load elsewhere on the machine hits all three alike; the figure is the median per variant.
 */
import { exec, median, MEMLEAK, SYSTEM_PYTHON } from "../lib/util.mjs";

/** The agent and --no-agent are being built alongside this benchmark: look for the flag instead of assuming it. */
export async function agentAvailable() {
  const r = await exec([process.execPath, MEMLEAK, "run", "--help"]);
  return /--no-agent\b/.test(r.stdout + r.stderr);
}

async function timed(argv) {
  const r = await exec(argv, { timeoutMs: 300_000 });
  const line =
    r.stdout.split("\n").find((l) => l.startsWith('{"seconds"')) ??
    r.stderr.split("\n").find((l) => l.startsWith('{"seconds"'));
  if (!line)
    throw new Error(
      `workload printed no timing (exit ${r.code}): ${r.stderr.trim().split("\n").slice(-3).join(" / ")}`,
    );
  return { ...JSON.parse(line), wall: r.wallMs / 1000 };
}

export async function overhead({ rounds, repeats, log = () => {} }) {
  const agent = await agentAvailable();
  const workload = [SYSTEM_PYTHON, "bench/py/workload.py", String(rounds)];
  // Default settings (1 s interval, the default smaps budget); --json sends the command's stdout to stderr, hence both above.
  const run = (extra) => [process.execPath, MEMLEAK, "run", "--json", ...extra, "--", ...workload];
  const variants = [
    { name: "alone", argv: workload },
    {
      name: agent ? "memleak run --no-agent" : "memleak run (no agent exists yet)",
      argv: run(agent ? ["--no-agent"] : []),
    },
    ...(agent ? [{ name: "memleak run (agent on)", argv: run([]) }] : []),
  ];
  const times = variants.map(() => []);
  for (let r = 0; r < repeats; r++) {
    for (const [i, v] of variants.entries()) {
      log(`overhead: ${v.name}, round ${r + 1}/${repeats}`);
      times[i].push(await timed(v.argv));
    }
  }
  const alone = median(times[0].map((t) => t.seconds));
  const rows = variants.map((v, i) => {
    const s = median(times[i].map((t) => t.seconds));
    return {
      name: v.name,
      seconds: s,
      cpu: median(times[i].map((t) => t.cpu)),
      wall: median(times[i].map((t) => t.wall)),
      ratio: s / alone,
    };
  });
  if (!agent) rows.push({ name: "memleak run (agent on)", unavailable: "agent: not available yet" });
  return { agent, rounds, repeats, rows };
}
