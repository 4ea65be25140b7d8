/**
 * Measuring and wrapping terminal text so every line fits `columns`: colour codes take no width, and a word longer
 * than the line (a cgroup path) is broken where the line ends.
 */

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

/** Columns a line takes: ANSI colour codes take none; every other code point one (CJK in a command line is the rare exception). */
export function displayWidth(text: string): number {
  return [...text.replace(ANSI, "")].length;
}

/** Cut to `width` columns, with "…" where it was cut. */
export function clip(text: string, width: number): string {
  const cps = [...text];
  return cps.length <= width ? text : cps.slice(0, Math.max(0, width - 1)).join("") + "…";
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
