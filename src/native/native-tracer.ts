/**
 * `memleak run --trace-native`: the command runs with heaptrack's preload library, every traced process writing its
 * own raw trace into a directory memleak made; after the command has exited, each trace is interpreted, cut at the end
 * of warm-up, printed with heaptrack_print, and the stacks that kept leaking are claimed (leak-sites.ts).
 *
 * How the preload reaches the processes. heaptrack's library removes LD_PRELOAD and DUMP_HEAPTRACK_OUTPUT from the
 * environment of every process it starts in ("to prevent tracing of child apps"), so:
 *  - the command is started through `env LD_PRELOAD=… DUMP_HEAPTRACK_OUTPUT=…`, after setpriv: setpriv is not traced,
 *    the command itself is;
 *  - Python processes find MEMLEAK_TRACE_NATIVE_* (which heaptrack leaves alone) and memleak's sitecustomize puts
 *    the two variables back for their children, or, when a shell or a pyenv shim between them dropped the preload,
 *    re-executes the interpreter once with it (memleak_native.py);
 *  - forked children (multiprocessing's fork) are not traced: heaptrack stops itself in them.
 */
import { copyFileSync, mkdtempSync, readdirSync, rmSync, truncateSync } from "node:fs";
import { execFile, spawn } from "node:child_process";
import { createReadStream, createWriteStream } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import type { NativeLeakStack, NativeTrace } from "./native-trace.js";
import { locateHeaptrack, type HeaptrackTools } from "./heaptrack-tools.js";
import { parseHeaptrackLeaks, type HeaptrackLeaks } from "./heaptrack-leaks.js";
import { claimLeaks, groupBySite } from "./leak-sites.js";
import { chooseCut, cutAt, LATE_FRACTIONS, readClock } from "./trace-clock.js";
import { resolveCommand } from "../system/launch.js";
import { removeStaleTraceDirs, TRACE_DIR_PREFIX } from "./stale-traces.js";

/** Stacks kept in the report: the first few are what a person reads; --json has no more room to be useful. */
const STACKS_KEPT = 8;
/** Blocks heaptrack_print lists per file (its --peak-limit also limits the leak list; its default is 10). */
const BLOCKS_LISTED = 500;
const RAW_PREFIX = "heaptrack.";
/** Traces read at once: the cores, up to four (each reader holds a trace's text in memory). */
const READERS = Math.max(1, Math.min(4, availableParallelism()));

export class NativeTracer {
  private constructor(
    readonly tools: HeaptrackTools,
    readonly dir: string,
  ) {}

  /** Finds heaptrack (or refuses, exit 2) and makes the directory the traces go to. */
  static open(env: NodeJS.ProcessEnv): NativeTracer {
    const tools = locateHeaptrack(env);
    removeStaleTraceDirs(tmpdir());
    return new NativeTracer(tools, mkdtempSync(join(tmpdir(), `${TRACE_DIR_PREFIX}${process.pid}-`)));
  }

  /** heaptrack replaces `$$` with the pid of the process writing: one file per traced process. */
  get outputPattern(): string {
    return join(this.dir, `${RAW_PREFIX}$$`);
  }

  /** What memleak_native.py reads to trace the Python processes that lost the preload, and their children. */
  env(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
    return {
      ...base,
      MEMLEAK_TRACE_NATIVE_PRELOAD: this.tools.preload,
      MEMLEAK_TRACE_NATIVE_OUTPUT: this.outputPattern,
    };
  }

  /** The command, started through env(1) with the preload set (the user's own LD_PRELOAD kept after it). */
  wrap(command: string[], env: NodeJS.ProcessEnv): string[] {
    const preload = env.LD_PRELOAD ? `${this.tools.preload}:${env.LD_PRELOAD}` : this.tools.preload;
    return [
      resolveCommand("env", { PATH: `${env.PATH ?? ""}:/usr/bin:/bin` }),
      "--",
      `LD_PRELOAD=${preload}`,
      `DUMP_HEAPTRACK_OUTPUT=${this.outputPattern}`,
      ...command,
    ];
  }

