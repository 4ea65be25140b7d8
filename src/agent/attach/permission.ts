/**
 * Whether this memleak may ptrace a process, and if not, the one line that says why and what to change. Decided from
 * /proc before gdb is started, so the common refusals (another user, Yama, a container without CAP_SYS_PTRACE, a
 * debugger already attached) get a precise message rather than gdb's "Operation not permitted".
 *
 * Kernel rules (Documentation/admin-guide/LSM/Yama.rst, ptrace(2)): another uid needs CAP_SYS_PTRACE; Yama scope 1
 * allows only descendants (or CAP_SYS_PTRACE); scope 2 only CAP_SYS_PTRACE; scope 3 nobody. A process has one tracer.
 */
import { colonFields } from "../../probes/key-value.js";
import { parseCount } from "../../probes/parsed.js";

const CAP_SYS_PTRACE = 19;

export interface TracerFacts {
  /** Real uid and gid of the target. */
  uid: number | undefined;
  gid: number | undefined;
  /** Non-zero when a debugger (or strace) already traces it. */
  tracerPid: number | undefined;
  /** The uid and gid it opens files with (the fourth of status's Uid and Gid): who must own what is placed for it. */
  fsUid: number | undefined;
  fsGid: number | undefined;
}

export interface OwnFacts {
  euid: number;
  capSysPtrace: boolean;
  /** kernel.yama.ptrace_scope, undefined without Yama. */
  yamaScope: number | undefined;
}

const STATUS_KEYS = new Set(["Uid", "Gid", "TracerPid", "CapEff"]);
const first = (field: string | undefined) => parseCount((field ?? "").split(/\s+/)[0] ?? "");
const fourth = (field: string | undefined) => parseCount((field ?? "").split(/\s+/)[3] ?? "");

export function tracerFacts(statusText: string): TracerFacts {
  const f = colonFields(statusText, STATUS_KEYS);
  return {
    uid: first(f.get("Uid")),
    gid: first(f.get("Gid")),
    tracerPid: parseCount(f.get("TracerPid") ?? ""),
    fsUid: fourth(f.get("Uid")),
    fsGid: fourth(f.get("Gid")),
  };
}

/** CapEff is a hex mask; bit 19 is CAP_SYS_PTRACE. */
export function hasCapSysPtrace(statusText: string): boolean {
  const hex = colonFields(statusText, STATUS_KEYS).get("CapEff");
  if (!hex || !/^[0-9a-f]+$/i.test(hex)) return false;
  return ((BigInt(`0x${hex}`) >> BigInt(CAP_SYS_PTRACE)) & 1n) === 1n;
}

const CONTAINER_HINT = "in Docker: --cap-add SYS_PTRACE; in Kubernetes: securityContext.capabilities.add: [SYS_PTRACE]";

/** Undefined when ptrace should work; otherwise why not, in one line. */
export function ptraceRefusal(pid: number, target: TracerFacts, own: OwnFacts): string | undefined {
  if (target.tracerPid)
    return `PID ${pid} is already traced by PID ${target.tracerPid} (a debugger or strace): a process can have only one tracer`;
  if (own.yamaScope === 3)
    return "ptrace is disabled on this machine (kernel.yama.ptrace_scope=3, which only a reboot undoes)";
  if (own.capSysPtrace) return undefined;
  const rootWithoutCap = own.euid === 0 ? "memleak runs as root but without CAP_SYS_PTRACE (a container?): " : "";
  if (target.uid !== undefined && target.uid !== own.euid) {
    return rootWithoutCap
      ? `${rootWithoutCap}it cannot attach to PID ${pid} of uid ${target.uid}; ${CONTAINER_HINT}`
      : `PID ${pid} belongs to another user (uid ${target.uid}): run memleak as that user, or as root`;
  }
  if (own.yamaScope === 2)
    return `${rootWithoutCap || ""}kernel.yama.ptrace_scope=2 lets only CAP_SYS_PTRACE attach: run memleak as root${rootWithoutCap ? ` (${CONTAINER_HINT})` : ""}`;
  if (own.yamaScope === 1) {
    return `kernel.yama.ptrace_scope=1 lets a process attach only to its own children: run memleak as root (sudo), or allow it with \`sudo sysctl kernel.yama.ptrace_scope=0\`${rootWithoutCap ? `; ${CONTAINER_HINT}` : ""}`;
  }
  return undefined;
}
