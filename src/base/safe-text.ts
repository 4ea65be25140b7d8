/**
 * Process names and command lines come from the target and may hold escape sequences; a process could otherwise
 * repaint the user's terminal (or start a workflow command in a CI log), so control characters are shown escaped —
 * C0, DEL and the C1 controls (U+009B is CSI). Wherever a target's text is put into words: analysis, advice, reports.
 */
export function safeText(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}
