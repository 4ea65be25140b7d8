/**
 * `run`'s orphan guard: when memleak is killed (kill -9, the OOM killer) nothing of memleak's runs any more, and a
 * program it launched must not go on unsupervised. The command gets its parent-death signal (setpriv, launch.ts); a
 * Python process whose agent is connected sees the connection end and stops itself (memleak_lifecycle.py
 * `_die_with_memleak`); the rest — a forked worker whose agent sleeps, which runs nothing of memleak's until it is
 * woken (so that an idle worker keeps the pages it shares with its parent: BENCHMARKS.md § g¹⁴), and any program the
 * command started — is this guard's: a small shell, in a session of its own, that waits on a pipe only memleak
 * writes to. memleak says "bye" before it ends as usual; the pipe's end without it, with memleak's socket directory
 * still there (memleak removes it as it ends), is a killed memleak. The guard then finds the run's processes by the
 * line every one of them carries in its environment (the agent's socket: one per run) and stops them as the agent
 * stops its own: SIGTERM, then SIGKILL after the grace. While memleak lives it costs one sleeping `sh`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants } from "node:fs";
import type { Socket } from "node:net";

export interface OrphanGuardPlan {
  /** NAME=value: the line in the environment of every process of this run, and of no other. */
  marker: string;
  /** The directory memleak removes as it ends as usual: still there once memleak is gone, memleak was killed. */
  liveDir: string;
  /** Seconds between SIGTERM and SIGKILL. */
  graceSeconds: number;
}

// $1 marker, $2 live directory, $3 grace in tenths of a second (sh counts in whole numbers). Lines on stdin: "skip PID"
// (the command: the kernel sends it SIGTERM itself), "bye" (memleak ends as usual). One grep reads every process's
// environment (its lines end in NUL: -z); the guard's own has no marker, nor have grep and sed. A process whose agent's
// thread is there (memleak-agent) stops itself and says so: it gets no SIGTERM of the guard's, only the SIGKILL after
// the grace if it is still there. The guard ends as soon as none is left.
const SCRIPT = `
skip=
while IFS= read -r line; do
  case $line in
    bye) exit 0 ;;
    skip\\ *) skip=\${line#skip } ;;
  esac
done
[ -d "$2" ] || exit 0
ours() {
  grep -lzxF -e "$1" /proc/[0-9]*/environ 2>/dev/null | sed -e 's,^/proc/,,' -e 's,/environ$,,'
}
for p in $(ours "$1"); do
  [ "$p" = "$skip" ] && continue
  grep -qsx memleak-agent /proc/"$p"/task/*/comm && continue
  kill -TERM "$p" 2>/dev/null && echo "memleak: the memleak that launched this process is gone (killed); stopping PID $p" >&2
done
i=0
while [ "$i" -lt "$3" ] && [ -n "$(ours "$1")" ]; do
  sleep 0.1
  i=$((i + 1))
done
for p in $(ours "$1"); do kill -KILL "$p" 2>/dev/null; done
`;

const SHELL = "/bin/sh";

export class OrphanGuard {
  private constructor(private readonly child: ChildProcess) {}

  /** Starts the guard, or nothing where there is no /bin/sh (then only the agents' own stop remains). */
  static start(plan: OrphanGuardPlan): OrphanGuard | undefined {
    try {
      accessSync(SHELL, constants.X_OK);
    } catch {
      return undefined;
    }
    const child = spawn(
      SHELL,
      ["-c", SCRIPT, "memleak-orphan-guard", plan.marker, plan.liveDir, String(Math.round(plan.graceSeconds * 10))],
      {
        // its own session: a signal to memleak's process group does not reach it; stderr is memleak's, for its lines
        detached: true,
        stdio: ["pipe", "ignore", "inherit"],
        env: { PATH: "/usr/bin:/bin" }, // not the run's environment: the guard must not find itself
      },
    );
    child.on("error", () => undefined); // a failed start leaves the agents' own stop, as without /bin/sh
    child.stdin!.on("error", () => undefined);
    child.unref();
    (child.stdin as Socket).unref?.();
    return new OrphanGuard(child);
  }

  /** The command's pid, where the kernel sends it SIGTERM itself at memleak's death: the guard sends it none. */
  skip(pid: number): void {
    this.child.stdin?.write(`skip ${pid}\n`);
  }

  /** memleak ends as usual: the guard ends, and every process of the run is left as it is. */
  release(): void {
    this.child.stdin?.end("bye\n");
  }
}
