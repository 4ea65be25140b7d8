/**
 * The small markdown subset the advice files use (src/advice/*.md): paragraphs, "- " bullet lists whose items may
 * continue on indented lines, `code`, **bold** and *emphasis*. Parsed into blocks that both reporters share: the
 * terminal re-wraps them to its width, the HTML report turns them into markup.
 *
 * Advice quotes the target (its command line), so the HTML path escapes all text FIRST and only then adds the few
 * tags it knows; nothing in the source can produce a tag, an attribute or a link.
 */
import { escapeHtml } from "./escape.js";

export type Block = { type: "p"; text: string } | { type: "ul"; items: string[] };

/** Lines → paragraphs and bullet lists; soft line breaks inside a paragraph or item become spaces. */
export function markdownBlocks(md: string): Block[] {
  const blocks: Block[] = [];
  let para: string[] = [];
  let list: string[] | undefined;
  const flushPara = () => {
    if (para.length) blocks.push({ type: "p", text: para.join(" ") });
    para = [];
  };
  const flushList = () => {
    if (list?.length) blocks.push({ type: "ul", items: list });
    list = undefined;
  };
  for (const raw of md.split(/\r?\n/)) {
    const line = raw.trimEnd();
    const bullet = /^\s*[-*]\s+(.*)$/.exec(line);
    if (line.trim() === "") {
      flushPara();
      flushList();
    } else if (bullet) {
      flushPara();
      (list ??= []).push(bullet[1]!.trim());
    } else if (list && /^\s+/.test(line)) {
      // An indented line continues the last bullet.
      list[list.length - 1] += " " + line.trim();
    } else {
      flushList();
      para.push(line.trim());
    }
  }
  flushPara();
  flushList();
  return blocks;
}

/** Inline markup → plain text for the terminal: keep the words, drop the markers. */
export function plainInline(text: string): string {
  return text
    .replace(/`([^`]+)`/g, "$1")
    .replace(/\*\*(.+?)\*\*/g, "$1")
    .replace(/(^|[^*\w])\*([^*\s][^*]*?)\*(?=[^*\w]|$)/g, "$1$2");
}

/** Inline markup → HTML. Escapes first; code spans are cut out before emphasis so `a*b*c` stays literal. */
export function inlineHtml(text: string): string {
  return text
    .split(/(`[^`]+`)/)
    .map((part, i) => {
      if (i % 2 === 1) return `<code>${escapeHtml(part.slice(1, -1))}</code>`;
      return escapeHtml(part)
        .replace(/\*\*(.+?)\*\*/g, "<strong>$1</strong>")
        .replace(/(^|[^*\w])\*([^*\s][^*]*?)\*(?=[^*\w]|$)/g, "$1<em>$2</em>");
    })
    .join("");
}

export function markdownToHtml(md: string): string {
  return markdownBlocks(md)
    .map((b) =>
      b.type === "p"
        ? `<p>${inlineHtml(b.text)}</p>`
        : `<ul>${b.items.map((it) => `<li>${inlineHtml(it)}</li>`).join("")}</ul>`,
    )
    .join("\n");
}
