/**
 * Targets in containers, without a container runtime: `unshare` gives a Python program what `docker run` gives it —
 * its own mount namespace with a private tmpfs /tmp (memleak's /tmp is not in its view), its own PID namespace (it is
 * pid 1, or a child of an init shell) — and optionally a user namespace (a rootless container: uid 0 inside is an
 * unprivileged uid outside) or another uid inside. Needs root (the tests skip without it) and util-linux's unshare
 * and setpriv.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { REPO } from "./fixtures.js";
import { startReady, type Started } from "./processes.js";

export interface Containment {
  /** A user namespace, started by an unprivileged uid (65534): root inside is that uid outside. */
  userNamespace?: boolean;
  /** Run the program as this uid (and gid) inside the container. */
  uid?: number;
  /** A shell (not Python) as the container's init, with the program as its child. */
  initShell?: boolean;
  python?: string;
  /** Share memleak's PID namespace, as `kubectl debug --target` or shareProcessNamespace do: only /tmp differs. */
  sharePids?: boolean;
  /** /tmp, /dev/shm and /var/tmp read-only (a readOnlyRootFilesystem pod without an emptyDir at /tmp). */
  readOnlyTmp?: boolean;
}

export interface Contained extends Started {
  /** The container's first process (the program, or the init shell), by its host pid: what `watch` is given. */
  target: number;
}

/** Users other than root cannot read pyenv's pythons under /root; Debian's is world-readable. */
export const WORLD_PYTHON = "/usr/bin/python3";

export const isRoot = process.geteuid?.() === 0;

/** Whether an unprivileged user may make a user namespace here (some kernels and distributions forbid it); why not. */
export const USER_NAMESPACES: { ok: true } | { ok: false; reason: string } = (() => {
  if (!isRoot) return { ok: false, reason: "needs root (to start the container as uid 65534)" };
  try {
    execFileSync(
      "setpriv",
      ["--reuid", "65534", "--regid", "65534", "--clear-groups", "unshare", "--user", "--map-root-user", "true"],
      { stdio: "pipe" },
    );
    return { ok: true };
  } catch (err) {
    return {
      ok: false,
      reason: `an unprivileged user cannot make a user namespace here (${String(
        (err as { stderr?: Buffer }).stderr ?? err,
      )
        .trim()
        .slice(0, 120)})`,
    };
  }
})();

/** Starts fixtures/scenarios/<script>.py (or fixtures/<script>.py for a path) in a container and resolves once it runs (or once `ready` is printed). */
export async function startContained(
  script: string,
  seconds: number,
  c: Containment = {},
  ready = /^ready$/m,
): Promise<Contained> {
  const python = c.python ?? (c.uid !== undefined || c.userNamespace ? WORLD_PYTHON : "python3");
  // Settings through the environment: no quoting of paths inside the shell's command. The script's source too, and the
  // container starts in /: a checkout under /tmp (a CI clone may be there) is hidden by the container's own /tmp.
  const boot =
    "import os, sys; p = os.environ['T_SCRIPT']; sys.argv = [p, os.environ['T_SECONDS']]; print('ready', flush=True); exec(compile(os.environ['T_SOURCE'], p, 'exec'), {'__name__': '__main__', '__file__': p})";
  const asUser = c.uid !== undefined ? `setpriv --reuid ${c.uid} --regid ${c.uid} --clear-groups ` : "";
  const program = `${asUser}${python} -u -c "${boot}"`;
  const mounts = c.readOnlyTmp
    ? ["/tmp", "/dev/shm", "/var/tmp"].map((d) => `mount -t tmpfs -o ro tmpfs ${d}`).join(" && ")
    : "mount -t tmpfs -o mode=1777 tmpfs /tmp";
  const inner = `${mounts} && ${c.initShell ? `${program}; sleep 1` : `exec ${program}`}`;
  const argv = [
    ...(c.userNamespace ? ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"] : []),
    "unshare",
    ...(c.userNamespace ? ["--user", "--map-root-user"] : []),
    "--mount",
    ...(c.sharePids ? [] : ["--pid", "--fork", "--mount-proc"]),
    "sh",
    "-c",
    inner,
  ];
  // A scenario by name, or a fixture script by its path under fixtures/ ("scripts/x").
  const path = `${REPO}fixtures/${script.includes("/") ? script : `scenarios/${script}`}.py`;
  const env = { ...process.env, T_SCRIPT: path, T_SOURCE: readFileSync(path, "utf8"), T_SECONDS: String(seconds) };
  const started = await startReady(argv, ready, 1, 30_000, { cwd: "/", env });
  // unshare --fork runs the shell as its child; without --fork, unshare itself execs it.
  return { ...started, target: c.sharePids ? started.pid : childOf(started.pid) };
}

function childOf(pid: number): number {
  const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).map(Number);
  if (!kids[0]) throw new Error(`unshare (PID ${pid}) has no child`);
  return kids[0];
}

/**
 * What memleak left in the container's /tmp (and /dev/shm): names of its directories there. Only a directory the
 * container does not have counts as holding nothing: a container that cannot be looked into (its process gone, no
 * permission) throws, rather than reading as clean.
 */
export function memleakLeftovers(pid: number): string[] {
  readdirSync(`/proc/${pid}/root/`);
  return ["/tmp", "/dev/shm"].flatMap((dir) => {
    try {
      return readdirSync(`/proc/${pid}/root${dir}`)
        .filter((n) => n.startsWith("memleak"))
        .map((n) => `${dir}/${n}`);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw err;
    }
  });
}

/** The pid a host process has in its own PID namespace (the last of NSpid). */
export function pidInsideOf(pid: number): number {
  const line = /^NSpid:\s*(.*)$/m
    .exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]!
    .trim()
    .split(/\s+/);
  return Number(line[line.length - 1]);
}
