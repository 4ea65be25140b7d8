/**
 * A block of lines at the bottom of the terminal, redrawn in place, with other output (the launched command's)
 * printed above it: clear the block, write the output, draw the block again. Without this the command's output
 * and the redraws would overwrite each other.
 */
import { redrawPrefix } from "./live.js";

export class LiveRegion {
  private lines = 0;
  private block = "";
  /** Output that ended without a newline: held back so the block never lands in the middle of a line. */
  private partial = { stdout: "", stderr: "" };

  constructor(
    private readonly write: { stdout: (s: string) => void; stderr: (s: string) => void },
  ) {}

  update(block: string): void {
    this.block = block;
    this.write.stderr(redrawPrefix(this.lines) + block + "\n");
    this.lines = block.split("\n").length;
  }

  /** Prints output from the launched command above the block. */
  passthrough(stream: "stdout" | "stderr", chunk: string): void {
    const text = this.partial[stream] + chunk;
    const cut = text.lastIndexOf("\n") + 1;
    this.partial[stream] = text.slice(cut);
    if (cut === 0) return;
    this.write.stderr(redrawPrefix(this.lines));
    this.lines = 0;
    this.write[stream](text.slice(0, cut));
    if (this.block) this.update(this.block);
  }

  /** Removes the block and flushes held-back partial lines (at the end). */
  clear(): void {
    this.write.stderr(redrawPrefix(this.lines));
    this.lines = 0;
    for (const stream of ["stdout", "stderr"] as const) {
      if (this.partial[stream]) this.write[stream](this.partial[stream] + "\n");
      this.partial[stream] = "";
    }
  }
}
