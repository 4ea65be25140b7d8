/**
 * What the agent channel costs memleak per report: several channel servers (bench/lib/channel-server.mjs), each fed
 * by N stand-in agents (bench/py/report_fleet.py) at 1 Hz, all at once so they share the machine's noise; each
 * server's utime + stime over the run, less the same server's with no agents. Usage:
 * node bench/lib/channel-cost.mjs SECONDS N "LABEL=DIST:PHASE" ...   (DIST a dist/ directory; PHASE spread|aligned|none)
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { REPO, sleep } from "./util.mjs";

const [seconds, n, ...configs] = process.argv.slice(2);
const cpu = (pid) => {
  const s = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
  return { user: Number(f[11]) / 100, sys: Number(f[12]) / 100 };
};
const runs = [];
for (const c of configs) {
  const [label, rest] = c.split("=");
  const [dist, phase] = rest.split(":");
  const server = spawn(process.execPath, [`${REPO}/bench/lib/channel-server.mjs`, dist, n], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const path = await new Promise((resolve) => server.stdout.once("data", (d) => resolve(String(d).trim())));
  const fleet =
    phase === "none"
      ? undefined
      : spawn("python3", [`${REPO}/bench/py/report_fleet.py`, path, n, phase, String(Number(seconds) + 15)], {
          stdio: "inherit",
        });
  runs.push({ label, server, fleet });
}
await sleep(10_000); // connections made, the JIT warm
const before = runs.map((r) => ({ s: cpu(r.server.pid), f: r.fleet && cpu(r.fleet.pid) }));
await sleep(Number(seconds) * 1000);
runs.forEach((r, i) => {
  const s = cpu(r.server.pid);
  const f = r.fleet && cpu(r.fleet.pid);
  const user = s.user - before[i].s.user;
  const sys = s.sys - before[i].s.sys;
  const perReport = ((user + sys) / (Number(seconds) * Number(n))) * 1e6;
  console.log(
    `${r.label.padEnd(24)} memleak side: user ${user.toFixed(2)} s, sys ${sys.toFixed(2)} s, ${(((user + sys) / Number(seconds)) * 100).toFixed(2)}% of a core, ${perReport.toFixed(0)} µs per report${f ? `; senders ${(((f.user + f.sys - before[i].f.user - before[i].f.sys) / Number(seconds)) * 100).toFixed(2)}%` : ""}`,
  );
});
for (const r of runs) {
  r.fleet?.kill();
  r.server.kill();
}
