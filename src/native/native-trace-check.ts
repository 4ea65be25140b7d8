/**
 * A recording's `nativeTrace` read back for `analyze`: the file may come from anywhere, so each field is checked and
 * bounded before a report renders it; anything out of shape drops the whole trace (analyze says nothing rather than
 * something wrong). Pure.
 */
import type { NativeFrame, NativeLeakStack, NativeTrace } from "./native-trace.js";

const MAX_STACKS = 8;
const MAX_FRAMES = 64;
const MAX_TEXT = 4096;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v: unknown): v is string => typeof v === "string" && v.length <= MAX_TEXT;
const count = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const amount = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v) && v >= 0;

function frame(v: unknown): NativeFrame | undefined {
  if (!isObject(v) || !text(v.function)) return undefined;
  if (
    (v.file !== undefined && !text(v.file)) ||
    (v.line !== undefined && !count(v.line)) ||
    (v.module !== undefined && !text(v.module))
  )
    return undefined;
  return {
    function: v.function,
    ...(v.file !== undefined && { file: v.file }),
    ...(v.line !== undefined && { line: v.line }),
    ...(v.module !== undefined && { module: v.module }),
  };
}

function stack(v: unknown): NativeLeakStack | undefined {
  if (
    !isObject(v) ||
    !Number.isSafeInteger(v.pid) ||
    !text(v.command) ||
    !amount(v.bytes) ||
    !count(v.count) ||
    !count(v.framesLeftOut)
  )
    return undefined;
  if (
    !Array.isArray(v.frames) ||
    v.frames.length > MAX_FRAMES ||
    (v.viaFfi !== undefined && typeof v.viaFfi !== "boolean")
  )
    return undefined;
  const site = frame(v.site);
  const frames = v.frames.map(frame);
  if (!site || frames.some((f) => f === undefined)) return undefined;
  return {
    pid: v.pid as number,
    command: v.command,
    bytes: v.bytes,
    count: v.count,
    site,
    ...(v.viaFfi === true && { viaFfi: true }),
    frames: frames as NativeFrame[],
    framesLeftOut: v.framesLeftOut,
  };
}

export function nativeTraceFrom(v: unknown): NativeTrace | undefined {
  if (!isObject(v) || !text(v.tool) || !count(v.processes) || !amount(v.neverFreedBytes) || !amount(v.runtimeBytes))
    return undefined;
  if (!Array.isArray(v.stacks) || v.stacks.length > MAX_STACKS || !Array.isArray(v.problems) || !v.problems.every(text))
    return undefined;
  const stacks = v.stacks.map(stack);
  if (stacks.some((s) => s === undefined)) return undefined;
  return {
    tool: v.tool,
    processes: v.processes,
    stacks: stacks as NativeLeakStack[],
    neverFreedBytes: v.neverFreedBytes,
    runtimeBytes: v.runtimeBytes,
    problems: (v.problems as string[]).slice(0, 20),
  };
}
