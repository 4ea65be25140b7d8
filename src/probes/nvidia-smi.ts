/**
 * nvidia-smi's CSV, as memleak asks for it (system/gpu-driver.ts):
 *   --query-compute-apps=pid,used_memory,gpu_uuid --format=csv,noheader,nounits
 *       "4242, 1536, GPU-8f3c…" a line per process and GPU: the pid (the host's), its memory there in MiB, the GPU
 *   --query-gpu=index,uuid --format=csv,noheader
 *       "0, GPU-8f3c…" a line per GPU: its index as nvidia-smi numbers it, and its UUID
 * A process's memory is "[N/A]" where the driver cannot account it (a MIG instance seen from outside, a Windows WDDM
 * driver, a process of another container): that line is left out, never read as 0. Pure: text in, values out.
 */
import { fail, ok, parseCount, type Parsed } from "./parsed.js";

const MiB = 2 ** 20;

export interface ComputeApp {
  pid: number;
  /** Bytes (nvidia-smi prints MiB). */
  used: number;
  gpuUuid: string;
}

/** Lines, each split at its commas, fields trimmed; blank lines dropped. */
const rows = (text: string) =>
  text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "")
    .map((l) => l.split(",").map((f) => f.trim()));

const UUID = /^(GPU|MIG)-[0-9A-Za-z/-]{1,120}$/;

/** The processes and their memory per GPU; `unaccounted` counts the lines whose memory the driver did not give. */
export function parseComputeApps(text: string): Parsed<{ apps: ComputeApp[]; unaccounted: number }> {
  const apps: ComputeApp[] = [];
  let unaccounted = 0;
  for (const [i, f] of rows(text).entries()) {
    if (f.length !== 3)
      return fail(
        "nvidia-smi --query-compute-apps",
        `line ${i + 1}: ${f.length} field${f.length === 1 ? "" : "s"}, expected 3 (pid, used_memory, gpu_uuid)`,
      );
    const [pidText, usedText, uuid] = f as [string, string, string];
    const pid = parseCount(pidText);
    if (pid === undefined || pid === 0)
      return fail("nvidia-smi --query-compute-apps", `line ${i + 1}: "${pidText.slice(0, 40)}" is not a pid`);
    if (!UUID.test(uuid))
      return fail("nvidia-smi --query-compute-apps", `line ${i + 1}: "${uuid.slice(0, 60)}" is not a GPU UUID`);
    const used = parseCount(usedText);
    if (used === undefined) {
      // "[N/A]", "[Not Supported]": no number for this process, which is no reason to drop the others.
      if (/^\[[^\]]{1,40}\]$/.test(usedText)) {
        unaccounted++;
        continue;
      }
      return fail(
        "nvidia-smi --query-compute-apps",
        `line ${i + 1}: "${usedText.slice(0, 40)}" is not a number of MiB`,
      );
    }
    apps.push({ pid, used: used * MiB, gpuUuid: uuid });
  }
  return ok({ apps, unaccounted });
}

/** GPU UUID → its index as nvidia-smi numbers it ("0"). */
export function parseGpuIndices(text: string): Parsed<Map<string, string>> {
  const out = new Map<string, string>();
  for (const [i, f] of rows(text).entries()) {
    const [indexText, uuid] = f as [string, string | undefined];
    const index = parseCount(indexText);
    if (f.length !== 2 || index === undefined || uuid === undefined || !UUID.test(uuid)) {
      return fail("nvidia-smi --query-gpu", `line ${i + 1}: expected "index, uuid", got "${f.join(",").slice(0, 80)}"`);
    }
    out.set(uuid, String(index));
  }
  return ok(out);
}

/**
 * Each pid's memory by GPU index ("0" → bytes; the UUID itself where the index is not known), summed where one
 * process appears twice on a GPU (a process with two contexts there).
 */
export function gpuMemoryByPid(
  apps: readonly ComputeApp[],
  indices: ReadonlyMap<string, string>,
): Map<number, Record<string, number>> {
  const out = new Map<number, Record<string, number>>();
  for (const a of apps) {
    const gpu = indices.get(a.gpuUuid) ?? a.gpuUuid;
    const per = out.get(a.pid) ?? {};
    per[gpu] = (per[gpu] ?? 0) + a.used;
    out.set(a.pid, per);
  }
  return out;
}
