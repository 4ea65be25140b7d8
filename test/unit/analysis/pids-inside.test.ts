/**
 * A watched process in a container keeps its host pid everywhere, and the report says its pid inside beside it: the
 * document is marked from the attacher's map (analysis/pids-inside.ts), and the terminal report's verdict line says
 * "in a container (pid N inside)". On a real recording's document (fixtures/recordings/leak_worker.jsonl).
 */
import { describe, expect, it } from "vitest";
import { markPidsInside } from "../../../src/analysis/pids-inside.js";
import { renderVerdict } from "../../../src/report/terminal/verdict-text.js";
import { docOf } from "../../helpers/analyze.js";

describe("pids inside a container", () => {
  it("marks the target and every process subject that has one, leaves the rest, and the verdict line says it", async () => {
    const doc = await docOf("leak_worker.jsonl");
    expect(doc.verdict.subject.type).toBe("process");
    const worker = doc.verdict.pid!;
    markPidsInside(
      doc,
      new Map([
        [doc.target.pid, 1],
        [worker, 7],
      ]),
    );
    expect(doc.target.pidInside).toBe(1);
    expect(doc.verdict.subject).toMatchObject({ pid: worker, pidInside: 7 });
    for (const f of doc.findings)
      if (f.subject.type === "process" && f.subject.pid !== worker && f.subject.pid !== doc.target.pid)
        expect(f.subject.pidInside).toBeUndefined();
    expect(renderVerdict(doc, false, undefined, 200)).toMatch(
      new RegExp(`verdict: LEAK — PID ${worker} \\(child of \\d+\\) in a container \\(pid 7 inside\\)`),
    );
  });

  it("no map, or an empty one: the document is left as it was", async () => {
    const doc = await docOf("leak_worker.jsonl");
    const before = JSON.stringify(doc);
    markPidsInside(doc, undefined);
    markPidsInside(doc, new Map());
    expect(JSON.stringify(doc)).toBe(before);
    expect(renderVerdict(doc, false)).not.toMatch(/in a container/);
  });

  it("only process subjects are marked, and a pid the map lacks gets no pidInside key at all", async () => {
    const doc = await docOf("leak_worker.jsonl");
    const worker = doc.verdict.pid!;
    // A GPU subject names a process too; its pid inside is the process finding's to say
    const gpu = {
      ...doc.verdict,
      subject: {
        type: "gpu" as const,
        pid: worker,
        starttime: 0,
        command: "python",
        device: "0",
        source: "torch" as const,
      },
    };
    doc.findings.push(gpu);
    markPidsInside(doc, new Map([[worker, 7]]));
    expect(gpu.subject).not.toHaveProperty("pidInside");
    expect(doc.target).not.toHaveProperty("pidInside");
    for (const f of doc.findings)
      if (f.subject.type === "process" && f.subject.pid !== worker) expect(f.subject).not.toHaveProperty("pidInside");
  });
});
