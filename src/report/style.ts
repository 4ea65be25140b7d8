/**
 * Colour and text hygiene shared by the terminal reporters.
 * Colour only when the caller says so (a TTY without NO_COLOR): logs and pipes get plain text.
 * Process names and command lines come from the target and may hold escape sequences: safe-text.ts escapes them.
 */
import { Chalk, type ChalkInstance } from "chalk";

export function palette(color: boolean): ChalkInstance {
  return new Chalk({ level: color ? 1 : 0 });
}

export function truncate(text: string, width: number): string {
  return text.length <= width ? text : text.slice(0, Math.max(0, width - 1)) + "…";
}

/** An SGR colour sequence (what chalk writes): no width on the terminal. */
const SGR = /\x1b\[[0-9;]*m/y;

/**
 * truncate() for text that may hold colour sequences: only visible characters count towards `width` (a coloured
 * line cut by its length in code units either wrapped at 80 columns or lost letters), and a cut line ends with the
 * colours reset.
 */
export function truncateVisible(text: string, width: number): string {
  let visible = 0;
  let coloured = false;
  for (let i = 0; i < text.length; ) {
    SGR.lastIndex = i;
    const m = SGR.exec(text);
    if (m) {
      coloured = true;
      i += m[0].length;
      continue;
    }
    const ch = text.codePointAt(i)!;
    const size = ch > 0xffff ? 2 : 1;
    if (visible === width - 1 && i + size < text.length && hasVisibleAfter(text, i + size)) {
      return text.slice(0, i) + "…" + (coloured ? "\x1b[0m" : "");
    }
    visible++;
    i += size;
  }
  return text;
}

/** Whether anything but colour sequences follows position i. */
function hasVisibleAfter(text: string, i: number): boolean {
  while (i < text.length) {
    SGR.lastIndex = i;
    const m = SGR.exec(text);
    if (!m) return true;
    i += m[0].length;
  }
  return false;
}

/** cli-table3 styles its header and borders in colour by default; this turns that off for plain output. */
export function tableStyle(color: boolean) {
  return color ? { head: ["cyan"], border: ["grey"] } : { head: [], border: [] };
}
