/**
 * A query_range answer's text → what JSON.parse gives, except that each result's "values" comes as its points already
 * read into two arrays (Points), without an array, a string and a number object per point. 1,000 series × 1,441
 * points is 1.4 million of each: JSON.parse and the collector spent more CPU on them than the verdicts of all 250
 * containers took (BENCHMARKS §i″). Strict: anything JSON.parse would refuse, and anything this reader does not know,
 * gives NOT_READ, and the caller hands the text to JSON.parse, which then decides (and words the error) as before.
 */
import { pointInto } from "./point.js";

/** A result's points that are finite numbers, in the answer's order (point.ts pointInto: a gap is skipped). */
export class Points {
  readonly ts: number[] = [];
  readonly values: number[] = [];
}

/** The text was not read: JSON.parse decides what it is. */
export const NOT_READ: unique symbol = Symbol("not read");

/** Where a value sits, which says what reading it may become: only data.result[i].values is read as Points. */
const At = { Other: 0, Top: 1, Data: 2, Result: 3, Entry: 4, Values: 5 } as const;
type At = (typeof At)[keyof typeof At];

/** Thrown where the text leaves the grammar; caught once, in readMatrixJson. */
class NotStrictJson extends Error {}
const refuse = (): never => {
  throw new NotStrictJson();
};

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;

/** JSON's whitespace: space, tab, line feed, carriage return (not U+FEFF, not U+00A0: JSON.parse refuses them). */
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const isDigit = (c: number) => c >= ZERO && c <= NINE;

/** The value JSON.parse would give, with Points in place of the matrix's value arrays, or NOT_READ. */
export function readMatrixJson(text: string): unknown {
  try {
    const r = new Reader(text);
    const value = r.value(At.Top);
    r.space();
    return r.i === text.length ? value : NOT_READ;
  } catch {
    // A refusal, or a nesting deeper than the stack: JSON.parse has its own answer to both.
    return NOT_READ;
  }
}

class Reader {
  i = 0;
  constructor(private readonly text: string) {}

  space(): void {
    const t = this.text;
    let i = this.i;
    while (isSpace(t.charCodeAt(i))) i++;
    this.i = i;
  }

  private expect(c: number): void {
    this.space();
    if (this.text.charCodeAt(this.i) !== c) refuse();
    this.i++;
  }

  value(at: At): unknown {
    this.space();
    const c = this.text.charCodeAt(this.i);
    if (c === OPEN_BRACE) return this.object(at);
    if (c === OPEN_BRACKET)
      return at === At.Values ? this.points() : this.array(at === At.Result ? At.Entry : At.Other);
    if (c === QUOTE) return this.string();
    if (c === MINUS || isDigit(c)) return this.number();
    for (const [word, v] of LITERALS)
      if (this.text.startsWith(word, this.i)) {
        this.i += word.length;
        return v;
      }
    return refuse();
  }

  private object(at: At): Record<string, unknown> {
    this.i++;
    const out: Record<string, unknown> = {};
    this.space();
    if (this.text.charCodeAt(this.i) === CLOSE_BRACE) {
      this.i++;
      return out;
    }
    for (;;) {
      this.space();
      if (this.text.charCodeAt(this.i) !== QUOTE) refuse();
      const key = this.string();
      this.expect(COLON);
      const v = this.value(childAt(at, key));
      // JSON.parse makes "__proto__" an own property; an assignment would set the object's prototype instead.
      if (key === "__proto__")
        Object.defineProperty(out, key, { value: v, writable: true, enumerable: true, configurable: true });
      else out[key] = v;
      this.space();
      const c = this.text.charCodeAt(this.i++);
      if (c === CLOSE_BRACE) return out;
      if (c !== COMMA) refuse();
    }
  }

  private array(element: At): unknown[] {
    this.i++;
    const out: unknown[] = [];
    this.space();
    if (this.text.charCodeAt(this.i) === CLOSE_BRACKET) {
      this.i++;
      return out;
    }
    for (;;) {
      out.push(this.value(element));
      this.space();
      const c = this.text.charCodeAt(this.i++);
      if (c === CLOSE_BRACKET) return out;
      if (c !== COMMA) refuse();
    }
  }

  /**
   * A matrix's values: each `[seconds, "value"]` read in place (fastPoint); any other element is read as JSON.parse
   * would, and judged by the same rule (pointInto).
   */
  private points(): Points {
    this.i++;
    const out = new Points();
    this.space();
    if (this.text.charCodeAt(this.i) === CLOSE_BRACKET) {
      this.i++;
      return out;
    }
    for (;;) {
      this.space();
      const start = this.i;
      if (!this.fastPoint(out)) {
        this.i = start;
        pointInto(this.value(At.Other), out.ts, out.values);
      }
      this.space();
      const c = this.text.charCodeAt(this.i++);
      if (c === CLOSE_BRACKET) return out;
      if (c !== COMMA) refuse();
    }
  }

