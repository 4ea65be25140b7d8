/**
 * A test's prerequisite that the machine may lack (root, a memory cgroup of its own, tmux, Debian's PyTorch, an
 * interpreter). Off CI a missing one skips the test, with its name in the test's title where the caller puts it.
 * Under CI=true it fails the file instead, saying what is missing and how to get it: `.ci/run` installs everything
 * the suite needs, so a skip there is a machine that was not prepared, and a green run must not hide it (issue 47).
 */
import { underCI } from "./under-ci.js";

/** Whether to skip: `missing` off CI; under CI=true a missing prerequisite throws. */
export function lacking(missing: boolean, what: string, howToGet: string): boolean {
  if (!missing) return false;
  if (underCI()) {
    throw new Error(`CI=true and this machine lacks ${what}: ${howToGet}. Under CI no test is skipped for it.`);
  }
  return true;
}
