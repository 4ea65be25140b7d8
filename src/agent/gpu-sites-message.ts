/**
 * The agent's 'gpu-sites' and 'gpu-oom' messages (memleak_gpu_sites.py), checked field by field like every other message: file
 * names and function names come from the watched program's stacks, so they are bounded in length and count, and only
 * strings and numbers are kept.
 */
import type { GpuDeviceSites, GpuOomResult, GpuSite, GpuSitesResult } from "./agent-results.js";
import { boundedText as text, nonNegative as count } from "./message-fields.js";
import { isNum } from "./pytest-messages.js";

const MAX_DEVICES = 16;
const MAX_SITES = 10;
const MAX_PATH = 500;
const MAX_NAME = 200;

function site(v: unknown): GpuSite | undefined {
  const s = v as Record<string, unknown> | null;
  const file = text(s?.file, MAX_PATH);
  if (file === undefined || !s || !isNum(s.line) || !count(s.size) || !count(s.count)) return undefined;
  const out: GpuSite = { file, line: s.line, name: text(s.name, MAX_NAME) ?? "", size: s.size, count: s.count };
  const via = text(s.via, MAX_PATH);
  if (via !== undefined) out.via = via;
  return out;
}

const CUDA_DEVICE = /^cuda:\d{1,3}$/;

/** The sites of a list, each well formed, at most MAX_SITES; undefined when one is not. */
function sitesOf(v: unknown[]): GpuSite[] | undefined {
  const sites = v.slice(0, MAX_SITES).map(site);
  return sites.some((s) => s === undefined) ? undefined : (sites as GpuSite[]);
}

function device(v: unknown): GpuDeviceSites | undefined {
  const d = v as Record<string, unknown> | null;
  if (typeof d?.device !== "string" || !CUDA_DEVICE.test(d.device) || !Array.isArray(d.sites)) return undefined;
  if (!count(d.blocks) || !count(d.bytes)) return undefined;
  const sites = sitesOf(d.sites);
  if (!sites) return undefined;
  const out: GpuDeviceSites = { device: d.device, sites, blocks: d.blocks, bytes: d.bytes };
  if (count(d.requestsPerSecondBefore)) out.requestsPerSecondBefore = d.requestsPerSecondBefore;
  if (count(d.requestsPerSecondDuring)) out.requestsPerSecondDuring = d.requestsPerSecondDuring;
  return out;
}

export function parseGpuSites(m: Record<string, unknown>, pid: number, t: number): GpuSitesResult | undefined {
  const why = text(m.why, MAX_NAME);
  if (why !== undefined) return { type: "gpu-sites", pid, t, devices: [], why };
  if (!count(m.seconds) || !Array.isArray(m.devices)) return undefined;
  const devices = m.devices.slice(0, MAX_DEVICES).map(device);
  if (devices.some((d) => d === undefined)) return undefined;
  return { type: "gpu-sites", pid, t, seconds: m.seconds, devices: devices as GpuDeviceSites[] };
}

export function parseGpuOom(m: Record<string, unknown>, pid: number, t: number): GpuOomResult | undefined {
  const { device: d, request, deviceFree, freeInReserve, largestFreeBlock } = m;
  if (typeof d !== "string" || !CUDA_DEVICE.test(d)) return undefined;
  if (![request, deviceFree, freeInReserve, largestFreeBlock].every(count)) return undefined;
  const out: GpuOomResult = {
    type: "gpu-oom",
    pid,
    t,
    device: d,
    request: request as number,
    deviceFree: deviceFree as number,
    freeInReserve: freeInReserve as number,
    largestFreeBlock: largestFreeBlock as number,
  };
  for (const k of ["allocated", "reserved", "inactiveSplit"] as const) if (count(m[k])) out[k] = m[k];
  const sites = Array.isArray(m.sites) ? sitesOf(m.sites) : undefined;
  if (sites?.length) out.sites = sites;
  return out;
}
