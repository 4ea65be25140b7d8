import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { openRecorder, SessionRecorder } from "../../../src/recording/session-writer.js";
import { RECORDING_SCHEMA, type RecordingHeader, type RecordingLine } from "../../../src/recording/format.js";
import type { Sample } from "../../../src/system/sample.js";
import type { SamplerTotals } from "../../../src/sampling/sampler.js";
import type { VerdictDocument } from "../../../src/analysis/types.js";
import { tempDir } from "../../helpers/temp.js";

const HEADER: RecordingHeader = {
  type: "header",
  schema: RECORDING_SCHEMA,
  startedAt: 1,
  interval: 1,
  target: { pid: 10, mode: "run" },
  machine: { hostname: "h", kernel: "k", cpus: 2, memTotal: 1 },
  memleakVersion: "0",
};

function recorder() {
  const lines: RecordingLine[] = [];
  let closed = false;
  const r = new SessionRecorder(
    { write: (l) => void lines.push(l), close: () => void (closed = true) },
    Promise.resolve(HEADER),
    () => 42,
  );
  return { r, lines, closed: () => closed };
}

const sample = (t: number, ...pids: number[]): Sample =>
  ({ t, processes: pids.map((pid) => ({ pid, ppid: 1, starttime: pid * 10, comm: `p${pid}` })) }) as Sample;
type Seen = SamplerTotals["seen"];
const seen = (...ps: { pid: number; comm?: string; cmdline?: string[] }[]): Seen =>
  new Map(
    ps.map((p) => [
      `${p.pid}:${p.pid * 10}`,
      { pid: p.pid, ppid: 1, comm: p.comm ?? `p${p.pid}`, cmdline: p.cmdline, firstSeen: p.pid },
    ]),
  );
const events = (lines: RecordingLine[]) =>
  lines.map((l) => (l.type === "event" ? `${l.event}:${String((l.detail as { pid?: unknown }).pid ?? "")}` : l.type));

describe("SessionRecorder", () => {
  it("writes the header once, when asked after the first sample", async () => {
    const { r, lines } = recorder();
    await r.header();
    await r.header();
    expect(lines).toEqual([HEADER]);
  });

  it("records a process when it first appears and again when it execs, not in every sample", () => {
    const { r, lines } = recorder();
    r.sample(sample(1, 1, 2), seen({ pid: 1, cmdline: ["python3", "a.py"] }, { pid: 2 }));
    r.sample(sample(2, 1, 2), seen({ pid: 1, cmdline: ["python3", "a.py"] }, { pid: 2 }));
    r.sample(sample(3, 1, 2), seen({ pid: 1, cmdline: ["python3", "a.py"] }, { pid: 2, comm: "worker" }));
    expect(events(lines)).toEqual([
      "process-start:1",
      "process-start:2",
      "sample",
      "sample",
      "process-start:2",
      "sample",
    ]);
    expect(lines[0]).toEqual({
      type: "event",
      t: 1,
      event: "process-start",
      detail: { pid: 1, ppid: 1, comm: "p1", cmdline: ["python3", "a.py"] },
    });
    expect(lines[1]).toEqual({ type: "event", t: 2, event: "process-start", detail: { pid: 2, ppid: 1, comm: "p2" } });
  });

  it("leaves out a process the sampler has not seen (nothing to say of it)", () => {
    const { r, lines } = recorder();
    r.sample(sample(1, 1, 3), seen({ pid: 1 }));
    expect(events(lines)).toEqual(["process-start:1", "sample"]);
  });

  it("writes attach, outsiders, agent and verdict lines as the recording's readers expect them", () => {
    const { r, lines, closed } = recorder();
    r.attach({ pid: 7, status: "failed", reason: "no gdb" });
    r.outsiders([5, 6], undefined);
    r.outsiders([5], 1024);
    r.agentResults([{ type: "trim", pid: 7, t: 3 } as never]);
    r.lastWords(99, { "7": { x: 1 } });
    r.testMarks([
      { type: "test-start", pid: 7, t: 4, nodeid: "a.py::t" },
      { type: "test-end", pid: 7, t: 5, nodeid: "a.py::t", kind: "leak" },
    ]);
    r.verdict({ schema: "v" } as unknown as VerdictDocument);
    r.close();
    expect(lines).toEqual([
      { type: "event", t: 42, event: "attach", detail: { pid: 7, status: "failed", reason: "no gdb" } },
      { type: "event", t: 42, event: "cgroup-outsiders", detail: { pids: [5, 6] } },
      { type: "event", t: 42, event: "cgroup-outsiders", detail: { pids: [5], anonGrowth: 1024 } },
      { type: "event", t: 3000, event: "agent-trim", detail: { type: "trim", pid: 7, t: 3 } },
      { type: "event", t: 99, event: "agent-last-words", detail: { "7": { x: 1 } } },
      { type: "event", t: 4000, event: "test-start", detail: { type: "test-start", pid: 7, t: 4, nodeid: "a.py::t" } },
      {
        type: "event",
        t: 5000,
        event: "test-end",
        detail: { type: "test-end", pid: 7, t: 5, nodeid: "a.py::t", kind: "leak" },
      },
      { type: "verdict", schema: "v" },
    ]);
    expect(closed()).toBe(true);
  });
});

describe("openRecorder", () => {
  it("without --record does nothing and never describes the machine", async () => {
    let asked = false;
    const r = openRecorder(
      undefined,
      false,
      async () => ((asked = true), HEADER),
      () => {},
    );
    await r.header();
    r.sample(sample(1, 1), seen({ pid: 1 }));
    r.verdict({} as VerdictDocument);
    r.close();
    expect(asked).toBe(false);
  });

  it("with --record writes JSON lines to the file, header first", async () => {
    const path = `${tempDir("recorder")}/r.jsonl`;
    const r = openRecorder(
      path,
      false,
      async () => HEADER,
      () => {},
    );
    await r.header();
    r.sample(sample(1, 1), seen({ pid: 1 }));
    r.close();
    const types = readFileSync(path, "utf8")
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as RecordingLine).type);
    expect(types).toEqual(["header", "event", "sample"]);
  });

  it("refuses a file that exists unless told to overwrite it", () => {
    const path = `${tempDir("recorder")}/r.jsonl`;
    openRecorder(
      path,
      false,
      async () => HEADER,
      () => {},
    ).close();
    expect(() =>
      openRecorder(
        path,
        false,
        async () => HEADER,
        () => {},
      ),
    ).toThrow(/--overwrite/);
    expect(() =>
      openRecorder(
        path,
        true,
        async () => HEADER,
        () => {},
      ).close(),
    ).not.toThrow();
  });
});
