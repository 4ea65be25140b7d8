/**
 * How a target sees memleak's socket and the agent's files, decided per target from its namespaces:
 *
 *   memleak's own mount and PID namespace   memleak's socket and installation, as before (nothing to place).
 *   another mount namespace (a container)   files and a socket placed in the target's /tmp (placement.ts).
 *   another PID namespace                   the agent says its pid inside; that socket's messages are mapped to host
 *                                           pids (NSpid, host-pids.ts), so reports, recordings and metrics carry host
 *                                           pids throughout.
 *
 * One socket per container view (mount namespace, PID namespace, uid): processes of one container share it, and a
 * forked worker's agent connects to the same one by itself.
 */
import { lchownSync } from "node:fs";
import { join } from "node:path";
import type { HostFs } from "../../system/host-fs.js";
import { HostPids } from "../../system/host-pids.js";
import { namespaceOf } from "../../system/namespaces.js";
import type { AgentChannel } from "../channel.js";
import { placeAgentFiles, removePlacement, removeStalePlacedDirs, type Placement } from "./placement.js";

export interface TargetView {
  /** The socket path as the target must connect to it. */
  socketPath: string;
  /** Set when the agent's files were placed in the target's view. */
  placed?: Placement;
}

export type ViewResult = { ok: true; view: TargetView | undefined } | { ok: false; reason: string };

export class ContainerViews {
  private readonly views = new Map<string, TargetView>();
  private readonly hostPids: HostPids;
  /** Processes seen in each placed view's mount namespace: the directory is removed through one still running. */
  private readonly members = new Map<string, Set<number>>();
  private readonly cleaned = new Set<string>();

  constructor(
    private readonly fs: HostFs,
    private readonly channel: AgentChannel,
    /** The watched tree's pids now: where a pid inside is looked for first. */
    private readonly likely: () => Iterable<number>,
  ) {
    this.hostPids = new HostPids(fs);
  }

  /** undefined view: the target shares memleak's namespaces, and the channel's own socket serves it. */
  async viewFor(pid: number, uid: number, gid: number): Promise<ViewResult> {
    const mnt = namespaceOf(this.fs, pid, "mnt");
    const pidNs = namespaceOf(this.fs, pid, "pid");
    // Unreadable links: no ptrace-read rights on PID, which the permission check before this has reported.
    if (mnt === undefined || pidNs === undefined) return { ok: true, view: undefined };
    const otherMnt = mnt !== namespaceOf(this.fs, "self", "mnt");
    const otherPid = pidNs !== namespaceOf(this.fs, "self", "pid");
    if (!otherMnt && !otherPid) return { ok: true, view: undefined };
    const key = `${mnt} ${pidNs} ${uid}`;
    if (otherMnt) {
      const members = this.members.get(mnt) ?? new Set<number>();
      this.members.set(mnt, members.add(pid));
    }
    const known = this.views.get(key);
    if (known) return { ok: true, view: known };

    const toHost = otherPid
      ? (inside: number) => this.hostPids.hostPid(pidNs, inside, this.likely())
      : (same: number) => same;
    if (!otherMnt) {
      // Same files, other pids: a socket of its own in memleak's directory, whose messages are mapped.
      const socketPath = join(this.channel.dir, `pid-${this.views.size}.sock`);
      await this.channel.listenInside(socketPath, toHost, () => {});
      const view = { socketPath };
      this.views.set(key, view);
      return { ok: true, view };
    }
    if (!this.cleaned.has(mnt)) {
      this.cleaned.add(mnt);
      await removeStalePlacedDirs(pid);
    }
    const placed = placeAgentFiles(pid, uid, gid);
    if (!placed.ok) return placed;
    const { placement } = placed;
    const members = this.members.get(mnt)!;
    try {
      const socket = join(placement.hostDir, "agent.sock");
      await this.channel.listenInside(
        socket,
        toHost,
        () => removePlacement(placement, members),
        (bind) => placement.asOwner(bind),
      );
      placement.asOwner(() => lchownSync(socket, uid, gid));
    } catch (err) {
      removePlacement(placement, members);
      return {
        ok: false,
        reason: `memleak cannot listen on a socket in PID ${pid}'s container (${(err as Error).message})`,
      };
    }
    const view = { socketPath: join(placement.innerDir, "agent.sock"), placed: placement };
    this.views.set(key, view);
    return { ok: true, view };
  }
}
