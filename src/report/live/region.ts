/**
 * A block of lines at the bottom of the terminal, redrawn in place, with other output (the launched command's)
 * printed above it: clear the block, write the output, draw the block again. Without this the command's output
 * and the redraws would overwrite each other.
 *
 * The redraw is log-update's: it erases the previous frame line by line (erase line, cursor up) and rewrites only
 * the lines that changed. The hand-rolled "up N lines, erase to the end of the screen" it replaces was taken by tmux,
 * with the block on the top row, for a clear of the screen: every frame went to the scrollback. log-update counts
 * rows, not lines, by wrapping the frame at the terminal's width; the block's lines are kept shorter than that
 * (renderLive) so none wraps. The cursor is never hidden (showCursor), so no exit path, not even SIGKILL, can
 * leave the user's terminal without one.
 */
import { createLogUpdate } from "log-update";
import { clip, displayWidth, wrap } from "../text-width.js";

/** Where the region draws: the two output streams of a terminal, and its size (read at each draw: it may change). */
export interface LiveTerminal {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  readonly columns?: number | undefined;
  readonly rows?: number | undefined;
}

type Stream = "stdout" | "stderr";

/**
 * What a terminal would leave on screen of a line the command rewrote with "\r" (a progress bar): the text after the
 * last carriage return that has anything after it ("50%\r100%\r\n" leaves "100%").
 */
export function settledLine(line: string): string {
  const parts = line.split("\r");
  for (let i = parts.length - 1; i >= 0; i--) if (parts[i] !== "") return parts[i]!;
  return "";
}

/**
 * An unfinished line without what a later "\r" overwrote: a progress bar redrawn 10 times a second for an hour must
 * not pile up in memory, nor be split again at every draw. Its settled text stays the same.
 */
/** The most of an unfinished line without "\r" held back (and redrawn) before it is written out as it stands. */
export const MAX_HELD_LINE = 64 * 1024;

function latest(partial: string): string {
  if (!partial.includes("\r")) return partial;
  return `\r${settledLine(partial)}${partial.endsWith("\r") ? "\r" : ""}`;
}

/**
 * An unfinished line as drawn inside the frame: its colours kept, any other control sequence (a cursor move of a
 * multi-line progress bar, a bell) dropped, since it would move the cursor that log-update counts rows by.
 */
