import { execFileSync } from "node:child_process";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readRecording, RecordingWriter } from "../../../src/recording/format.js";
import { MemleakError } from "../../../src/base/errors.js";
import { FIXTURES } from "../../helpers/fixtures.js";
import { tempDir } from "../../helpers/temp.js";

const dir = tempDir("rec");
const good = readFileSync(`${FIXTURES}recordings/leak_main.jsonl`, "utf8");
const lines = good.trimEnd().split("\n");

async function read(text: string) {
  const file = `${dir}/r${Math.random()}.jsonl`;
  writeFileSync(file, text);
  let samples = 0;
  const r = await readRecording(file, () => samples++);
  return { ...r, samples };
}

async function readError(text: string): Promise<MemleakError> {
  try {
    await read(text);
  } catch (e) {
    return e as MemleakError;
  }
  throw new Error("expected an error");
}

describe("recordings", () => {
  it("reads header, samples, events and the verdict", async () => {
    const r = await read(good);
    expect(r.header.schema).toBe("memleak.recording/1");
    expect(r.samples).toBe(lines.filter((l) => l.includes('"type":"sample"')).length);
    expect(r.verdict?.schema).toBe("memleak.verdict/1");
    expect(r.events.some((e) => e.event === "process-start")).toBe(true);
    expect(r.truncated).toBe(false);
  });

  it("a last line cut short by kill -9 is tolerated and reported", async () => {
    const cut = good.slice(0, good.length - 40);
    const r = await read(cut);
    expect(r.truncated).toBe(true);
    expect(r.verdict).toBeUndefined();
    expect(r.samples).toBeGreaterThan(20);
  });

  it.each([
    ["", /empty file/],
    ["hello\n", /line 1/],
    [`{"type":"sample","t":1,"processes":[]}\n`, /line 1: the first line must be a memleak.recording\/1 header/],
    [`${lines[0]}\nnot json\n${lines[1]}\n`, /line 2: not JSON/],
    [`${lines[0]}\n{"type":"sample"}\n`, /line 2: sample without t\/processes/],
    [`${lines[0]}\n{"type":"bogus"}\n`, /unknown line type "bogus"/],
  ])("corrupt recording %#: one clear message, exit 2", async (text, message) => {
    const e = await readError(text);
    expect(e).toBeInstanceOf(MemleakError);
    expect(e.exitCode).toBe(2);
    expect(e.message).toMatch(message);
  });

  describe("broken and hostile files", () => {
    const sampleLines = lines.filter((l) => l.includes('"type":"sample"'));
    const withLine = (at: number, line: string) => [...lines.slice(0, at), line, ...lines.slice(at)].join("\n") + "\n";

    it("one bad line in the middle is skipped and counted; the rest is analyzed", async () => {
      const r = await read(withLine(10, "garbage {"));
      expect(r.skipped).toEqual({ count: 1, first: { line: 11, why: "not JSON" } });
      expect(r.samples).toBe(sampleLines.length);
      expect(r.truncated).toBe(false);
    });

    it("impossible sizes are bad lines, named with their line (negative, not finite, beyond the machine)", async () => {
      const s = JSON.parse(sampleLines[3]!) as {
        processes: { rss: number; anon: number }[];
        cgroup?: { usage: number };
      };
      const neg = JSON.parse(JSON.stringify(s));
      neg.processes[0].anon = -5;
      const huge = JSON.parse(JSON.stringify(s));
      huge.processes[0].rss = 1e308;
      const cg = JSON.parse(JSON.stringify(s));
      cg.cgroup = { ...cg.cgroup, usage: -1 };
      const r = await read(withLine(12, JSON.stringify(neg)));
      expect(r.skipped.first).toEqual({
        line: 13,
        why: expect.stringMatching(/^PID \d+: anon = -5 is not a possible size$/),
      });
      expect((await read(withLine(12, JSON.stringify(huge)))).skipped.first!.why).toMatch(
        /rss = 1e\+308 is not a possible size/,
      );
      expect((await read(withLine(12, JSON.stringify(cg)))).skipped.first!.why).toMatch(/cgroup usage = -1/);
    });

    it("a negated recording is refused, not analyzed as 'stable'", async () => {
      const negated = lines
        .map((l) => (l.includes('"type":"sample"') ? l.replace(/"(rss|anon|pss|uss)":(\d+)/g, '"$1":-$2') : l))
        .join("\n");
      const e = await readError(negated);
      expect(e.exitCode).toBe(2);
      expect(e.message).toMatch(/line \d+: PID \d+: \w+ = -\d+ is not a possible size \(and \d+ more bad lines\)/);
    });

    it("a long recording with a few bad lines is analyzed around them; a tenth bad, and it is refused", async () => {
      const long = [lines[0]!, ...Array.from({ length: 40 }, () => sampleLines.slice(0, 50)).flat()];
      const spoiled = (every: number) =>
        long.map((l, i) => (i > 0 && i % every === 0 ? "garbage" : l)).join("\n") + "\n";
      expect((await read(spoiled(500))).skipped.count).toBe(3); // 3 of 2,001 lines
      expect((await read(spoiled(100))).skipped.count).toBe(19); // 19 of 2,001: under a tenth
      expect((await readError(spoiled(9))).message).toMatch(/line 10: not JSON \(and \d+ more bad lines\)/);
    });

    it("a schema from another version is named", async () => {
      const e = await readError(lines[0]!.replace("memleak.recording/1", "memleak.recording/7") + "\n");
      expect(e.message).toMatch(
        /written by another version of memleak \(schema memleak.recording\/7\); this one reads memleak.recording\/1/,
      );
    });

    it("a line longer than 32 MiB is refused without reading it whole (memory stays bounded)", async () => {
      const file = `${dir}/long.jsonl`;
      writeFileSync(file, `${lines[0]}\n`);
      appendFileSync(file, Buffer.alloc(40 * 2 ** 20, 0x61));
      const before = process.memoryUsage().rss;
      await expect(readRecording(file, () => {})).rejects.toThrow(/line 2: a line longer than 32 MiB/);
      expect(process.memoryUsage().rss - before).toBeLessThan(400 * 2 ** 20);
    });

    it("a directory, a FIFO: refused at once with a clear message", async () => {
      await expect(readRecording(dir, () => {})).rejects.toThrow(/cannot read the recording .*: it is a directory/);
      const fifo = `${dir}/fifo`;
      execFileSync("mkfifo", [fifo]);
      await expect(readRecording(fifo, () => {})).rejects.toThrow(
        /not a regular file \(a FIFO, a socket or a device\)/,
      );
    });
  });

  it("a missing file is a clear error", async () => {
    await expect(readRecording(`${dir}/nope.jsonl`, () => {})).rejects.toThrow(
      /cannot read the recording .*: no such file/,
    );
  });

  it("the writer appends whole lines synchronously (readable while still open)", () => {
    const file = `${dir}/w.jsonl`;
    const w = new RecordingWriter(file);
    w.write({ type: "event", t: 1, event: "agent-x", detail: {} });
    expect(readFileSync(file, "utf8")).toBe('{"type":"event","t":1,"event":"agent-x","detail":{}}\n');
    w.close();
  });
});
