/**
 * Measuring, cutting and wrapping terminal text so every line fits `columns`: colour codes take no width, and a word
 * longer than the line (a cgroup path) is broken where the line ends.
 */

import cliTruncate from "cli-truncate";
import stringWidth from "string-width";

/**
 * Columns a line takes on a terminal (string-width): colour codes take none, CJK and emoji two. Counting code points
 * instead put a CJK command line past the edge of an 80-column terminal, where it wrapped.
 */
export function displayWidth(text: string): number {
  return stringWidth(text);
}

/** Cut to `width` columns, with "…" where it was cut; colour codes are kept and closed (cli-truncate). */
export function clip(text: string, width: number): string {
  return displayWidth(text) <= width ? text : cliTruncate(text, Math.max(1, width));
}

/** Exactly `width` columns: cut with "…" when longer, padded with spaces when shorter. */
export function fit(text: string, width: number): string {
  const cut = clip(text, width);
  return cut + " ".repeat(Math.max(0, width - displayWidth(cut)));
}

/** Word-wraps plain text; a word longer than the line (a path) is broken where the line ends. */
export function wrap(text: string, width: number, indent = "", hanging = indent): string[] {
  const lines: string[] = [];
  let line = indent;
  let lineHasWord = false;
  // A size stays on one line with its unit ("10.2 MiB"), so the space before a unit is not a break.
  for (const word of text.split(/\s+(?!(?:B|KiB|MiB|GiB|TiB)\b)/).filter(Boolean)) {
    const room = width - displayWidth(line) - (lineHasWord ? 1 : 0);
    if (displayWidth(word) <= room) {
      line += (lineHasWord ? " " : "") + word;
      lineHasWord = true;
      continue;
    }
    if (lineHasWord) lines.push(line);
    line = lineHasWord || lines.length > 0 ? hanging : indent;
    let rest = [...word];
    while (rest.length > Math.max(1, width - displayWidth(line))) {
      const avail = Math.max(1, width - displayWidth(line));
      lines.push(line + rest.slice(0, avail).join(""));
      line = hanging;
      rest = rest.slice(avail);
    }
    line += rest.join("");
    lineHasWord = true;
  }
  if (lineHasWord || lines.length === 0) lines.push(line);
  return lines;
}