  /** Reads every trace the processes left; `warmup` is memleak's, in seconds from the start. */
  async finish(warmup: number): Promise<NativeTrace> {
    const trace: NativeTrace = {
      tool: this.tools.version,
      processes: 0,
      stacks: [],
      neverFreedBytes: 0,
      runtimeBytes: 0,
      problems: [],
    };
    const stacks: NativeLeakStack[] = [];
    const names = readdirSync(this.dir).filter(
      (n) => n.startsWith(RAW_PREFIX) && /^\d+$/.test(n.slice(RAW_PREFIX.length)),
    );
    // heaptrack_interpret and heaptrack_print do the work, in processes of their own: a few traces at once use the
    // cores while memleak waits (one after another, eight DataLoader workers' traces would take eight times one).
    let next = 0;
    const worker = async () => {
      for (let name = names[next++]; name !== undefined; name = names[next++]) {
        const pid = Number(name.slice(RAW_PREFIX.length));
        try {
          const one = await this.readOne(name, pid, warmup * 1000);
          trace.processes++;
          trace.neverFreedBytes += one.neverFreed;
          trace.runtimeBytes += one.runtime;
          stacks.push(...one.stacks);
        } catch (err) {
          trace.problems.push(`PID ${pid}: ${(err as Error).message}`);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(READERS, names.length) }, worker));
    trace.problems.sort();
    trace.stacks = stacks.sort((a, b) => b.bytes - a.bytes).slice(0, STACKS_KEPT);
    return trace;
  }

  /** Removes the traces (they hold every allocation the command made: large, and nobody else's business). */
  close(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** heaptrack_print on the trace up to a cut: what was never freed at that moment. */
  private async printUpTo(
    interpreted: string,
    cut: { offset: number } | undefined,
  ): Promise<HeaptrackLeaks | undefined> {
    if (!cut) return undefined;
    const head = `${interpreted}.${cut.offset}`;
    copyFileSync(interpreted, head);
    truncateSync(head, cut.offset);
    try {
      return parseHeaptrackLeaks(await print(this.tools.print, head));
    } finally {
      rmSync(head, { force: true });
    }
  }

  private async readOne(name: string, pid: number, warmupMs: number) {
    const interpreted = join(this.dir, `${pid}.interpreted`);
    const raw = join(this.dir, name);
    await interpret(this.tools.interpret, raw, interpreted);
    // ~32 bytes per malloc and free: gone as soon as it is read, so a long run's traces are not on disk twice.
    rmSync(raw, { force: true });
    const atExit = parseHeaptrackLeaks(await print(this.tools.print, interpreted));
    const neverFreed = atExit.totalLeaked ?? atExit.blocks.reduce((s, b) => s + b.bytes, 0);
    // No stack reaching code outside the C library and CPython: nothing could be claimed, so no cut to print.
    if (groupBySite(atExit.blocks).groups.size === 0) return { stacks: [], neverFreed, runtime: neverFreed };
    const clock = readClock(interpreted);
    const atCut = await this.printUpTo(interpreted, chooseCut(clock, warmupMs));
    const atLate: HeaptrackLeaks["blocks"][] = [];
    for (const fraction of LATE_FRACTIONS) {
      const at = await this.printUpTo(interpreted, cutAt(clock, fraction));
      if (at) atLate.push(at.blocks);
    }
    const stacks = claimLeaks({
      pid,
      command: atExit.command ?? "",
      atExit: atExit.blocks,
      atCut: atCut?.blocks ?? [],
      atLate,
    });
    // What is not claimed: the runtime's own, and what the claimed stacks held before the cut.
    const claimed = stacks.reduce((s, x) => s + x.bytes, 0);
    return { stacks, neverFreed, runtime: Math.max(0, neverFreed - claimed) };
  }
}

/** heaptrack_interpret turns the raw trace (addresses) into the file heaptrack_print reads (symbols, lines). */
async function interpret(tool: string, raw: string, out: string): Promise<void> {
  const child = spawn(tool, [], { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d.slice(0, 2000)));
  const done = new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", resolve);
  });
  await Promise.all([pipeline(createReadStream(raw), child.stdin), pipeline(child.stdout, createWriteStream(out))]);
  const code = await done;
  if (code !== 0) throw new Error(`heaptrack_interpret failed (exit ${code}): ${firstLine(stderr)}`);
}

function print(tool: string, file: string): Promise<string> {
  // --opt=value: these options have implicit values, and boost would take a separate "1" for the file.
  const args = [
    `--file=${file}`,
    "--print-leaks=1",
    "--print-peaks=0",
    "--print-allocators=0",
    "--print-temporary=0",
    "--merge-backtraces=0",
    `--peak-limit=${BLOCKS_LISTED}`,
  ];
  return new Promise((resolve, reject) => {
    execFile(tool, args, { encoding: "utf8", maxBuffer: 256 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`heaptrack_print failed: ${firstLine(stderr) || err.message}`));
      else resolve(stdout);
    });
  });
}

const firstLine = (s: string) => s.trim().split("\n")[0] ?? "";
