/**
 * What `memleak pytest` refuses among pytest's own arguments before anything starts. pytest-xdist's workers (-n,
 * --dist, --tx) run tests in other processes, several at once: a test's growth could not be told from its
 * neighbours', so they are refused until each worker reports for itself.
 */
import { usageError } from "../base/errors.js";

const XDIST = /^(-n.*|--numprocesses(=.*)?|--dist(=.*)?|--tx(=.*)?|--maxprocesses(=.*)?)$/;

export function refuseXdist(pytestArgs: readonly string[]): void {
  for (const arg of pytestArgs) {
    if (arg === "--") break; // after pytest's own --, arguments are file names
    if (XDIST.test(arg)) {
      throw usageError(
        `pytest ${arg}: pytest-xdist workers are not supported: memleak measures each test in the process that runs it, one at a time; run without -n/--dist`,
      );
    }
  }
}
