/**
 * memleak's own CPU time (user + system, every thread of the process: process.cpuUsage is getrusage(RUSAGE_SELF)):
 * what a smaps read is charged to the budget, what an interim verdict costs, what the session reports as its share.
 * CPU time, not wall time: on a busy machine a read's wall time includes the wait to be scheduled.
 */
export type CpuMark = NodeJS.CpuUsage;

export const cpuMark = (): CpuMark => process.cpuUsage();

/** Milliseconds of CPU this process has spent since `mark`. */
export function cpuMsSince(mark: CpuMark): number {
  const spent = process.cpuUsage(mark);
  return (spent.user + spent.system) / 1000;
}
