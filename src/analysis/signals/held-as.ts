/**
 * The name a holder's container goes by in the program's own code, for advice that shows a line to write: the agent
 * names a module global `__main__.background_tasks`, but the fix is written `background_tasks.discard` in that module.
 */
import type { HolderHop } from "../../agent/agent-results.js";

/** How each hop after the root is written in code; a hop with no such spelling (a set member, a closure cell) has none. */
const WRITTEN: Record<string, (name: string) => string | undefined> = {
  attribute: (n) => `.${n}`,
  "class attribute": (n) => `.${n}`,
  // Only an index or a whole quoted key: the agent writes others as it can ("[<Foo>]", "[?]", a key cut to 37 characters).
  item: (n) => (/^\[(\d+|'[^'\\]*'|"[^"\\]*")\]$/.test(n) ? n : undefined),
};

/** The root's own name as code writes it: the global without its module, the class's own name, the frame's local. */
function rootName(hop: HolderHop): string | undefined {
  switch (hop.kind) {
    case "module global":
    case "class":
      // "app.handlers.EVENTS", "app.models.Registry": the module is a prefix the module's own code does not write.
      return hop.name.slice(hop.name.lastIndexOf(".") + 1) || undefined;
    case "thread frame":
      // 'thread "MainThread": serve() local tasks'
      return /\blocal (\S+)$/.exec(hop.name)?.[1];
    default:
      return undefined;
  }
}

/** The container as an expression of the program's code (`background_tasks`, `Server.tasks`), or undefined. */
export function heldAs(hops: readonly HolderHop[] | undefined): string | undefined {
  if (!hops || hops.length === 0) return undefined;
  let text = rootName(hops[0]!);
  for (const hop of hops.slice(1)) {
    const written = WRITTEN[hop.kind]?.(hop.name);
    if (text === undefined || written === undefined) return undefined;
    text += written;
  }
  return text;
}
