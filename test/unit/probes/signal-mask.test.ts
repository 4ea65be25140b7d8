/** SigCgt of /proc/PID/status, on files captured from real processes (fixtures/hybrid/status.wake-*, see README). */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { catchesSignal } from "../../../src/probes/signal-mask.js";

const status = (name: string) => readFileSync(`fixtures/hybrid/status.${name}`, "utf8");

describe("catchesSignal", () => {
  it("reads the handler a Python process set on SIGRTMIN+7 (41), and Python's own SIGINT (2)", () => {
    expect(catchesSignal(status("wake-handler"), 41)).toBe(true);
    expect(catchesSignal(status("wake-handler"), 2)).toBe(true);
    expect(catchesSignal(status("wake-handler"), 40)).toBe(false);
    expect(catchesSignal(status("wake-handler"), 42)).toBe(false);
  });

  it("a forked child inherits it; a child that exec'd another program does not", () => {
    expect(catchesSignal(status("wake-forked"), 41)).toBe(true);
    expect(catchesSignal(status("wake-execed"), 41)).toBe(false);
  });

  it("the mask's top bit is signal 64", () => {
    expect(catchesSignal("SigCgt:\t8000000000000000\n", 64)).toBe(true);
    expect(catchesSignal("SigCgt:\t8000000000000000\n", 63)).toBe(false);
  });

  it("says nothing without a SigCgt line, with a mask that is not hex, or for a signal out of range", () => {
    expect(catchesSignal(status("kthread").replace(/^SigCgt:.*$/m, ""), 41)).toBeUndefined();
    expect(catchesSignal("SigCgt:\tnot-hex\n", 41)).toBeUndefined();
    expect(catchesSignal(status("wake-handler"), 0)).toBeUndefined();
    expect(catchesSignal(status("wake-handler"), 65)).toBeUndefined();
  });
});
