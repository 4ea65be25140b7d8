/**
 * What memleak's output may use on this terminal, from the environment the user set (pure, so each rule is tested):
 *  - colour: a terminal, unless NO_COLOR is set (no-color.org: any non-empty value) or TERM is "dumb"; FORCE_COLOR
 *    asks for it even in a log or a pipe (a CI log that renders ANSI), and "0" or "false" refuses it — NO_COLOR wins
 *    over both, as the user's standing refusal;
 *  - the live view: a terminal that can move its cursor — not TERM=dumb (Emacs' shell, some CI runners), where the
 *    redraws would pile up as text; there the progress line every 10 s is used, as in a log;
 *  - ASCII instead of block characters in sparklines: TERM=dumb, whose fonts may lack them.
 */
export interface TerminalPolicy {
  color: boolean;
  live: boolean;
  ascii: boolean;
}

export function terminalPolicy(
  env: Readonly<Record<string, string | undefined>>,
  stdoutIsTTY: boolean,
): TerminalPolicy {
  const dumb = env.TERM === "dumb";
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== "";
  const force = env.FORCE_COLOR;
  const forced = force === undefined ? undefined : !(force === "0" || force.toLowerCase() === "false");
  const color = !noColor && (forced ?? (stdoutIsTTY && !dumb));
  return { color, live: stdoutIsTTY && !dumb, ascii: dumb };
}
