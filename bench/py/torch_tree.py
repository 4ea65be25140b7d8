"""A PyTorch-shaped process tree for measuring sampling cost: a parent that imports torch and holds a tensor, and
8 forked workers (as a DataLoader would fork them) that each own ~200 MB of their own. ~2 GB in all, then idle, so
the sampler's cost is measured against a tree that is big (smaps_rollup cost grows with resident size) but quiet.

Usage: /usr/bin/python3 torch_tree.py [WORKERS] [PARENT_MB] [WORKER_MB]. Prints "ready" once every worker holds its
memory; runs until killed (the benchmark kills its process group)."""
import os
import sys
import time

import torch

workers = int(sys.argv[1]) if len(sys.argv) > 1 else 8
parent_mb = int(sys.argv[2]) if len(sys.argv) > 2 else 256
worker_mb = int(sys.argv[3]) if len(sys.argv) > 3 else 200

# ones(), not empty(): the pages must be touched to be resident.
weights = torch.ones(parent_mb * 2**20 // 4, dtype=torch.float32)
children = []
for _ in range(workers):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        own = torch.ones(worker_mb * 2**20 // 4, dtype=torch.float32)
        os.write(w, b"x")
        os.close(w)
        while True:
            time.sleep(3600)
    os.close(w)
    os.read(r, 1)  # wait until this worker holds its memory
    os.close(r)
    children.append(pid)
print("ready", flush=True)
while True:
    time.sleep(3600)
