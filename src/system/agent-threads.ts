/**
 * Which threads of the watched processes are memleak's own agent threads, so the tree walk can leave out their
 * children files. The walk reads /proc/PID/task/TID/children for every thread of every process at every tick (any
 * thread may fork); the agent's threads never fork, and with the agent in, each Python process has one more thread
 * than without it: on 64 processes at 1 Hz that file was ~5% of what `--no-inject` costs in all (BENCHMARKS.md §g⁵).
 *
 * The agent names its threads with prctl (memleak_lifecycle.py _name_native_thread), so they are known by their comm from
 * outside, in a container's PID namespace as well: no pid or tid has to be translated. A thread is looked at when it
 * first appears; one not (yet) named is looked at again on its next few ticks (the agent names its thread as the
 * thread starts, and a tick can fall between the two), then left alone: its children file is read as before. A thread
 * found to be the agent's is looked at again now and then, so that a tid reused by another thread after the agent
 * stopped (the kernel's pids wrapped) is walked again.
 */
import type { HostFs } from "./host-fs.js";

/** What the agent names its threads (PR_SET_NAME, 15 bytes at most). */
export const AGENT_THREAD_NAME = "memleak-agent";

/** How many ticks a thread not named as the agent's is looked at before it is taken for one of the program's. */
export const LOOKS_BEFORE_PROGRAM = 3;

/** Every this many ticks, a thread known as the agent's is looked at again. */
export const RECHECK_AGENT_TICKS = 64;

interface ThreadLook {
  agent: boolean;
  /** Looks so far (a thread not named as the agent's), or the tick it was last found to be the agent's. */
  count: number;
  /** The last walk that met the thread. */
  seen: number;
}

export class AgentThreads {
  private readonly threads = new Map<string, ThreadLook>();
  private tick = 0;

  constructor(private readonly fs: HostFs) {}

  /** Starts a walk: threads not seen during it are forgotten at `endWalk`. */
  beginWalk(): void {
    this.tick++;
  }

  /** Whether thread `tid` of `pid` is the agent's (its children file need not be read). */
  isAgent(pid: number, tid: string): boolean {
    const key = `${pid}/${tid}`;
    const look = this.threads.get(key);
    if (look !== undefined) {
      look.seen = this.tick;
      if (look.agent && this.tick - look.count < RECHECK_AGENT_TICKS) return true;
      if (!look.agent && look.count >= LOOKS_BEFORE_PROGRAM) return false;
    }
    const agent = this.named(pid, tid);
    const count = agent ? this.tick : look !== undefined && !look.agent ? look.count + 1 : 1;
    this.threads.set(key, { agent, count, seen: this.tick });
    return agent;
  }

  /** Forgets the threads of processes that were not walked this time (exited, or left the tree). */
  endWalk(): void {
    for (const [key, look] of this.threads) if (look.seen !== this.tick) this.threads.delete(key);
  }

  /** How many threads are remembered (for tests: the map stays bounded by the tree's threads). */
  get size(): number {
    return this.threads.size;
  }

  private named(pid: number, tid: string): boolean {
    const r = this.fs.readWith(`/proc/${pid}/task/${tid}/comm`, isAgentName);
    return r.ok && r.value;
  }
}

const NAME_BYTES = Buffer.from(AGENT_THREAD_NAME);

/** comm is the name and a newline (an empty file has no last byte: undefined is no newline). */
function isAgentName(bytes: Buffer): boolean {
  const end = bytes[bytes.length - 1] === 0x0a ? bytes.length - 1 : bytes.length;
  return bytes.subarray(0, end).equals(NAME_BYTES);
}
