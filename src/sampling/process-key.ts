/**
 * One process across PID reuse: its pid and its start time (clock ticks since boot, /proc/PID/stat field 22). The
 * sampler, the series, the agent's attacher and the reports all key processes by it.
 */
export const processKey = (p: { pid: number; starttime: number }) => `${p.pid}:${p.starttime}`;
