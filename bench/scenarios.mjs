/**
 * `npm run scenarios`: every fixtures/scenarios/*.py under `memleak run --json --interval 0.5`, two at a time (the
 * machine has two cores; more would make each run a different, more loaded, experiment). Prints what each was
 * expected to be, what memleak said, and when it settled. Exits 1 if any verdict was wrong.
 *
 *   node bench/scenarios.mjs [NAME…]      only these scenarios
 */
import { discoverScenarios, runScenario } from "./lib/scenarios.mjs";
import { pool, secs, table } from "./lib/util.mjs";

export function scenarioTable(results) {
  return table(
    ["scenario", "expected", "got", "subject", "time to verdict", "run", "result"],
    results.map((r) => [
      r.sc.name,
      r.sc.expect + (r.sc.subject ? ` (${r.sc.subject})` : ""),
      r.got ?? "–",
      r.subject ?? r.error ?? "–",
      r.settled === undefined
        ? r.doc
          ? "never settled"
          : "–"
        : r.settled === r.firstJudged
          ? `≤ ${secs(r.settled)}`
          : secs(r.settled),
      secs(r.duration),
      r.ok ? "ok" : "WRONG",
    ]),
  );
}

async function main() {
  const only = process.argv.slice(2).filter((a) => !a.startsWith("-"));
  const scenarios = discoverScenarios().filter((s) => only.length === 0 || only.includes(s.name));
  process.stderr.write(
    `scenarios: running ${scenarios.length} (${scenarios.map((s) => s.name).join(", ")}), 2 at a time\n`,
  );
  const results = await pool(scenarios, 2, async (sc) => {
    const r = await runScenario(sc);
    process.stderr.write(`  ${sc.name}: ${r.ok ? "ok" : "WRONG"} (${r.got ?? r.error})\n`);
    return r;
  });
  console.log(scenarioTable(results));
  console.log(
    "\ntime to verdict: the first moment (of the recording, from 10 s on) after which every interim verdict had the",
  );
  console.log('final kind (and, for a leak, the final pid); "≤" means it was right from the first judgement.');
  for (const r of results) {
    if (r.doc && !r.replayAgrees)
      console.log(
        `note: ${r.sc.name}: \`memleak analyze\` of the recording gives a different verdict than the run did`,
      );
    if (!r.ok && r.doc) {
      console.log(
        `\n${r.sc.name}: expected ${r.sc.expect}${r.sc.subject ? ` on the ${r.sc.subject}` : ""}, got ${r.got} on ${r.subject}: ${r.doc.verdict.summary}`,
      );
      for (const f of r.doc.findings)
        console.log(`  - ${f.kind} (${f.subject.type}${f.pid ? ` ${f.pid}` : ""}): ${f.summary}`);
    }
  }
  const wrong = results.filter((r) => !r.ok).length;
  if (wrong > 0) console.log(`\n${wrong} of ${results.length} scenarios got the wrong verdict`);
  process.exitCode = wrong > 0 || missing.length > 0 ? 1 : 0;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
