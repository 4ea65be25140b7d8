/**
 * Every parser returns a Parsed<T>: either a value or a typed parse error. Parsers never throw on bad input, so a
 * truncated /proc read (the process died mid-read) or a corrupt capture becomes a message, not a stack trace.
 */
export interface ParseError {
  readonly ok: false;
  /** Which file kind was being parsed, e.g. "/proc/PID/stat". */
  readonly source: string;
  readonly message: string;
}

export interface ParseOk<T> {
  readonly ok: true;
  readonly value: T;
}

export type Parsed<T> = ParseOk<T> | ParseError;

export function ok<T>(value: T): ParseOk<T> {
  return { ok: true, value };
}

export function fail(source: string, message: string): ParseError {
  return { ok: false, source, message };
}

/** A non-negative integer written in decimal, with nothing else around it. Anything else is undefined, never 0. */
export function parseCount(text: string): number | undefined {
  const t = text.trim();
  if (!/^\d{1,20}$/.test(t)) return undefined;
  const n = Number(t);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Like parseCount, but for values the kernel may print beyond 2^53 (v1's "unlimited" limit); kept approximate. */
export function parseBigCount(text: string): number | undefined {
  const t = text.trim();
  if (!/^\d{1,20}$/.test(t)) return undefined;
  return Number(t);
}
