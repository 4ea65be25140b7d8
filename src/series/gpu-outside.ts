/**
 * Memory a process holds on a GPU outside PyTorch's caching allocator: the driver's figure for the process
 * (nvidia-smi's used_memory) minus what the allocator has reserved, at each driver reading. What is there: the CUDA
 * context with the libraries' kernels it loaded, NCCL's buffers, and any other CUDA library's own cudaMalloc (CuPy's
 * pool, TensorRT, a custom extension). cuBLAS's workspaces are in PyTorch's allocator since late 2022
 * (pytorch/pytorch#85447), or cuBLAS's own with some CUDA versions. On an H200 with PyTorch 2.11 (fixtures/gpu/recordings)
 * it was 518 MiB once CUDA was up and 742 MiB from the first matrix product on, flat through every scenario.
 *
 * Paired only where the process has one device in each: torch numbers its devices after CUDA_VISIBLE_DEVICES, the
 * driver by its own index, and nothing memleak reads says which is which when there are several. The reserve at a
 * driver reading's time is interpolated between the allocator's readings around it, within MAX_GAP_SECONDS of it:
 * taken at the reading before, a reserve growing 20 MiB/s read 0.8 s earlier moved the difference by 16 MiB (the
 * H200's cuda_logits_kept: 726 and 742 MiB in turn).
 */
import { Column } from "./column.js";
import type { ProcessSeries } from "./series.js";
import { gpuDevices, gpuFieldName } from "../sampling/gpu-fields.js";

/** Allocator readings farther than this from a driver reading say nothing of the reserve at its time. */
export const MAX_GAP_SECONDS = 2;

export interface OutsideSeries {
  /** The torch device ("cuda:N" is named by the caller) and the driver's GPU it was paired with. */
  index: number;
  driverGpu: string;
  col: Column;
}

export function outsideAllocator(ps: ProcessSeries): OutsideSeries | undefined {
  const torch = gpuDevices(Object.keys(ps.agent));
  const driver = Object.entries(ps.gpuUsed).filter(([, c]) => c.length > 0);
  if (torch.length !== 1 || driver.length !== 1) return undefined;
  const index = torch[0]!;
  const reserved = ps.agent[`gpu.${gpuFieldName(index, "Reserved")}`];
  if (!reserved || reserved.length === 0) return undefined;
  const [driverGpu, used] = driver[0]!;
  const col = new Column();
  // Both series are in time order: one pass, the allocator's first reading at or after each driver reading.
  let hi = 0;
  for (let i = 0; i < used.xs.length; i++) {
    const x = used.xs[i]!;
    while (hi < reserved.xs.length && reserved.xs[hi]! < x) hi++;
    const at = reserveAt(reserved, x, hi);
    if (at !== undefined) col.push(x, used.ys[i]! - at);
  }
  return col.length > 0 ? { index, driverGpu, col } : undefined;
}

/**
 * The reserve at time x (`hi`: the first reading at or after it): interpolated between the readings around it, or the
 * nearest one within MAX_GAP_SECONDS.
 */
function reserveAt(c: Column, x: number, hi: number): number | undefined {
  const { xs, ys } = c;
  const near = (i: number) => i >= 0 && i < xs.length && Math.abs(xs[i]! - x) <= MAX_GAP_SECONDS;
  const before = hi - 1;
  if (near(before) && near(hi) && xs[hi]! > xs[before]!) {
    const f = (x - xs[before]!) / (xs[hi]! - xs[before]!);
    return ys[before]! + f * (ys[hi]! - ys[before]!);
  }
  if (near(hi) && (!near(before) || xs[hi]! - x <= x - xs[before]!)) return ys[hi];
  return near(before) ? ys[before] : undefined;
}
