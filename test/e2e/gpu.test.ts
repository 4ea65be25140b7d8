/**
 * GPU memory end to end, on a machine without a GPU: real Python programs under `memleak run`, whose torch is a
 * STAND-IN (test/helpers/stand-in-torch: NOT PyTorch) that reports CUDA allocator numbers the program drives, and
 * whose nvidia-smi, where one is used, is a STAND-IN too (test/helpers/stand-in-nvidia-smi). What is real: the agent
 * in the program, its socket, the sampler, the driver reader running a program, the verdict, the gates and the
 * outputs. No real GPU has checked any of this yet.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Finding, VerdictDocument } from "../../src/analysis/types.js";
import { memleak, startReady } from "../helpers/processes.js";
import { REPO } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/temp.js";

const DRIVE = "test/helpers/stand-in-torch/drive_cuda.py";
const gpuFindings = (doc: VerdictDocument) => doc.findings.filter((f) => f.subject.type === "gpu");
const show = (fs: Finding[]) =>
  JSON.stringify(
    fs.map((f) => [f.kind, f.summary, f.evidence]),
    null,
    1,
  );

async function drive(mode: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}, seconds = "14") {
  const r = await memleak(["run", "--interval", "0.5", "--json", ...extra, "--", "python3", DRIVE, mode, seconds], env);
  expect(r.stdout, r.stderr).not.toBe("");
  return { ...r, doc: JSON.parse(r.stdout) as VerdictDocument };
}

describe.concurrent("GPU memory under `memleak run` (stand-in torch.cuda, no GPU)", () => {
  it("CUDA tensors kept alive are a leak on cuda:0 while host memory is flat; --metric gpu and --fail-on fail the step", async () => {
    const dir = tempDir("gpu-leak");
    const html = join(dir, "report.html");
    const summary = join(dir, "summary.md");
    const { doc, code } = await drive(
      "leak",
      ["--metric", "gpu", "--max-growth", "100MiB", "--fail-on", "leak", "--html", html],
      { GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: summary },
    );
    expect(doc.verdict, show(gpuFindings(doc))).toMatchObject({
      kind: "leak",
      metric: "gpu-allocated",
      subject: { type: "gpu", device: "cuda:0", source: "torch" },
      evidence: { layer: "CUDA tensors" },
    });
    expect(doc.findings.find((f) => f.subject.type === "process")!.kind).toBe("stable");
    expect(doc.gates!.map((g) => [g.name, g.result])).toEqual([
      ["max-growth", "fail"],
      ["fail-on", "fail"],
    ]);
    expect(doc.gates![0]!.subject).toMatch(/^PID \d+ cuda:0 allocated$/);
    expect(code).toBe(1);
    // the HTML report charts the device; the step summary names it
    expect(readFileSync(html, "utf8")).toMatch(/"group":"gpu","title":"PID \d+ cuda:0"/);
    expect(readFileSync(summary, "utf8")).toMatch(/^\| leak \| PID \d+ cuda:0 \| gpu-allocated \|/m);
  });

  it("a validation loop keeping its logits on the GPU: on cuda:0's leak the list that holds them and the line that made them; its fixed form neither", async () => {
    const program = "test/helpers/stand-in-torch/validation_outputs.py";
    // 36 s: the agent's floors rise at 5, 10 and 15 s after CUDA came up, then it records the allocator's history 10 s.
    const [kept, fixed] = await Promise.all(
      ["kept", "fixed"].map(async (mode) => {
        const r = await memleak(["run", "--interval", "0.5", "--json", "--", "python3", program, mode, "36"]);
        return JSON.parse(r.stdout) as VerdictDocument;
      }),
    );
    const leak = kept!.verdict;
    expect(leak, show(gpuFindings(kept!))).toMatchObject({
      kind: "leak",
      subject: { type: "gpu", device: "cuda:0" },
      holder: { found: true, path: "__main__.all_logits", device: "cuda:0", deviceBytesPerItem: 4 * 2 ** 20 },
    });
    // 4 MiB a batch, ~9 batches a second (0.1 s asleep each): the list gains what allocated grows, within a sixth.
    const gains = leak.evidence.holderDeviceBytesPerSecond as number;
    expect(gains / leak.rate!.bytesPerSecond).toBeGreaterThan(0.83);
    expect(gains / leak.rate!.bytesPerSecond).toBeLessThan(1.2);
    expect(leak.advice).toMatch(
      /^\*\*`__main__\.all_logits` holds it\*\*: .* keeps\s+tensors on cuda:0, 4\.00 MiB each/,
    );
    // The line that made them, from the allocator's history: the batch's logits, 4 MiB per block, while the
    // program's allocation requests a second stayed where they were (the stand-in's own cost is nothing).
    const line =
      readFileSync(join(REPO, program), "utf8")
        .split("\n")
        .findIndex((l) => l.includes("torch.randn(")) + 1;
    expect(leak.sitesFrom).toBe("cuda-history");
    expect(leak.sites![0]).toMatchObject({ file: join(REPO, program), line, function: "validate_batch" });
    expect(leak.sites![0]!.sizeDiff / leak.sites![0]!.countDiff).toBe(4 * 2 ** 20);
    expect(leak.evidence).toMatchObject({ gpuHistorySeconds: expect.any(Number) });
    const ratio =
      (leak.evidence.gpuRequestsPerSecondDuring as number) / (leak.evidence.gpuRequestsPerSecondBefore as number);
    expect(ratio).toBeGreaterThan(0.7);
    // The program's own fix, a number per batch: no leak, no holder, no sites anywhere.
    expect(
      fixed!.findings.filter((f) => f.kind === "leak" || f.holder || f.sites),
      show(fixed!.findings),
    ).toEqual([]);
  });

  it("watch, attached to the validation loop already running: the agent comes in by the debugger, and names the list and the line", async () => {
    const program = "test/helpers/stand-in-torch/validation_outputs.py";
    const target = await startReady(["python3", program, "kept", "60"], /validating/);
    try {
      const r = await memleak(["watch", String(target.pid), "--duration", "42", "--interval", "0.5", "--json"]);
      const doc = JSON.parse(r.stdout) as VerdictDocument;
      expect(doc.verdict, `${r.stderr}\n${show(gpuFindings(doc))}`).toMatchObject({
        kind: "leak",
        subject: { type: "gpu", device: "cuda:0" },
        holder: { path: "__main__.all_logits", device: "cuda:0" },
        sitesFrom: "cuda-history",
      });
      expect(doc.verdict.sites![0]).toMatchObject({ file: join(REPO, program), function: "validate_batch" });
    } finally {
      await target.stop();
    }
  });

  it("a loop that ends in CUDA out of memory: what was held then, on the device's finding; fragmentation told apart", async () => {
    const program = "test/helpers/stand-in-torch/oom_batches.py";
    const [kept, fragmented] = await Promise.all(
      ["kept", "fragmented"].map(async (mode) => {
        const r = await memleak(["run", "--interval", "0.5", "--json", "--", "python3", program, mode, "12"]);
        expect(r.stderr).toMatch(/torch\.cuda\.OutOfMemoryError: CUDA out of memory/);
        expect(r.stderr).toMatch(/stopped: PID \d+ exited \(exit code 1\)/);
        const doc = JSON.parse(r.stdout) as VerdictDocument;
        const [gpu] = gpuFindings(doc);
        expect(gpu, show(gpuFindings(doc))).toBeDefined();
        return gpu!;
      }),
    );
    // 4 MiB kept each step until the 512 MiB device is full: the tensors filled it, and the list holding them is named.
    expect(kept!.evidence).toMatchObject({ oomCause: "full", oomRequestBytes: 4 * 2 ** 20, oomDeviceFreeBytes: 0 });
    expect(kept!.caveats[0]).toMatch(/^at the CUDA out-of-memory error, a request of 4\.00 MiB failed with 0 B free/);
    expect(kept!.holder?.path).toBe("__main__.history");
    // 128 MiB asked of a reserve with 384 MiB free in blocks of 96 MiB: fragmentation, and the allocator's setting.
    expect(fragmented!.kind).toBe("fragmentation");
    expect(fragmented!.evidence).toMatchObject({
      oomCause: "fragmented",
      oomRequestBytes: 128 * 2 ** 20,
      oomFreeInReserveBytes: 384 * 2 ** 20,
      oomLargestFreeBlockBytes: 96 * 2 ** 20,
    });
    expect(fragmented!.advice).toContain("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True");
  });

  it("allocated that came down while the caching allocator kept its reserve is retention, with its advice", async () => {
    const { doc } = await drive("retention");
    const [f] = gpuFindings(doc);
    expect(f, show(gpuFindings(doc))).toMatchObject({
      kind: "fragmentation",
      metric: "gpu-reserved",
      evidence: { gpuHeldAs: "cached" },
    });
    expect(f!.advice).toContain("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True");
  });

  it("a steady training loop on two devices: a stable finding for each, labelled by device", async () => {
    const { doc } = await drive("steady");
    expect(
      gpuFindings(doc)
        .map((f) => [f.evidence.device, f.kind])
        .sort(),
      show(gpuFindings(doc)),
    ).toEqual([
      ["cuda:0", "stable"],
      ["cuda:1", "stable"],
    ]);
  });

  it("without the agent's CUDA numbers, the driver's: nvidia-smi is read beside the ticks and each reading recorded", async () => {
    const dir = tempDir("gpu-driver");
    const record = join(dir, "run.jsonl");
    const env = { PATH: `${REPO}test/helpers/stand-in-nvidia-smi:${process.env.PATH}`, STAND_IN_NVIDIA_SMI_DIR: dir };
    oneGpu(dir);
    const { doc } = await drive("driver", ["--record", record], env, "16");
    expect(doc.sampling?.gpu).toMatchObject({ driver: "read" });
    const lines = readFileSync(record, "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as { processes?: { pid: number; gpu?: Record<string, number> }[] });
    const readings = lines.flatMap((s) => (s.processes ?? []).flatMap((p) => (p.gpu ? [p.gpu["0"]!] : [])));
    // A read every 5 s or more (its own time allowing, on a loaded machine 15 s) over 16 s, the first maybe before the
    // program wrote what the stand-in reports: at least one reading, a whole MiB of the program's 700 + 4 a tick.
    expect(readings.length).toBeGreaterThanOrEqual(1);
    expect(readings.every((b) => b >= 700 * 2 ** 20 && b % 2 ** 20 === 0)).toBe(true);
    expect(gpuFindings(doc).map((f) => f.subject)).toEqual([
      expect.objectContaining({ type: "gpu", device: "0", source: "driver" }),
    ]);
  });

  it("a machine without a GPU reads nothing and says nothing about it, but for one line in the JSON", async () => {
    // Without nvidia-smi whatever this machine has (a GPU machine runs this suite too): PATH holds the Python alone.
    const env = { PATH: pathWithPythonOnly() };
    const json = await drive("none", [], env);
    expect(gpuFindings(json.doc)).toEqual([]);
    expect(json.doc.sampling?.gpu).toEqual({
      driver: "unavailable",
      note: "GPU memory per process not read from the driver: nvidia-smi is not installed (no NVIDIA driver here)",
      reads: 0,
    });
    const text = await memleak(["run", "--interval", "0.5", "--", "python3", "-c", "import time; time.sleep(6)"], env);
    expect(text.stdout + text.stderr).not.toMatch(/gpu|cuda|nvidia/i);
  });
});

/** A directory for PATH with only `python3` in it (the interpreter itself, not pyenv's shim, which needs bash on PATH). */
function pathWithPythonOnly(): string {
  const dir = tempDir("python-only");
  const python = execFileSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim();
  symlinkSync(python, join(dir, "python3"));
  return dir;
}

/** The stand-in nvidia-smi's GPU list: one GPU, index 0. */
function oneGpu(dir: string): void {
  writeFileSync(join(dir, "gpus"), "0, GPU-8f3c2a71-5b0e-4f7d-9e61-2c4d8a9b0e13\n");
}
