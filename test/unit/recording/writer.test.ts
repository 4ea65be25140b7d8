/**
 * A recording that cannot be written (a full disk) stops, says so once, and takes nothing else down; output paths
 * are checked before anything starts. /dev/full is the kernel's own full disk: every write fails with ENOSPC.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { RecordingWriter } from "../../../src/recording/format.js";
import { checkOutputPath } from "../../../src/session/output-paths.js";
import { tempDir } from "../../helpers/temp.js";

describe("a recording on a full disk", () => {
  it("stops at the first failed write, says why once, and never throws", () => {
    const told: string[] = [];
    const w = new RecordingWriter("/dev/full", { exclusive: true }, (m) => told.push(m)); // a device: opened as it is
    for (let i = 0; i < 5; i++) w.write({ type: "event", t: i, event: "agent-x", detail: {} });
    w.close();
    expect(told).toEqual([expect.stringMatching(/^the recording \/dev\/full stopped: ENOSPC/)]);
    expect(w.failure).toBe(told[0]);
  });

  it("a writable file gets every line", () => {
    const path = `${tempDir("rw")}/r.jsonl`;
    const w = new RecordingWriter(path, { exclusive: true }, () => {
      throw new Error("no failure expected");
    });
    w.write({ type: "event", t: 1, event: "agent-a", detail: {} });
    w.write({ type: "event", t: 2, event: "agent-b", detail: {} });
    w.close();
    expect(readFileSync(path, "utf8").trim().split("\n")).toHaveLength(2);
  });
});

describe("two runs, one --record path", () => {
  it("an existing recording is refused before the start, and at open if it appeared since; --overwrite replaces it", () => {
    const path = `${tempDir("rw")}/r.jsonl`;
    writeFileSync(path, "someone else's recording\n");
    expect(() => checkOutputPath(path, "--record", true)).toThrow(
      /--record .*: the file exists; pass --overwrite to replace it, or choose another name/,
    );
    expect(() => new RecordingWriter(path, { exclusive: true })).toThrow(
      /the file exists \(another memleak writing it\?\); pass --overwrite/,
    );
    expect(readFileSync(path, "utf8")).toBe("someone else's recording\n");
    expect(() => checkOutputPath(path, "--record", false)).not.toThrow();
    new RecordingWriter(path, { exclusive: false }).close();
    expect(readFileSync(path, "utf8")).toBe("");
  });
});

describe("output paths, before anything starts", () => {
  const dir = tempDir("out");
  it.each([
    [`${dir}/nope/r.html`, /--html .*: the directory .*nope does not exist/],
    [dir, /--html .*: is a directory; give a file name/],
  ])("%s → usage error", (path, message) => {
    expect(() => checkOutputPath(path, "--html")).toThrow(message);
  });
  it("a new file in an existing directory, or an existing file, is fine; no option is fine", () => {
    mkdirSync(`${dir}/sub`);
    expect(() => checkOutputPath(`${dir}/sub/r.html`, "--html")).not.toThrow();
    expect(() => checkOutputPath(undefined, "--record")).not.toThrow();
  });
});
