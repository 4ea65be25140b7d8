/**
 * The driver reader (src/system/gpu-driver.ts) running a real program: a STAND-IN nvidia-smi
 * (test/helpers/stand-in-nvidia-smi, a shell script, NOT NVIDIA's: no GPU machine was available) that answers what the test gives it, or fails as
 * nvidia-smi does without a driver; and a name that is on no PATH, as on every machine without NVIDIA's driver.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DRIVER_MIN_SECONDS, GpuDriver } from "../../../src/system/gpu-driver.js";
import { fixture, REPO } from "../../helpers/fixtures.js";
import { tempDir } from "../../helpers/temp.js";

const MiB = 2 ** 20;

const STAND_IN = `${REPO}test/helpers/stand-in-nvidia-smi/nvidia-smi`;

/** The stand-in's answers for this test: `--query-gpu` prints `gpus`, `--query-compute-apps` prints `apps`; `exit` for both. */
function standIn(o: { gpus: string; apps: string; exit?: number }): string {
  const dir = tempDir("nvidia-smi");
  writeFileSync(join(dir, "gpus"), o.gpus);
  writeFileSync(join(dir, "apps"), o.apps);
  writeFileSync(join(dir, "exit"), String(o.exit ?? 0));
  // GpuDriver runs it with memleak's environment, as it runs the real one.
  process.env.STAND_IN_NVIDIA_SMI_DIR = dir;
  return STAND_IN;
}

describe("GpuDriver", () => {
  it("reads each process's memory per GPU index through nvidia-smi, and hands it over once", async () => {
    const driver = new GpuDriver(
      standIn({ gpus: fixture("nvidia-smi/gpu-indices.two-gpus"), apps: fixture("nvidia-smi/compute-apps.two-gpus") }),
    );
    await driver.poll();
    const got = driver.take();
    expect(got && Object.fromEntries(got)).toEqual({
      4242: { "0": 1536 * MiB, "1": 22018 * MiB },
      4243: { "0": 812 * MiB },
    });
    expect(driver.take()).toBeUndefined();
    expect(driver.facts()).toMatchObject({ driver: "read", reads: 1 });
  });

  it(`reads again no sooner than ${DRIVER_MIN_SECONDS} s after the last read`, async () => {
    let now = 1_000_000;
    const driver = new GpuDriver(
      standIn({ gpus: fixture("nvidia-smi/gpu-indices.two-gpus"), apps: fixture("nvidia-smi/compute-apps.two-gpus") }),
      () => now,
    );
    await driver.poll();
    now += (DRIVER_MIN_SECONDS - 0.5) * 1000;
    expect(driver.poll()).toBeUndefined();
    now += 1000;
    await driver.poll();
    expect(driver.facts().reads).toBe(2);
  });

  it("with no nvidia-smi on the machine: nothing read, tried once, and one line saying why", async () => {
    const driver = new GpuDriver(join(tempDir("no-nvidia-smi"), "nvidia-smi"));
    await driver.poll();
    expect(driver.take()).toBeUndefined();
    expect(driver.poll()).toBeUndefined();
    expect(driver.facts()).toEqual({
      driver: "unavailable",
      note: "GPU memory per process not read from the driver: nvidia-smi is not installed (no NVIDIA driver here)",
      reads: 0,
    });
  });

  it("with nvidia-smi but no driver behind it: nothing read, and nvidia-smi's own words", async () => {
    const complaint = fixture("nvidia-smi/no-driver.stdout");
    const driver = new GpuDriver(standIn({ gpus: complaint, apps: complaint, exit: 9 }));
    await driver.poll();
    expect(driver.take()).toBeUndefined();
    expect(driver.poll()).toBeUndefined();
    expect(driver.facts().note).toBe(
      "GPU memory per process not read from the driver: nvidia-smi failed: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.",
    );
  });
});
