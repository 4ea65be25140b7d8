/**
 * The live region's output as the terminal receives it: the command's complete lines between an erase of the block
 * and its redraw, its unfinished line (a "\r" progress bar) drawn above the block, every line of the frame shorter
 * than the terminal. What this output looks like on a real terminal is test/e2e/live-view.test.ts (tmux).
 */
import { describe, expect, it } from "vitest";
import { LiveRegion, MAX_HELD_LINE, settledLine } from "../../../../src/report/live/region.js";
import { displayWidth } from "../../../../src/report/text-width.js";

const SYNC = /\x1b\[\?2026[hl]/g;

function terminal(columns = 80, rows = 24) {
  const out: { stream: "stdout" | "stderr"; text: string }[] = [];
  const term = {
    columns,
    rows,
    stdout: (text: string) => out.push({ stream: "stdout", text }),
    stderr: (text: string) => out.push({ stream: "stderr", text }),
  };
  /** Everything written since `from`, as one string, without the synchronized-output brackets. */
  const since = (from = 0) =>
    out
      .slice(from)
      .map((w) => w.text.replace(SYNC, ""))
      .join("");
  return { term, out, since };
}

/** The text lines of a frame as written (escapes that move the cursor or erase removed). */
const textLines = (s: string) =>
  s
    .replace(/\x1b\[[0-9;]*[A-HJKGf]/g, "")
    .split("\n")
    .filter((l) => l !== "");

describe("the live region", () => {
  it("text said around the block is a column short of the terminal, as the block's lines are", async () => {
    const { startLine } = await import("../../../../src/session/feedback.js");
    const r = new LiveRegion(terminal(80).term);
    expect(r.textWidth).toBe(79);
    // A 3-digit PID made this line exactly 80 when it was wrapped at the terminal's width (CI, live-view.test).
    const facts = {
      mode: "run" as const,
      pid: 931,
      command: ["python3", `/tmp/memleak-tests-8198/memleak-live-view-${"x".repeat(22)}/noisy.py`],
      interval: 1,
      duration: undefined,
    };
    expect(startLine(facts, r.width).split("\n")[0]).toHaveLength(80);
    for (const line of startLine(facts, r.textWidth).trimEnd().split("\n"))
      expect(displayWidth(line), line).toBeLessThan(80);
  });

  it("prints the command's complete lines above the block and redraws the block below them", () => {
    const t = terminal();
    const r = new LiveRegion(t.term);
    r.update("line1\nline2");
    expect(t.since()).toBe("line1\nline2\n");
    const drawn = t.out.length;
    r.passthrough("stdout", "hello ");
    r.passthrough("stdout", "world\n");
    const after = t.out.slice(drawn);
    // Erased first (on stderr, with the block), then the command's line on its own stream, then the block again.
    expect(after.map((w) => w.stream)).toEqual(["stderr", "stdout", "stderr"]);
    expect(after[1]!.text).toBe("hello world\n");
    expect(textLines(t.since(drawn + 2))).toEqual(["line1", "line2"]);
  });

  it("erases line by line: no 'erase to the end of the screen' from the block's top, which tmux saves to the scrollback", () => {
    const t = terminal();
    const r = new LiveRegion(t.term);
    for (let i = 0; i < 5; i++) {
      r.update(`frame ${i}\nsecond line ${i}`);
      r.passthrough("stderr", `output ${i}\n`);
    }
    r.clear();
    const all = t.since();
    expect(all).not.toMatch(/\x1b\[\d*J/);
    expect(all).not.toMatch(/\x1b\[\d*F/);
    expect(all).toMatch(/\x1b\[2K/);
  });

  it("shows the command's unfinished line (a \\r progress bar) above the block, as it stands at each redraw", () => {
    const t = terminal();
    const r = new LiveRegion(t.term);
    r.update("block");
    r.passthrough("stderr", "\r 10%|█         |");
    r.update("block");
    expect(textLines(t.since()).slice(-2)).toEqual([" 10%|█         |", "block"]);
    r.passthrough("stderr", "\r 50%|█████     |\r 60%|██████    |");
    const before = t.out.length;
    r.update("block");
    expect(textLines(t.since(before))).toContain(" 60%|██████    |");
    expect(t.since(before)).not.toContain("50%");
    // Its newline: written out once, as it settled, and no longer drawn in the frame.
    const done = t.out.length;
    r.passthrough("stderr", "\r100%|██████████|\n");
    const written = t.out.slice(done).filter((w) => w.text.replace(SYNC, "") === "100%|██████████|\n");
    expect(written).toHaveLength(1);
    expect(textLines(t.since(t.out.indexOf(written[0]!) + 1))).toEqual(["block"]);
  });

  it("says memleak's own lines above the block, apart from the command's unfinished line on stderr", () => {
    const t = terminal();
    const r = new LiveRegion(t.term);
    r.update("block");
    r.passthrough("stderr", "\r 30%|███       |");
    const before = t.out.length;
    r.say("memleak: warning: something\n");
    expect(t.out.slice(before).map((w) => w.text.replace(SYNC, ""))).toContain("memleak: warning: something\n");
    expect(textLines(t.since(before)).slice(-2)).toEqual([" 30%|███       |", "block"]);
    r.passthrough("stderr", "\r100%|██████████|\n");
    expect(t.out.at(-2)!.text).toBe("100%|██████████|\n");
  });

  it("word-wraps memleak's own lines to a column short of the terminal, the rest indented, before and after the block", () => {
    const t = terminal(80);
    const r = new LiveRegion(t.term);
    r.update("block");
    const long =
      "memleak: no agent in PID 27900 (bash): not a Python process; watching it from outside, with words to spare";
    const before = t.out.length;
    r.say(`${long}\n`);
    const said = t.out
      .slice(before)
      .map((w) => w.text)
      .find((w) => w.startsWith("memleak: no agent"))!;
    const lines = said.trimEnd().split("\n");
    expect(lines).toEqual([
      "memleak: no agent in PID 27900 (bash): not a Python process; watching it from",
      "  outside, with words to spare",
    ]);
    for (const l of lines) expect(displayWidth(l)).toBeLessThan(80);
    // Words kept whole: the same words, in order.
    expect(lines.join(" ").split(/\s+/)).toEqual(long.split(" "));
    r.clear();
    const after = t.out.length;
    r.say(`${long}\n`);
    expect(t.out.slice(after).map((w) => w.text)).toEqual([`${lines.join("\n")}\n`]);
  });

  it("cuts an unfinished line to one column short of the terminal, and drops its cursor moves but keeps its colours", () => {
    const t = terminal(40);
    const r = new LiveRegion(t.term);
    r.passthrough("stdout", `\x1b[32m${"x".repeat(100)}\x1b[39m`);
    r.update("block");
    const [bar] = textLines(t.since());
    expect(displayWidth(bar!)).toBe(39);
    expect(bar).toContain("\x1b[32m");
    const u = terminal(40);
    const r2 = new LiveRegion(u.term);
    r2.passthrough("stdout", "up\x1b[2Aagain\x07");
    r2.update("block");
    expect(textLines(u.since())[0]).toBe("upagain");
  });

  it("after clear(): the block is gone for good, an unfinished line is written out, later output passes straight through", () => {
    const t = terminal();
    const r = new LiveRegion(t.term);
    r.update("block");
    r.passthrough("stdout", "50%\r60%");
    r.clear();
    const cleared = t.out.length;
    expect(t.out.at(-1)).toEqual({ stream: "stdout", text: "60%\n" });
    r.update("block again");
    r.passthrough("stderr", "late\r");
    expect(t.out.slice(cleared)).toEqual([{ stream: "stderr", text: "late\r" }]);
  });
});

describe("a progress bar redrawn for a long time", () => {
  it("is drawn and written out as its last state, whatever was overwritten before", () => {
    const t = terminal();
    const r = new LiveRegion(t.term);
    r.update("block");
    for (let i = 0; i < 20_000; i++)
      r.passthrough("stderr", `\r${i % 7 === 3 ? "long frame of the bar" : "short"} ${i}`);
    r.passthrough("stderr", "\r");
    r.update("block");
    expect(textLines(t.since()).slice(-2)).toEqual(["short 19999", "block"]);
    r.passthrough("stderr", "\n");
    expect(t.out.filter((w) => w.stream === "stderr" && w.text === "short 19999\n")).toHaveLength(1);
  });
});

describe("settledLine: what a terminal leaves of a line rewritten with \\r", () => {
  it.each([
    ["plain", "plain"],
    ["10%\r50%\r100%", "100%"],
    ["10%\r100%\r", "100%"],
    ["windows line\r", "windows line"],
    ["\r", ""],
    ["", ""],
  ])("%j → %j", (line, settled) => expect(settledLine(line)).toBe(settled));

  it("writes out a line that grows past MAX_HELD_LINE with no newline, byte for byte, and draws no block inside it", () => {
    const t = terminal();
    const r = new LiveRegion(t.term);
    r.update("BLOCK");
    const chunk = ".".repeat(4096);
    const chunks = Math.ceil(MAX_HELD_LINE / chunk.length) + 40; // 160 KiB of dots in 4 KiB reads
    for (let i = 0; i < chunks; i++) r.passthrough("stdout", chunk);
    r.update("BLOCK"); // a tick while the command is mid-line: nothing drawn
    r.passthrough("stdout", "end\nnext\n");
    r.clear();
    const stdout = t.out
      .filter((w) => w.stream === "stdout")
      .map((w) => w.text)
      .join("");
    expect(stdout).toBe(`${chunk.repeat(chunks)}end\nnext\n`);
    // Held at most MAX_HELD_LINE: everything after went straight out, chunk by chunk.
    expect(t.out.filter((w) => w.stream === "stdout").length).toBeGreaterThan(30);
    const stderr = t.out
      .filter((w) => w.stream === "stderr")
      .map((w) => w.text)
      .join("");
    expect(stderr.split("BLOCK").length - 1).toBe(2); // the first frame, and once after "end\n"; none mid-line
  });
});
