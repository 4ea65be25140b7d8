/**
 * `node bench/attach-namespaces.mjs [REPEATS]` (as root; `npm run build` first): how long `watch` takes to get its
 * agent into a Python program in a container — its own mount namespace with a private tmpfs /tmp and its own PID
 * namespace, made by `unshare` — against the same program on the host, interleaved ABBA, REPEATS (10) of each; medians.
 *
 * Two figures per attach: memleak's own (from the start of the injection — for the container, placing the agent's
 * files and listening on the socket there — to the agent's hello: the "in X s" of its `agent attached` line, which it
 * prints to 0.1 s, so the wall figure beside it is the finer one) and the wall time from memleak's start to that line
 * (start-up, first tick, pid mapping included). The target is the same idle loop in both (short sleeps, so the pending
 * call runs at once); the figures are what the container adds to an attach, as a ratio against the host's.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { median, MEMLEAK, num, ratio, REPO, sleep, table } from "./lib/util.mjs";

const LOOP = "import time\nprint('ready', flush=True)\nwhile True:\n    sum(range(200))\n    time.sleep(0.005)";

function start(argv) {
  const child = spawn(argv[0], argv.slice(1), { cwd: REPO, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  return { child, out: () => out, err: () => err, done: new Promise((r) => child.once("exit", r)) };
}

async function until(check, ms, what) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

function target(contained) {
  const python = ["python3", "-u", "-c", LOOP];
  if (!contained) return start(python);
  const inner = `mount -t tmpfs -o mode=1777 tmpfs /tmp && exec python3 -u -c "$LOOP"`;
  process.env.LOOP = LOOP;
  return start(["unshare", "--mount", "--pid", "--fork", "--mount-proc", "sh", "-c", inner]);
}

/** The program's host pid: unshare --fork's child. */
function hostPid(t, contained) {
  if (!contained) return t.child.pid;
  return Number(readFileSync(`/proc/${t.child.pid}/task/${t.child.pid}/children`, "utf8").trim().split(/\s+/)[0]);
}

async function once(contained) {
  const t = target(contained);
  try {
    await until(() => /ready/.test(t.out()), 30_000, "the target");
    const pid = hostPid(t, contained);
    const t0 = performance.now();
    const w = start([process.execPath, MEMLEAK, "watch", String(pid), "--interval", "0.5", "--duration", "60"]);
    let wallMs;
    try {
      await until(() => /agent attached|no agent/.test(w.err()), 60_000, "memleak's attach line");
      wallMs = performance.now() - t0;
    } finally {
      w.child.kill("SIGINT");
      await w.done;
    }
    const m = /agent attached .* in ([\d.]+) s/.exec(w.err());
    if (!m) throw new Error(`no attach (${contained ? "container" : "host"}): ${w.err()}`);
    if (contained && !/in a container/.test(w.err())) throw new Error(`not seen in a container: ${w.err()}`);
    return { memleakMs: Number(m[1]) * 1000, wallMs };
  } finally {
    process.kill(-t.child.pid, "SIGKILL");
    await t.done;
  }
}

const repeats = Number(process.argv[2] ?? 10);
const host = [];
const container = [];
for (let r = 0; r < repeats; r++) {
  // ABBA: whichever goes first in a pair does not always meet the colder caches.
  for (const contained of r % 2 === 0 ? [false, true] : [true, false])
    (contained ? container : host).push(await once(contained));
  process.stderr.write(`attach-namespaces: ${r + 1}/${repeats}\n`);
}
const row = (name, xs, base) => {
  const wall = median(xs.map((x) => x.wallMs));
  const own = median(xs.map((x) => x.memleakMs));
  return [name, `${num(own, 0)} ms`, `${num(wall, 0)} ms`, ratio(wall / median(base.map((x) => x.wallMs)))];
};
console.log(
  table(
    ["target", "memleak's attach time (median)", "memleak start → agent attached (median)", "÷ host"],
    [row("on the host", host, host), row("in a container (own mount + PID namespace, private /tmp)", container, host)],
  ),
);
console.log(
  `\n${repeats} of each, interleaved ABBA; wall times: ${container.map((x) => num(x.wallMs, 0)).join(", ")} (container), ${host.map((x) => num(x.wallMs, 0)).join(", ")} (host)`,
);
