/**
 * What a target in another mount namespace (a container) must read, put where it can read it. memleak's own /tmp and
 * installation are not in its view: the agent's files and the socket back to memleak go into a fresh 0700 directory
 * in the *target's* /tmp, reached from outside through /proc/PID/root (py-spy reads a container's files the same way),
 * owned by the target's uid (as the host sees it: a rootless container's mapped uid), so only it and root can read it.
 *
 * Why a socket file there, and not an abstract Unix socket or TCP: an abstract socket lives in a network namespace,
 * and a container usually has its own (Docker, every Kubernetes pod); a TCP port would need one reachable from both
 * sides and is open to every process that can reach it. A socket file is found by its inode: memleak binds it through
 * /proc/PID/root, the target connects by its own path, across mount, PID, network and user namespaces alike, and the
 * directory's mode keeps everyone but the target's user out.
 *
 * Where: the first of /tmp, /dev/shm, /var/tmp memleak can create a directory in (a read-only root filesystem often
 * keeps a writable /tmp or /dev/shm). A noexec mount does not matter: the agent is Python source, read, not executed.
 *
 * Symbolic links: a container's root may make its /tmp a link to anywhere, and memleak (root) would follow an absolute
 * link from the host's root. The candidate must be a real directory (lstat), the new one is made by mkdir (which never
 * follows a final link) and checked to sit on the candidate's filesystem, and the files are created exclusively
 * (O_EXCL: never through a link). What is left is a race with a hostile root inside the container swapping /tmp between
 * those checks, which needs that container's root to be memleak's adversary and fast.
 *
 * Cleanup: memleak removes the directory when it ends (channel.close); one killed before it could (SIGKILL) is
 * removed by the agents it leaves (memleak_lifecycle.py `_remove_placed`, once memleak's socket stops answering), or by
 * the next memleak that places files in that container (removeStalePlacedDirs).
 */
import {
  lchownSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, join } from "node:path";
import { alive } from "../../system/isolate.js";
import { answers } from "../channel.js";
import { agentDir } from "../preload.js";
import { AGENT_CODE_FILES } from "./precompile.js";

/**
 * The agent's files the target loads (memleak_attach.py loads memleak_agent.py and the rooms it always loads through
 * memleak_code.py: precompile.ts AGENT_CODE_FILES; the agent loads memleak_holder.py when a leak is suspected,
 * memleak_retained.py when a container gains items, memleak_graphs.py when tensors keep graphs, memleak_cow.py when
 * memleak asks a copying worker what it copied, memleak_trace.py under --trace-python, memleak_gpu_sites.py once
 * CUDA is up in it): all it needs.
 * test/unit/agent/placed-files.test.ts checks every room the agent loads is here.
 */
export const PLACED_FILES = [
  "memleak_attach.py",
  "memleak_code.py",
  ...AGENT_CODE_FILES,
  "memleak_holder.py",
  "memleak_retained.py",
  "memleak_graphs.py",
  "memleak_cow.py",
  "memleak_trace.py",
  "memleak_gpu_sites.py",
];
const CANDIDATES = ["/tmp", "/dev/shm", "/var/tmp"];
const PREFIX = "memleak-placed-";
/** A placed directory whose socket does not answer is stale after this long even if its pid is taken (by a process
 *  of another PID namespace: a memleak in a debug container has a pid this one cannot tell from its own). */
const STALE_AFTER_MS = 60_000;

export interface Placement {
  /** The directory as memleak reaches it: /proc/PID/root/tmp/memleak-placed-…. */
  hostDir: string;
  /** The same directory as the target sees it: /tmp/memleak-placed-…. */
  innerDir: string;
  /** Runs `fn` as the identity that may create files there: memleak's own, or the target's (a rootless container). */
  asOwner: <T>(fn: () => T) => T;
}

export type PlaceResult = { ok: true; placement: Placement } | { ok: false; reason: string };

const errText = (err: unknown) => (err as NodeJS.ErrnoException).code ?? (err as Error).message;

/** The target's root as memleak reaches it; undefined with why, when it cannot be (no ptrace-read rights on PID). */
export function reachRoot(pid: number): { ok: true; root: string } | { ok: false; reason: string } {
  const root = `/proc/${pid}/root`;
  try {
    readdirSync(root);
    return { ok: true, root };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ESRCH") return { ok: false, reason: `PID ${pid} exited` };
    return {
      ok: false,
      reason: `PID ${pid} is in another mount namespace (a container) and its files cannot be reached through /proc/${pid}/root (${errText(err)}): run memleak as root on the host, or with CAP_SYS_PTRACE (in Docker: --cap-add SYS_PTRACE; in Kubernetes: securityContext.capabilities.add: [SYS_PTRACE])`,
    };
  }
}

const asSelf = <T>(fn: () => T): T => fn();

/**
 * Runs `fn` with the target's uid and gid as memleak's effective ids. A filesystem mounted inside a user namespace (a
 * rootless container's /tmp) refuses files whose owner has no uid there (EOVERFLOW), and host root has none: they
 * must be created by the uid the container's root is. Synchronous on purpose: nothing else of memleak runs meanwhile
 * (the ids are the process's, every thread's).
 */
