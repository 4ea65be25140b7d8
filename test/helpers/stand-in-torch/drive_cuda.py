"""Drives the STAND-IN torch.cuda (this directory's torch package, NOT PyTorch: no GPU is involved) through a shape
of CUDA memory over time, for memleak's end-to-end tests on machines without a GPU. memleak's agent reads these
numbers exactly as it reads a real torch.cuda's, so what is tested is everything from the agent to the verdict.

    python3 drive_cuda.py MODE SECONDS
    leak       allocated on cuda:0 grows 8 MiB a tick (tensors kept), reserved 64 MiB above it
    retention  allocated 3 GiB for the first fifth, then 512 MiB; reserved stays at 3.1 GiB (blocks cached)
    steady     a training loop: allocated between 1 and 3 GiB, a new level every half second in the order STEADY
               gives (memleak's readings at --interval 0.5 are those of a loop read at random phases, on a quiet
               machine as under load), reserved 3.2 GiB, on cuda:0 and cuda:1
    none       imports torch, never initialises CUDA
    driver     never initialises CUDA (as a JAX or TensorFlow program would look to the agent), and writes what the
               stand-in nvidia-smi (test/helpers/stand-in-nvidia-smi) reports for it: its memory on GPU 0 growing
               4 MiB a tick, into $STAND_IN_NVIDIA_SMI_DIR/apps; it runs on past SECONDS (60 s at most) until
               nvidia-smi has been asked for the apps after its first write, and 2 s more: memleak reads the driver
               every 5-15 s, less often when a read is slow on a busy machine, and a program that started late (a
               pyenv shim's seconds) could end before any read saw it
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402  (the stand-in)

MiB = 1024 * 1024
mode = sys.argv[1]
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 16
cuda = torch.cuda
cuda.initialized = mode not in ("none", "driver")
GPU0 = "GPU-8f3c2a71-5b0e-4f7d-9e61-2c4d8a9b0e13"
start = time.time()
tick = 0


def apps_reads():
    """How many times the stand-in nvidia-smi was asked for the compute apps (its calls log)."""
    try:
        with open(os.path.join(os.environ["STAND_IN_NVIDIA_SMI_DIR"], "calls")) as f:
            return sum(1 for line in f if line.startswith("--query-compute-apps"))
    except FileNotFoundError:
        return 0


# Levels of 20 MiB above 1 GiB, one per half second: random numbers, kept for the one order of readings that the
# stand-in's earlier sequence gave only under load (CI, 2026-12-02): the highest tenth's median of a swing far above
# the last, which the GPU rules once called allocated coming down (retention). On readings of it offset by 0-2 s,
# 11-15 s long, with a reading skipped or doubled, the rule before 2026-12-02 said fragmentation in 94 of 100 windows.
STEADY = [50, 13, 0, 13, 20, 14, 32, 97, 1, 47, 95, 65, 95, 44, 38, 99, 89, 95, 75, 29]
STEADY += [16, 54, 92, 22, 1, 28, 20, 12, 14, 97, 12, 5, 22, 95, 52, 68, 92, 71, 75, 46]
reads_before = None  # the driver mode's count of reads when it first wrote its apps line
seen_at = None  # when a read after that write was first counted


def driver_seen():
    global seen_at
    if mode != "driver" or (seen_at is not None and time.time() - seen_at >= 2):
        return True
    if seen_at is None and reads_before is not None and apps_reads() > reads_before:
        seen_at = time.time()
    return time.time() - start >= 60


while time.time() - start < seconds or not driver_seen():
    t = time.time() - start
    if mode == "leak":
        allocated = 1024 * MiB + tick * 8 * MiB
        cuda.devices[0] = {"allocated": allocated, "reserved": allocated + 64 * MiB}
    elif mode == "retention":
        allocated = 3072 * MiB if t < seconds / 5 else 512 * MiB
        cuda.devices[0] = {"allocated": allocated, "reserved": 3174 * MiB, "inactive_split": 100 * MiB}
    elif mode == "steady":
        allocated = 1024 * MiB + STEADY[int(t / 0.5) % len(STEADY)] * 20 * MiB
        for d in (0, 1):
            cuda.devices[d] = {"allocated": allocated, "reserved": 3277 * MiB, "inactive_split": 200 * MiB}
    elif mode == "driver":
        apps = os.path.join(os.environ["STAND_IN_NVIDIA_SMI_DIR"], "apps")
        with open(apps + ".new", "w") as f:
            f.write("%d, %d, %s\n" % (os.getpid(), 700 + tick * 4, GPU0))
        os.replace(apps + ".new", apps)  # whole lines only, whenever nvidia-smi reads it
        if reads_before is None:
            reads_before = apps_reads()
    tick += 1
    time.sleep(0.05)
