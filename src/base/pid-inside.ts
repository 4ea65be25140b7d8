/**
 * A watched process in a container has two pids (the host's and its own namespace's): the words that say the second,
 * shared by the attacher's messages and the report.
 */
/** " in a container (pid 1 inside)" for a host pid that has another pid in its own PID namespace; "" otherwise. */
export function insideText(pidInside: number | undefined): string {
  return pidInside === undefined ? "" : ` in a container (pid ${pidInside} inside)`;
}