function asTarget(uid: number, gid: number): <T>(fn: () => T) => T {
  return <T>(fn: () => T): T => {
    process.setegid!(gid);
    process.seteuid!(uid);
    try {
      return fn();
    } finally {
      process.seteuid!(0);
      process.setegid!(0);
    }
  };
}

/** Makes the private directory in the target's view and copies the agent's files into it, owned by uid:gid. */
export function placeAgentFiles(pid: number, uid: number, gid: number): PlaceResult {
  const reached = reachRoot(pid);
  if (!reached.ok) return reached;
  const files = PLACED_FILES.map((file) => [file, readFileSync(join(agentDir(), file))] as const);
  const asUser = process.geteuid?.() === 0 && uid !== 0 ? asTarget(uid, gid) : undefined;
  const tried: string[] = [];
  for (const tmp of CANDIDATES) {
    let placed = placeIn(reached.root, tmp, files, uid, gid, asSelf);
    // A rootless container's own /tmp: only its uid may own files there. Preferred to a /dev/shm shared with the host.
    if (!placed.ok && placed.overflow && asUser) placed = placeIn(reached.root, tmp, files, uid, gid, asUser);
    if (placed.ok) return placed;
    tried.push(placed.why);
  }
  return {
    ok: false,
    reason: `memleak cannot place its agent's files in PID ${pid}'s container (${tried.join("; ")}): give it a writable /tmp (in Kubernetes an emptyDir volume at /tmp; in Docker --tmpfs /tmp)`,
  };
}

type Placed = { ok: true; placement: Placement } | { ok: false; why: string; overflow: boolean };

function placeIn(
  root: string,
  tmp: string,
  files: (readonly [string, Buffer])[],
  uid: number,
  gid: number,
  asOwner: <T>(fn: () => T) => T,
): Placed {
  const hostTmp = root + tmp;
  let dir: string;
  try {
    const before = lstatSync(hostTmp);
    if (!before.isDirectory()) return { ok: false, why: `${tmp} is not a directory`, overflow: false };
    dir = asOwner(() => mkdtempSync(join(hostTmp, `${PREFIX}${process.pid}-`)));
    const made = lstatSync(dir);
    const after = lstatSync(hostTmp);
    if (!made.isDirectory() || made.dev !== before.dev || after.ino !== before.ino || after.dev !== before.dev) {
      rmSync(dir, { recursive: true, force: true });
      return { ok: false, why: `${tmp} changed while memleak used it`, overflow: false };
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === "EROFS"
        ? `${tmp} is read-only`
        : code === "ENOENT"
          ? `no ${tmp}`
          : code === "EOVERFLOW"
            ? `${tmp} belongs to a user namespace where memleak's uid owns nothing`
            : `${tmp}: ${errText(err)}`;
    return { ok: false, why, overflow: code === "EOVERFLOW" };
  }
  try {
    asOwner(() => {
      for (const [file, bytes] of files) {
        writeFileSync(join(dir, file), bytes, { mode: 0o600, flag: "wx" });
        lchownSync(join(dir, file), uid, gid);
      }
      lchownSync(dir, uid, gid); // still 0700 (mkdtemp): the target's user and root only
    });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    return { ok: false, why: `${tmp}: ${errText(err)}`, overflow: false };
  }
  return { ok: true, placement: { hostDir: dir, innerDir: `${tmp}/${basename(dir)}`, asOwner } };
}

/**
 * Placed directories of memleaks that were killed (and whose agents could not remove them: none had attached), in
 * the target's view: removed once nothing answers on their socket and their memleak is gone or they are old.
 */
export async function removeStalePlacedDirs(pid: number): Promise<void> {
  for (const tmp of CANDIDATES) {
    const hostTmp = `/proc/${pid}/root${tmp}`;
    let names: string[];
    try {
      // A link would be followed from memleak's root: only the container's own directory is looked in.
      if (!lstatSync(hostTmp).isDirectory()) continue;
      names = readdirSync(hostTmp);
    } catch {
      continue;
    }
    for (const name of names) {
      const m = new RegExp(`^${PREFIX}(\\d+)-`).exec(name);
      if (!m || Number(m[1]) === process.pid) continue;
      const path = join(hostTmp, name);
      try {
        const st = lstatSync(path);
        if (!st.isDirectory()) continue;
        if (alive(Number(m[1])) && Date.now() - st.mtimeMs < STALE_AFTER_MS) continue;
        if (await answers(join(path, "agent.sock"))) continue;
        rmSync(path, { recursive: true, force: true });
      } catch {
        /* gone meanwhile */
      }
    }
  }
}

/** Removes a placement, through whichever process of that container still runs (the target may have exited). */
export function removePlacement(p: Placement, reachableThrough: Iterable<number>): void {
  const suffix = p.innerDir;
  for (const pid of reachableThrough) {
    const path = `/proc/${pid}/root${suffix}`;
    try {
      statSync(path);
    } catch {
      continue;
    }
    rmSync(path, { recursive: true, force: true });
    return;
  }
}
