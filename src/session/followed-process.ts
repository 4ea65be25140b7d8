/**
 * What the session's agent placement follows of one process while it lives, for watch's Attacher and run's RunAgents
 * alike (analysis/agent-placement.ts decides on it): the lows of its anonymous memory (does it grow?), its command line
 * (the group key with its parent, read once, when first needed), and whether it copies its parent's pages (USS up by
 * copy-on-write's floor beyond its anon's own growth, from its first readings: signals/cow.ts copiedSoFar).
 */
import { LowsWatch } from "../analysis/agent-placement.js";
import { copiedSoFar } from "../analysis/signals/cow.js";

export class FollowedProcess {
  readonly lows: LowsWatch;
  private copyFrom: Parameters<typeof copiedSoFar>[0] | undefined;
  private copying = false;
  private commandLine: string | undefined;

  /**
   * @param starttime the process's (a reused pid is another process, followed afresh)
   * @param born it appeared while memleak watched: its first block of lows is its start-up (LowsWatch)
   */
  constructor(
    readonly starttime: number,
    born: boolean,
  ) {
    this.lows = new LowsWatch(born);
  }

  /** One tick's readings: anon for the lows; USS and anon, with a parent, for the copying. */
  read(p: { anon?: number | undefined; uss?: number | undefined; ppid?: number | undefined }): void {
    this.lows.add(p.anon);
    if (p.uss === undefined || p.anon === undefined) return;
    if (!this.copyFrom) this.copyFrom = { ussStart: p.uss, anonStart: p.anon };
    else this.copying ||= p.ppid !== undefined && copiedSoFar(this.copyFrom, p.uss, p.anon) !== undefined;
  }

  get grows(): boolean {
    return this.lows.grows;
  }

  get copies(): boolean {
    return this.copying;
  }

  /** Its command line as one string, read by `read` the first time it is asked for, then kept. */
  command(read: () => string): string {
    return (this.commandLine ??= read());
  }
}
