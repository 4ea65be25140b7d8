/**
 * Starting the command for `memleak run`: no shell, the arguments exactly as given, stdio inherited so the user sees
 * their program as usual. The command is looked up on PATH first so "command not found" is a clear message (exit 3)
 * instead of an asynchronous spawn error.
 */
import { accessSync, constants, statSync } from "node:fs";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { basename, delimiter, join } from "node:path";
import { observeError } from "../base/errors.js";

export function resolveCommand(command: string, env: NodeJS.ProcessEnv): string {
  const candidates = command.includes("/")
    ? [command]
    : (env.PATH ?? "")
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, command));
  for (const c of candidates) {
    try {
      if (!statSync(c).isFile()) continue;
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      /* next */
    }
  }
  if (command.includes("/")) {
    let why = "no such file";
    try {
      why = statSync(command).isFile() ? "not executable" : "not a file";
    } catch {
      /* keep "no such file" */
    }
    throw observeError(`cannot run ${command}: ${why}`);
  }
  throw observeError(`command not found: ${command} (not on PATH)`);
}

/** How the command's stdout and stderr are connected: straight to memleak's own, or through pipes memleak reads. */
export interface LaunchOutput {
  stdout: "inherit" | "pipe";
  stderr: "inherit" | "pipe";
}

/**
 * The signal the command gets when memleak dies without stopping it (kill -9): the one memleak itself sends to stop
 * a command (Ctrl-C forwarded aside), so a program that cleans up on SIGTERM does so here too.
 */
export const PARENT_DEATH_SIGNAL = "TERM";

/**
 * util-linux's setpriv sets PR_SET_PDEATHSIG and then execs the command in the same process (same pid, nothing left
 * in between): when memleak dies — even by SIGKILL, which it cannot catch — the kernel signals the command. Node has
 * no prctl of its own. Where setpriv is missing the command is started as before; Python processes then still stop
 * with memleak through the agent (memleak_lifecycle.py `_die_with_memleak`).
 */
export function parentDeathWrapper(env: NodeJS.ProcessEnv): string[] {
  let setpriv: string;
  try {
    setpriv = resolveCommand("setpriv", { PATH: `${env.PATH ?? ""}${delimiter}/usr/bin${delimiter}/bin` });
  } catch {
    return [];
  }
  const wrapper = [setpriv, "--pdeathsig", PARENT_DEATH_SIGNAL, "--"];
  // --pdeathsig came in util-linux 2.33 (RHEL 8 and Ubuntu 18.04 ship setpriv without it; busybox's applet lacks it):
  // tried once on `true`, or every command would fail with setpriv's usage error as its own exit status.
  const probe = spawnSync(setpriv, [...wrapper.slice(1), "true"], { stdio: "ignore", timeout: 2000 });
  return probe.status === 0 ? wrapper : [];
}

/** Whether the kernel sends this command SIGTERM itself when memleak dies: it was started through setpriv. */
export function signalledAtParentDeath(child: ChildProcess): boolean {
  return basename(child.spawnfile) === "setpriv";
}

export function launch(
  command: string[],
  env: NodeJS.ProcessEnv,
  output: LaunchOutput = { stdout: "inherit", stderr: "inherit" },
): ChildProcess {
  const [program, ...args] = command;
  if (program === undefined) throw observeError("no command given after --");
  const path = resolveCommand(program, env);
  const stdio: ["inherit", LaunchOutput["stdout"], LaunchOutput["stderr"]] = ["inherit", output.stdout, output.stderr];
  const wrapper = parentDeathWrapper(env);
  // argv0 stays what the user typed, so the process shows up under its usual name (setpriv execs it as given, found
  // on the same PATH that resolveCommand searched).
  if (wrapper.length > 0) return spawn(wrapper[0]!, [...wrapper.slice(1), program, ...args], { stdio, env });
  return spawn(path, args, { stdio, env, argv0: program });
}
