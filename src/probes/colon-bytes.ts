/**
 * "Key:   value [kB]" lines (status, smaps_rollup) read straight from the bytes of the file, without decoding it:
 * every tick reads status of every process of the tree (1.3 KB, ~55 lines, of which memleak uses 11), and decoding
 * it, cutting a string per line and matching a regular expression per value was most of what memleak added to the
 * kernel's work on a tree of small processes (bench g). Only the wanted keys are looked at; the rest of a line is
 * skipped byte by byte. The text parsers of status and smaps_rollup are this over the text's UTF-8 bytes, so there is
 * one way to read these files.
 */

/** The keys a parser wants, for matching against the bytes of a line: each key once, by index. */
export class KeyTable {
  readonly keys: readonly string[];
  /** Key indexes by key length: a line's key is compared only with the keys as long as it. */
  private readonly byLength: number[][] = [];
  private readonly codes: number[][];
  /** Where each key's value starts and ends in the bytes last scanned (-1: not there). */
  readonly starts: Int32Array;
  readonly ends: Int32Array;

  constructor(keys: readonly string[]) {
    this.keys = keys;
    this.starts = new Int32Array(keys.length).fill(-1);
    this.ends = new Int32Array(keys.length).fill(-1);
    this.codes = keys.map((k) => [...k].map((c) => c.charCodeAt(0)));
    keys.forEach((k, i) => (this.byLength[k.length] ??= []).push(i));
  }

  /** A `kB` value of key i in the bytes last scanned, in bytes; undefined if missing or malformed. */
  kib(bytes: Uint8Array, i: number): number | undefined {
    return this.starts[i]! < 0 ? undefined : kibAt(bytes, this.starts[i]!, this.ends[i]!);
  }

  /** The index of the key bytes[start, end) spell, or -1. */
  find(bytes: Uint8Array, start: number, end: number): number {
    const candidates = this.byLength[end - start];
    if (candidates === undefined) return -1;
    for (const i of candidates) {
      const code = this.codes[i]!;
      let j = 0;
      while (j < code.length && bytes[start + j] === code[j]) j++;
      if (j === code.length) return i;
    }
    return -1;
  }
}

/** Space, tab, newline, carriage return, vertical tab, form feed: what String.prototype.trim removes of ASCII. */
export const isBlank = (c: number | undefined) => c === 32 || (c !== undefined && c >= 9 && c <= 13);

/**
 * Walks the "Key: value" lines of `bytes` and notes, for each line whose key (trimmed) is in `keys`, where its value
 * (trimmed) starts and ends: in keys.starts / keys.ends, -1 for a key not seen. Lines without a colon after their
 * first byte are skipped. With `untilAll`, stops once every key was seen (a key seen twice before then: the later
 * wins, as in a Map); without, reads to the end, as key-value.ts colonFields does without its `wanted`. The table's
 * arrays are reused by every call (a parse reads them before the next one: parsing is synchronous).
 */
export function scanColonLines(bytes: Uint8Array, keys: KeyTable, untilAll = true): void {
  keys.starts.fill(-1);
  keys.ends.fill(-1);
  let left = keys.keys.length;
  const length = bytes.length;
  let start = 0;
  while (start < length && (left > 0 || !untilAll)) {
    let end = bytes.indexOf(10, start);
    if (end < 0) end = length;
    let colon = start;
    while (colon < end && bytes[colon] !== 58) colon++;
    if (colon > start && colon < end) {
      let keyStart = start;
      let keyEnd = colon;
      while (keyStart < keyEnd && isBlank(bytes[keyStart])) keyStart++;
      while (keyEnd > keyStart && isBlank(bytes[keyEnd - 1])) keyEnd--;
      const i = keys.find(bytes, keyStart, keyEnd);
      if (i >= 0) {
        let valueStart = colon + 1;
        let valueEnd = end;
        while (valueStart < valueEnd && isBlank(bytes[valueStart])) valueStart++;
        while (valueEnd > valueStart && isBlank(bytes[valueEnd - 1])) valueEnd--;
        if (keys.starts[i] === -1) left--;
        keys.starts[i] = valueStart;
        keys.ends[i] = valueEnd;
      }
    }
    start = end + 1;
  }
}

/**
 * The decimal count bytes[start, end) spell: 1 to 20 digits and nothing else, as parsed.ts parseBigCount reads a
 * trimmed text (approximate beyond 2^53). Undefined for anything else, never 0.
 */
export function digitsAt(bytes: Uint8Array, start: number, end: number): number | undefined {
  if (end <= start || end - start > 20) return undefined;
  let n = 0;
  for (let i = start; i < end; i++) {
    const d = bytes[i]! - 48;
    if (d < 0 || d > 9) return undefined;
    n = n * 10 + d;
  }
  // Past 2^53 the running product rounds at each step; Number() of the text rounds once. Re-read those few.
  return n <= Number.MAX_SAFE_INTEGER ? n : Number(String.fromCharCode(...bytes.subarray(start, end)));
}

/** A count that must be exact (a pid, a uid, a thread count): digitsAt's, and at most 2^53 − 1. */
export function exactCountAt(bytes: Uint8Array, start: number, end: number): number | undefined {
  const n = digitsAt(bytes, start, end);
  return n !== undefined && Number.isSafeInteger(n) ? n : undefined;
}

/** A "1234 kB" value in bytes, as key-value.ts kibField reads it (digits, optional blanks, "kB"); else undefined. */
export function kibAt(bytes: Uint8Array, start: number, end: number): number | undefined {
  if (end - start < 3 || bytes[end - 1] !== 66 || bytes[end - 2] !== 107) return undefined;
  let digitsEnd = end - 2;
  while (digitsEnd > start && isBlank(bytes[digitsEnd - 1])) digitsEnd--;
  const n = digitsAt(bytes, start, digitsEnd);
  return n === undefined ? undefined : n * 1024;
}
