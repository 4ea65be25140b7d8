/**
 * j. The holder search's pause (issue 29): bench/py/holder_pause.py in python3, on heaps of 100,000 and 1,000,000
 * tracked objects — the search's wall and CPU time, its longest single gc.get_referrers pass (the GIL held), and the
 * longest gap a program thread ticking every millisecond saw, against that thread's longest gap over an idle window
 * as long and a full gc.collect() of the same heap, both measured in the same process.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { REPO } from "../lib/util.mjs";

export function holderPause({ sizes, repeats, log }) {
  return sizes.map((n) => {
    log(`j: holder search on a heap of ${n.toLocaleString("en-US")} objects`);
    const stdout = execFileSync("python3", [join(REPO, "bench/py/holder_pause.py"), String(n), String(repeats)], {
      encoding: "utf8",
    });
    return JSON.parse(stdout);
  });
}
