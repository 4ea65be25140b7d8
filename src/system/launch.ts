/**
 * Starting the command for `memleak run`: no shell, the arguments exactly as given, stdio inherited so the user sees
 * their program as usual. The command is looked up on PATH first so "command not found" is a clear message (exit 3)
 * instead of an asynchronous spawn error.
 */
import { accessSync, constants, statSync } from "node:fs";
import { spawn, type ChildProcess } from "node:child_process";
import { delimiter, join } from "node:path";
import { observeError } from "../errors.js";

export function resolveCommand(command: string, env: NodeJS.ProcessEnv): string {
  const candidates = command.includes("/")
    ? [command]
    : (env.PATH ?? "").split(delimiter).filter(Boolean).map((dir) => join(dir, command));
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

export function launch(command: string[], env: NodeJS.ProcessEnv, output: LaunchOutput = { stdout: "inherit", stderr: "inherit" }): ChildProcess {
  const [program, ...args] = command;
  if (program === undefined) throw observeError("no command given after --");
  const path = resolveCommand(program, env);
  // argv0 stays what the user typed, so the process shows up under its usual name.
  return spawn(path, args, { stdio: ["inherit", output.stdout, output.stderr], env, argv0: program });
}
