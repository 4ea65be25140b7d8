import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { readRecording, RecordingWriter } from "../../../src/recording.js";
import { MemleakError } from "../../../src/commands/io.js";
import { FIXTURES } from "../../helpers/fixtures.js";

const dir = mkdtempSync(`${tmpdir()}/memleak-rec-`);
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

  it("a missing file is a clear error", async () => {
    await expect(readRecording(`${dir}/nope.jsonl`, () => {})).rejects.toThrow(/cannot read the recording .*: no such file/);
  });

  it("the writer appends whole lines synchronously (readable while still open)", () => {
    const file = `${dir}/w.jsonl`;
    const w = new RecordingWriter(file);
    w.write({ type: "event", t: 1, event: "x" });
    expect(readFileSync(file, "utf8")).toBe('{"type":"event","t":1,"event":"x"}\n');
    w.close();
  });
});
