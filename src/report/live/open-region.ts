/**
 * The live view's region, loaded only where it is drawn. log-update and the width tables it brings (a second
 * string-width that builds an Intl.Segmenter as it loads) cost every `run` and `watch` their loading at start; a
 * session that is not on a terminal, or prints JSON (a CI step, the bench), never draws and now never loads them.
 */
import type { LiveRegion, LiveTerminal } from "./region.js";

export async function openLiveRegion(
  io: LiveTerminal & { isTTY: boolean },
  json: boolean,
): Promise<LiveRegion | undefined> {
  if (!io.isTTY || json) return undefined;
  const { LiveRegion } = await import("./region.js");
  return new LiveRegion(io);
}
