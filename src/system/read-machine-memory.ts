/**
 * The machine's memory at this tick (/proc/meminfo): what a subject no cgroup limits can still grow into. Read every
 * tick (one small file, ~20 µs) because MemAvailable moves with everything else on the machine.
 */
import { parseMeminfo } from "../probes/meminfo.js";
import type { Sample } from "./sample.js";
import type { HostFs } from "./host-fs.js";

export function readMachineMemory(fs: HostFs): Sample["machine"] {
  const text = fs.readOptional("/proc/meminfo");
  if (text === undefined) return undefined;
  const r = parseMeminfo(text);
  if (!r.ok) return undefined;
  return r.value.memAvailable === undefined
    ? { memTotal: r.value.memTotal }
    : { memTotal: r.value.memTotal, memAvailable: r.value.memAvailable };
}
