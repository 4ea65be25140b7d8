"""A training loop as users write it, on the STAND-IN torch (this directory's torch package, NOT PyTorch: no GPU), that
ends in "CUDA out of memory". `kept`: each step's activations are kept in a list (for a plot, say) until the device is
full. `fragmented`: the device is nearly full of its reserve's free blocks, none as large as the next batch asks for.

    python3 oom_batches.py kept|fragmented SECONDS
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402  (the stand-in)

MiB = 1024 * 1024
mode, seconds = sys.argv[1], float(sys.argv[2])
torch.cuda.capacity = 512 * MiB
history = []  # each step's activations, for a plot at the end


def step(batch):
    return torch.randn(batch, 16384, device="cuda")  # batch × 64 KiB


start = time.time()
if mode == "fragmented":
    # An earlier phase's 96 MiB blocks, freed but kept by the allocator, split so that none fits 128 MiB.
    torch.cuda.free_blocks = [96 * MiB] * 4
    torch.cuda.devices[0] = {"reserved": 448 * MiB}
    while time.time() - start < seconds / 2:
        time.sleep(0.1)
        step(16)
    step(2048)  # 128 MiB: more than any free block, less than the 384 MiB free in all
while True:
    history.append(step(64))  # 4 MiB a step
    time.sleep(0.1)