  /**
   * `[number, "text"]` with no escape in the text: the point pushed (when both are finite) and true; false, with
   * nothing pushed, for anything else, which is then read whole. The value is Number(text), as JSON.parse's string
   * would have been given to Number: digits alone (the common case, "123456789") are summed here, exactly (under
   * 2^53), instead of a string made for Number.
   */
  private fastPoint(out: Points): boolean {
    const t = this.text;
    if (t.charCodeAt(this.i) !== OPEN_BRACKET) return false;
    this.i++;
    this.space();
    const c0 = t.charCodeAt(this.i);
    if (c0 !== MINUS && !isDigit(c0)) return false;
    const time = this.number();
    this.space();
    if (t.charCodeAt(this.i) !== COMMA) return false;
    this.i++;
    this.space();
    if (t.charCodeAt(this.i) !== QUOTE) return false;
    const from = this.i + 1;
    let j = from;
    let digitsOnly = true;
    let sum = 0;
    for (;;) {
      const c = t.charCodeAt(j);
      if (c === QUOTE) break;
      // An escape, a control character or the text's end (NaN): the element is read whole.
      if (c === BACKSLASH || !(c >= 0x20)) return false;
      if (isDigit(c)) sum = sum * 10 + (c - ZERO);
      else digitsOnly = false;
      j++;
    }
    const length = j - from;
    const value = digitsOnly && length > 0 && length <= 15 ? sum : Number(t.slice(from, j));
    this.i = j + 1;
    this.space();
    if (t.charCodeAt(this.i) !== CLOSE_BRACKET) return false;
    this.i++;
    if (Number.isFinite(time) && Number.isFinite(value)) {
      out.ts.push(time);
      out.values.push(value);
    }
    return true;
  }

  /** A string at `i` (on its opening quote), its escapes decoded as JSON.parse decodes them. */
  string(): string {
    const t = this.text;
    const from = this.i + 1;
    let j = from;
    for (;;) {
      const c = t.charCodeAt(j);
      if (c === QUOTE) {
        this.i = j + 1;
        return t.slice(from, j);
      }
      if (c === BACKSLASH) break;
      if (!(c >= 0x20)) refuse();
      j++;
    }
    let s = t.slice(from, j);
    for (;;) {
      const c = t.charCodeAt(j);
      if (c === QUOTE) {
        this.i = j + 1;
        return s;
      }
      if (!(c >= 0x20)) refuse();
      if (c !== BACKSLASH) {
        s += t[j];
        j++;
        continue;
      }
      const e = t[j + 1];
      if (e === "u") {
        const hex = t.slice(j + 2, j + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) refuse();
        s += String.fromCharCode(parseInt(hex, 16));
        j += 6;
        continue;
      }
      const decoded = e === undefined ? undefined : ESCAPES[e];
      if (decoded === undefined) refuse();
      s += decoded;
      j += 2;
    }
  }

  /**
   * A number at `i`, in JSON's grammar (-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?, anything else refused as JSON.parse
   * refuses it). Digits alone, up to 15 (a Unix time), are summed exactly; any other is Number of its text, the
   * same correctly rounded value JSON.parse gives.
   */
  number(): number {
    const t = this.text;
    const from = this.i;
    let j = from;
    let sum = 0;
    if (t.charCodeAt(j) === MINUS) j++;
    const first = t.charCodeAt(j);
    if (first === ZERO) j++;
    else if (isDigit(first)) {
      while (isDigit(t.charCodeAt(j))) {
        sum = sum * 10 + (t.charCodeAt(j) - ZERO);
        j++;
      }
    } else refuse();
    let simple = t.charCodeAt(from) !== MINUS && j - from <= 15;
    if (t.charCodeAt(j) === 0x2e) {
      simple = false;
      j++;
      if (!isDigit(t.charCodeAt(j))) refuse();
      while (isDigit(t.charCodeAt(j))) j++;
    }
    const e = t.charCodeAt(j);
    if (e === 0x65 || e === 0x45) {
      simple = false;
      j++;
      const sign = t.charCodeAt(j);
      if (sign === 0x2b || sign === MINUS) j++;
      if (!isDigit(t.charCodeAt(j))) refuse();
      while (isDigit(t.charCodeAt(j))) j++;
    }
    this.i = j;
    return simple ? sum : Number(t.slice(from, j));
  }
}

const LITERALS: [string, unknown][] = [
  ["true", true],
  ["false", false],
  ["null", null],
];

const ESCAPES: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

/** Where the value under `key` of an object at `at` sits. */
function childAt(at: At, key: string): At {
  if (at === At.Top && key === "data") return At.Data;
  if (at === At.Data && key === "result") return At.Result;
  if (at === At.Entry && key === "values") return At.Values;
  return At.Other;
}
