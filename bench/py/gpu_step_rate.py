"""A training loop on cuda:0 as fast as it goes (no pacing): a 4-layer MLP of 2048 wide, batch 512, Adam, the loss
read with .item() every step (one synchronisation a step, as most loops log it). Small enough that a step is bound by
Python and kernel launches, not the GPU: what an agent thread taking the GIL costs a training loop shows here first.
Measures steps per second over SECONDS after WARMUP seconds, inside the process (start-up not counted).

Usage: python3 gpu_step_rate.py [SECONDS] [WARMUP]. Prints one JSON line: {"steps": …, "seconds": …, "rate": …}."""
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fixtures", "gpu"))
import torch  # noqa: E402

from _train import DEVICE, WIDTH, model_and_optimizer, step  # noqa: E402

seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 15
warmup = float(sys.argv[2]) if len(sys.argv) > 2 else 5
model, optimizer = model_and_optimizer()
x = torch.randn(512, WIDTH, device=DEVICE)
start = time.perf_counter()
while time.perf_counter() - start < warmup:
    step(model, optimizer, x, x)[1].item()
t0, n = time.perf_counter(), 0
while time.perf_counter() - t0 < seconds:
    step(model, optimizer, x, x)[1].item()
    n += 1
elapsed = time.perf_counter() - t0
print(json.dumps({"steps": n, "seconds": round(elapsed, 3), "rate": round(n / elapsed, 1)}), flush=True)
