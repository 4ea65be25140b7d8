#!/usr/bin/env node
// The README's first command ends here: starts a bundled Python process tree (a parent holding 200 MB and two forked
// workers that copy-on-write part of it), takes a `memleak snapshot` of it, and stops it.
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("..", import.meta.url));
const python = process.env.PYTHON ?? "python3";
const child = spawn(python, ["fixtures/scripts/forked_holder.py", "30", "200"], {
  cwd: repo,
  stdio: ["ignore", "pipe", "inherit"],
  detached: true,
});
child.on("error", (e) => {
  console.error(`example: cannot start ${python}: ${e.message}`);
  process.exit(3);
});
let ready = 0;
child.stdout.on("data", (d) => {
  ready += (d.toString().match(/ready/g) ?? []).length;
  if (ready < 3) return;
  child.stdout.removeAllListeners("data");
  console.log(`$ memleak snapshot ${child.pid}   # python3 fixtures/scripts/forked_holder.py, with 2 forked workers\n`);
  const r = spawnSync(process.execPath, ["bin/memleak.js", "snapshot", String(child.pid)], {
    cwd: repo,
    stdio: "inherit",
  });
  process.kill(-child.pid, "SIGKILL");
  process.exitCode = r.status ?? 1;
});