function drawable(line: string): string {
  // eslint-disable-next-line no-control-regex
  return line.replace(/\x1b\[[0-9;?]*[ -/]*([@-~])|[\u0000-\u001f\u007f-\u009f]/g, (m: string, final?: string) =>
    final === "m" ? m : m === "\t" ? " " : "",
  );
}

export class LiveRegion {
  private readonly frame: ReturnType<typeof createLogUpdate>;
  private block = "";
  private closed = false;
  /**
   * Output that ended without a newline, per stream: the current line of a "\r" progress bar, or a prompt. Shown
   * above the block (its last state, cut to the width) until its newline comes, when it is written out for real.
   */
  private partial: Record<Stream, string> = { stdout: "", stderr: "" };
  /**
   * A stream whose unfinished line grew past MAX_HELD_LINE without a "\r" was written out as it stands: until its
   * newline the cursor is in the middle of that line, so no block is drawn (it would land inside it).
   */
  private midLine: Record<Stream, boolean> = { stdout: false, stderr: false };

  constructor(private readonly terminal: LiveTerminal) {
    // log-update writes to a stream; this one is the terminal's stderr (memleak's own output), sized as the terminal.
    const stream = {
      isTTY: true,
      write: (s: string) => {
        terminal.stderr(s);
        return true;
      },
      get columns() {
        return terminal.columns;
      },
      get rows() {
        return terminal.rows;
      },
    };
    this.frame = createLogUpdate(stream as unknown as NodeJS.WriteStream, { showCursor: true });
  }

  /** The terminal's width now (80, log-update's default, when it does not say): what the block must be drawn for. */
  get width(): number {
    return this.terminal.columns ?? 80;
  }

  /**
   * The widest line of text said around the block: a column short of the terminal, as the block's own lines are, so
   * that no line ends in the last column (a 3-digit PID once made the sampling line exactly 80 at 80 columns).
   */
  get textWidth(): number {
    return this.width - 1;
  }

  /** The command's unfinished lines, as they stand now, then the block. */
  private draw(): void {
    if (this.midLine.stdout || this.midLine.stderr) return;
    const pending = (["stdout", "stderr"] as const).map((s) => settledLine(this.partial[s])).filter((l) => l !== "");
    const lines = [...pending.map((l) => clip(drawable(l), this.width - 1)), ...(this.block ? [this.block] : [])];
    if (lines.length > 0) this.frame(lines.join("\n"));
  }

  update(block: string): void {
    if (this.closed) return;
    this.block = block;
    this.draw();
  }

  /**
   * Prints output from the launched command above the block. Complete lines are written at once, each as it settled
   * (a progress bar's last state, not every frame of it); an unfinished line shows above the block from the next draw.
   */
  passthrough(stream: Stream, chunk: string): void {
    if (this.closed) {
      this.terminal[stream](chunk); // no block left to keep clear of
      return;
    }
    if (this.midLine[stream]) {
      const end = chunk.lastIndexOf("\n") + 1;
      this.terminal[stream](chunk.slice(0, end || chunk.length));
      if (end === 0) return;
      this.midLine[stream] = false;
      chunk = chunk.slice(end);
      if (chunk === "") {
        this.draw(); // the line is done: the block can come back below it
        return;
      }
    }
    const text = this.partial[stream] + chunk;
    const cut = text.lastIndexOf("\n") + 1;
    this.partial[stream] = latest(text.slice(cut));
    if (this.partial[stream].length > MAX_HELD_LINE && !this.partial[stream].includes("\r")) {
      // Megabytes with no newline (dots, print(end="")) are never held (or re-scanned at every chunk): out they go.
      this.frame.clear();
      this.terminal[stream](text.slice(0, cut).split("\n").map(settledLine).join("\n") + this.partial[stream]);
      this.partial[stream] = "";
      this.midLine[stream] = true;
      return;
    }
    if (cut === 0) return;
    const complete = text
      .slice(0, cut - 1)
      .split("\n")
      .map(settledLine)
      .join("\n");
    this.frame.clear();
    this.terminal[stream](complete + "\n");
    this.draw();
  }

  /**
   * Prints memleak's own lines (complete, on stderr) above the block. Not through the command's stderr: a line said
   * while the command's progress bar was unfinished there was glued to the end of the bar.
   */
  say(lines: string): void {
    const text = this.fitted(lines);
    if (this.closed) {
      this.terminal.stderr(text);
      return;
    }
    this.frame.clear();
    this.terminal.stderr(text);
    this.draw();
  }

  /**
   * memleak's lines word-wrapped to textWidth, a wrapped line's rest indented by two as the start line's is: the
   * terminal broke "no agent in PID 27900 (bash): not a Python process; watching it from ou|tside" mid-word at 80.
   */
  private fitted(lines: string): string {
    return lines
      .split("\n")
      .map((l) => (displayWidth(l) <= this.textWidth ? l : wrap(l, this.textWidth, "", "  ").join("\n")))
      .join("\n");
  }

  /** Removes the block for good and writes out the unfinished lines (at the end, before the report). */
  clear(): void {
    this.frame.clear();
    this.frame.done();
    this.closed = true;
    this.block = "";
    for (const stream of ["stdout", "stderr"] as const) {
      if (this.partial[stream]) this.terminal[stream](settledLine(this.partial[stream]) + "\n");
      else if (this.midLine[stream]) this.terminal[stream]("\n");
      this.partial[stream] = "";
      this.midLine[stream] = false;
    }
  }
}
