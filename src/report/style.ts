/**
 * Colour and text hygiene shared by the terminal reporters.
 * Colour only when the caller says so (a TTY without NO_COLOR): logs and pipes get plain text.
 * Process names and command lines come from the target and may hold escape sequences: base/safe-text.ts escapes them.
 */
import { Chalk, type ChalkInstance } from "chalk";

export function palette(color: boolean): ChalkInstance {
  return new Chalk({ level: color ? 1 : 0 });
}

export function truncate(text: string, width: number): string {
  return text.length <= width ? text : text.slice(0, Math.max(0, width - 1)) + "…";
}

/** cli-table3 styles its header and borders in colour by default; this turns that off for plain output. */
export function tableStyle(color: boolean) {
  return color ? { head: ["cyan"], border: ["grey"] } : { head: [], border: [] };
}
