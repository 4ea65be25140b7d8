/**
 * The line said when the agents' places change (analysis/agent-placement.ts `placementLine`), with what was last said:
 * one for watch's Attacher ("agents in …; the other N read from /proc") and one for run's RunAgents ("agents report
 * from …; the other N quiet").
 */
import { NOTHING_SAID, placementLine, type Placement, type PlacementSaid } from "../analysis/agent-placement.js";

export class PlacementLines {
  private last: PlacementSaid = NOTHING_SAID;

  constructor(
    private readonly words: { verb: string; others: string },
    private readonly say: (line: string) => void,
  ) {}

  /** Says the placement's line if it changed (and held), for a tree of `pythons` Python processes, `max` agents. */
  update(placement: Placement, pythons: number, max: number): void {
    const { said, line } = placementLine(placement, this.last, { pythons, max, ...this.words });
    this.last = said;
    if (line) this.say(line);
  }
}
