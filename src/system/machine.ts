/**
 * A description of the machine for a recording's first line, so that someone reading it later knows what it ran
 * on. systeminformation knows how to name a CPU and a distribution across systems; it takes ~100 ms, so it is asked
 * only when a recording is written, with a time limit, and its absence is not an error.
 */
import { cpus, hostname, release, totalmem } from "node:os";

/** What a recording's header says of the machine (recording/format.ts RecordingHeader.machine). */
export interface MachineInfo {
  hostname: string;
  kernel: string;
  cpus: number;
  memTotal: number;
  pageSize?: number;
  cpuModel?: string;
  os?: string;
}

export async function describeMachine(timeoutMs = 2000): Promise<MachineInfo> {
  const base: MachineInfo = {
    hostname: hostname(),
    kernel: release(),
    cpus: cpus().length,
    memTotal: totalmem(),
    pageSize: 4096,
  };
  try {
    const si = await import("systeminformation");
    const details = Promise.all([si.cpu(), si.osInfo()]);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), timeoutMs)));
    const got = await Promise.race([details, timeout]).finally(() => clearTimeout(timer));
    if (got) {
      const [cpu, os] = got;
      base.cpuModel = `${cpu.manufacturer} ${cpu.brand}`.trim();
      base.os = `${os.distro} ${os.release} (${os.arch})`.trim();
    }
  } catch {
    /* the basic description is enough */
  }
  return base;
}
