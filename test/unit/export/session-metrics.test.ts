/**
 * What `--metrics` serves, fed the samples of real recordings (fixtures/recordings/): the figures memleak read, the
 * agent's, the verdict so far, and label sets that stay bounded as processes come and go.
 */
import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { readRecording } from "../../../src/recording/format.js";
import type { Sample } from "../../../src/system/sample.js";
import { exportedProcesses, MAX_EXPORTED_PROCESSES, SessionMetrics } from "../../../src/export/session-metrics.js";
import { analyzedDoc } from "../../helpers/analyzed-once.js";
import { FIXTURES } from "../../helpers/fixtures.js";

async function samplesOf(name: string): Promise<Sample[]> {
  const samples: Sample[] = [];
  await readRecording(join(FIXTURES, "recordings", name), (s) => samples.push(s));
  return samples;
}

/** The exposition's sample lines (no # lines) as name{labels} → value. */
function values(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

describe("SessionMetrics", () => {
  it("exports each process's memory and the agent's malloc and Python figures, as read", async () => {
    const samples = await samplesOf("frag_burst.jsonl");
    const m = new SessionMetrics();
    m.cgroupPath = "/ci/job";
    const last = samples.at(-1)!;
    m.update(last, undefined);
    const v = values(await m.prometheus.metrics());
    const p = last.processes.find((q) => q.pid === last.processes[0]!.pid)!;
    const at = `{pid="${p.pid}",comm="${p.comm}"}`;
    expect(v.get(`memleak_process_rss_bytes${at}`)).toBe(p.rss);
    expect(v.get(`memleak_process_anon_bytes${at}`)).toBe(p.anon);
    const agent = last.agent![String(p.pid)] as {
      malloc: { inUse: number; free: number; arenas: number };
      py: { allocatedBlocks: number };
    };
    expect(v.get(`memleak_process_malloc_in_use_bytes${at}`)).toBe(agent.malloc.inUse);
    expect(v.get(`memleak_process_malloc_free_bytes${at}`)).toBe(agent.malloc.free);
    expect(v.get(`memleak_process_malloc_arenas${at}`)).toBe(agent.malloc.arenas);
    expect(v.get(`memleak_process_python_blocks${at}`)).toBe(agent.py.allocatedBlocks);
    // No torch in this program: no CUDA series at all, rather than a 0.
    expect([...v.keys()].some((k) => k.startsWith("memleak_process_torch_"))).toBe(false);
    expect(v.get('memleak_cgroup_usage_bytes{cgroup="/ci/job"}')).toBe(last.cgroup!.usage);
    expect(v.get('memleak_cgroup_working_set_bytes{cgroup="/ci/job"}')).toBe(last.cgroup!.workingSet);
    expect(v.get('memleak_cgroup_file_bytes{cgroup="/ci/job"}')).toBe(last.cgroup!.stat!.file);
    expect(v.get("memleak_samples_total")).toBe(1);
    expect(v.get("memleak_self_cpu_seconds_total")).toBeGreaterThan(0);
    expect(v.get("memleak_self_resident_bytes")).toBeGreaterThan(10 * 2 ** 20);
  });

  it("a process in a container: its pid inside beside the host pid, only for processes that have one", async () => {
    const last = (await samplesOf("frag_burst.jsonl")).at(-1)!;
    const m = new SessionMetrics();
    const p = last.processes[0]!;
    m.pidsInside = new Map([[p.pid, 1]]);
    m.update(last, undefined);
    const inside = [...values(await m.prometheus.metrics())].filter(([k]) =>
      k.startsWith("memleak_process_pid_inside"),
    );
    expect(inside).toEqual([[`memleak_process_pid_inside{pid="${p.pid}",comm="${p.comm}"}`, 1]]);
  });

  it("the verdict is a stateset over the seven kinds, with its confidence and rate", async () => {
    const doc = await analyzedDoc(join(FIXTURES, "recordings", "dict_cache_leak.jsonl"));
    const samples = await samplesOf("dict_cache_leak.jsonl");
    const m = new SessionMetrics();
    m.update(samples.at(-1)!, doc);
    const v = values(await m.prometheus.metrics());
    const pid = String(doc.verdict.pid);
    expect(doc.verdict.kind).toBe("leak");
    expect(v.get(`memleak_verdict{kind="leak",subject="process",pid="${pid}"}`)).toBe(1);
    const kinds = [...v].filter(([k]) => k.startsWith("memleak_verdict{"));
    expect(kinds).toHaveLength(7);
    expect(kinds.filter(([, x]) => x === 1)).toHaveLength(1);
    expect(v.get(`memleak_verdict_confidence{subject="process",pid="${pid}"}`)).toBe(doc.verdict.confidence);
    expect(
      v.get(
        `memleak_verdict_growth_rate_bytes_per_second{subject="process",pid="${pid}",metric="${doc.verdict.metric}"}`,
      ),
    ).toBeCloseTo(doc.verdict.rate!.bytesPerSecond);
    expect(v.get(`memleak_finding{kind="leak",subject="process",pid="${pid}"}`)).toBe(1);
  });

  it("PSS and USS stay at their last reading on the ticks the smaps budget skipped: no gaps in the series", async () => {
    const samples = await samplesOf("bytes_leak_torch.jsonl");
    const m = new SessionMetrics();
    let lastPss: number | undefined;
    let skipped = 0;
    for (const s of samples) {
      m.update(s, undefined);
      const root = s.processes[0]!;
      if (root.pss !== undefined) lastPss = root.pss;
      else if (lastPss !== undefined) skipped++;
      if (lastPss === undefined) continue;
      const v = values(await m.prometheus.metrics());
      expect(v.get(`memleak_process_pss_bytes{pid="${root.pid}",comm="${root.comm}"}`)).toBe(lastPss);
    }
    expect(skipped).toBeGreaterThan(5); // the recording has ticks without a PSS reading: the case under test
  });

  it("a process that exited loses its series at the next sample: a pool's workers do not pile up", async () => {
    const samples = await samplesOf("fork_cow.jsonl");
    const m = new SessionMetrics();
    const pidsIn = async () =>
      new Set(
        [...values(await m.prometheus.metrics()).keys()]
          .filter((k) => k.startsWith("memleak_process_rss_bytes"))
          .map((k) => /pid="(\d+)"/.exec(k)![1]),
      );
    const most = samples.reduce((a, b) => (b.processes.length > a.processes.length ? b : a));
    m.update(most, undefined);
    expect((await pidsIn()).size).toBe(most.processes.length);
    // The first sample, before the workers were forked: a tree smaller than the largest.
    const last = samples[0]!;
    expect(last.processes.length).toBeLessThan(most.processes.length);
    m.update(last, undefined);
    expect(await pidsIn()).toEqual(new Set(last.processes.map((p) => String(p.pid))));
  });

  it("exports the root and the largest processes, MAX_EXPORTED_PROCESSES at most, and counts the rest", async () => {
    const base = (await samplesOf("fork_cow.jsonl")).at(-1)!;
    const root = base.processes[0]!;
    const many: Sample = {
      ...base,
      processes: [
        root,
        ...Array.from({ length: 120 }, (_, i) => ({
          ...root,
          pid: 100_000 + i,
          ppid: root.pid,
          rss: (i + 1) * 2 ** 20,
        })),
      ],
    };
    const chosen = exportedProcesses(many.processes, root.pid);
    expect(chosen).toHaveLength(MAX_EXPORTED_PROCESSES);
    expect(chosen[0]!.pid).toBe(root.pid);
    expect(chosen[1]!.pid).toBe(100_119);
    const m = new SessionMetrics();
    m.update(many, undefined);
    const v = values(await m.prometheus.metrics());
    expect([...v.keys()].filter((k) => k.startsWith("memleak_process_rss_bytes"))).toHaveLength(MAX_EXPORTED_PROCESSES);
    expect(v.get("memleak_watched_processes")).toBe(121);
    expect(v.get("memleak_unexported_processes")).toBe(121 - MAX_EXPORTED_PROCESSES);
  });

  it("OpenMetrics: the same figures, ending with # EOF", async () => {
    const m = new SessionMetrics();
    m.update((await samplesOf("steady_noisy.jsonl")).at(-1)!, undefined);
    const text = await m.openMetrics.metrics();
    expect(text.trimEnd().endsWith("# EOF")).toBe(true);
    expect(m.openMetrics.contentType).toContain("application/openmetrics-text");
    expect(text).toMatch(/^memleak_process_rss_bytes\{pid="\d+",comm="[^"]+"\} \d+$/m);
  });

  it("a command name with quotes and a newline is escaped, not a broken exposition", async () => {
    const s = (await samplesOf("steady_noisy.jsonl")).at(-1)!;
    const m = new SessionMetrics();
    m.update({ ...s, processes: [{ ...s.processes[0]!, comm: 'a"b\nc\\' }] }, undefined);
    expect(await m.prometheus.metrics()).toContain('comm="a\\"b\\nc\\\\"');
  });
});
