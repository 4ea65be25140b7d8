/**
 * The two ways text reaches the HTML report, both safe for anything the target controls (process names, command
 * lines, paths, and the summaries and evidence that quote them):
 *   - as markup: escapeHtml, after safeText has made control characters visible (as the terminal report does);
 *   - as data: scriptJson, inside <script type="application/json">, read back by the page with JSON.parse and
 *     shown with textContent only.
 */
import { safeText } from "../../base/safe-text.js";

const HTML_ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text → markup that shows exactly that text, inside an element or a quoted attribute. */
export function escapeHtml(text: string | number | boolean): string {
  return safeText(String(text)).replace(/[&<>"']/g, (c) => HTML_ENTITIES[c]!);
}

/**
 * A value as JSON that can sit inside a <script> element: `<` is written \u003c so no "</script>" or "<!--" in a
 * string can end or confuse the element (and `>`, `&` for good measure); U+2028/U+2029 are escaped because some
 * parsers treat them as line ends.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/** Third-party code inlined in <script>/<style>: make sure nothing in it can close the element early. */
export function inlineSafe(code: string, element: "script" | "style"): string {
  return code.replace(new RegExp(`</(${element})`, "gi"), "<\\/$1");
}
