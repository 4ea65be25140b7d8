/** A process's command as a person would type it: the program's base name, then its arguments. */
export function shortCommand(p: { cmdline?: string[] | undefined; comm: string }): string {
  if (!p.cmdline || p.cmdline.length === 0) return p.comm ? `[${p.comm}]` : "?";
  const [program, ...args] = p.cmdline;
  return [program!.split("/").pop() ?? program, ...args].join(" ");
}
