/**
 * Small helpers shared by the benchmark and the scenario runner: statistics, tables, child processes, the machine.
 * Plain ESM JavaScript importing the compiled ../../dist/*.js, so it runs on Node 20 without a second build.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus, release, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const MEMLEAK = join(REPO, "bin", "memleak.js");
/** Debian's Python, with torch, psutil and numpy from apt; `python3` on PATH is a pyenv build without them. */
export const SYSTEM_PYTHON = "/usr/bin/python3";

export function median(xs) {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export const sum = (xs) => xs.reduce((a, b) => a + b, 0);
export const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** Fixed-precision number, or "–" for a value we do not have (never a silent 0). */
export function num(x, digits = 2) {
  return Number.isFinite(x) ? x.toFixed(digits) : "–";
}
export const ratio = (x) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : "–");
export const secs = (x) => (Number.isFinite(x) ? `${x.toFixed(1)} s` : "–");
export const mib = (bytes) => (Number.isFinite(bytes) ? `${(bytes / 2 ** 20).toFixed(1)} MiB` : "–");
export const met = (ok) => (ok === undefined ? "–" : ok ? "met" : "**not met**");

/** A GitHub-flavoured markdown table: readable on a terminal and pasted as is into BENCHMARKS.md. */
export function table(header, rows) {
  const all = [header, ...rows].map((r) => r.map((c) => String(c ?? "–")));
  const width = header.map((_, i) => Math.max(3, ...all.map((r) => r[i].length)));
  const line = (r) => `| ${r.map((c, i) => c.padEnd(width[i])).join(" | ")} |`;
  return [line(all[0]), `| ${width.map((w) => "-".repeat(w)).join(" | ")} |`, ...all.slice(1).map(line)].join("\n");
}

/**
 * Runs argv to completion, capturing stdout and stderr; never rejects on a non-zero exit (the caller judges).
 * `detached` gives the child a process group of its own so a timeout can kill its whole tree by that group's id.
 */
export function exec(argv, { env = {}, timeoutMs, cwd = REPO } = {}) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(argv[0], argv.slice(1), {
      cwd,
      env: { ...process.env, NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    let timedOut = false;
    const timer = timeoutMs
      ? setTimeout(() => {
          timedOut = true;
          killGroup(child.pid);
        }, timeoutMs)
      : undefined;
    child.once("error", (err) => {
      clearTimeout(timer);
      resolve({
        code: 127,
        signal: null,
        stdout,
        stderr: stderr + String(err),
        wallMs: performance.now() - started,
        timedOut,
      });
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, wallMs: performance.now() - started, timedOut });
    });
  });
}

/** Kills the process group we created (spawned with detached: true), by its id. */
export function killGroup(pid, signal = "SIGKILL") {
  try {
    process.kill(-pid, signal);
  } catch {
    /* already gone */
  }
}

/** Runs async jobs at most `limit` at a time, results in input order. */
export async function pool(items, limit, job) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await job(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** What the figures were measured on: they mean little without it. */
export function machine() {
  const cpuinfo = readFileSync("/proc/cpuinfo", "utf8");
  const model = /^model name\s*:\s*(.*)$/m.exec(cpuinfo)?.[1] ?? cpus()[0]?.model ?? "unknown";
  return {
    nproc: cpus().length,
    memory: `${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
    kernel: release(),
    cpu: model,
    node: process.version,
  };
}

/** Clock ticks per second of /proc/PID/stat's utime and stime (USER_HZ: 100 on every Linux memleak supports). */
const USER_HZ = 100;

/** utime + stime from a stat file (/proc/PID/stat or /proc/PID/task/TID/stat), in seconds; undefined once gone. */
export function statCpu(path) {
  try {
    const stat = readFileSync(path, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / USER_HZ;
  } catch {
    return undefined;
  }
}

/** CPU seconds a process has used (utime + stime), or undefined once it is gone. */
export const cpuSeconds = (pid) => statCpu(`/proc/${pid}/stat`);
