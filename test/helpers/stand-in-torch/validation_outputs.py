"""A validation loop as users write it, on the STAND-IN torch (this directory's torch package, NOT PyTorch: no GPU):
each batch's logits are kept for the epoch's metrics. `kept` keeps the logits themselves, on the GPU (the forum's
"CUDA out of memory during validation"); `fixed` keeps what the metric needs, a number per batch.

    python3 validation_outputs.py kept|fixed SECONDS
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402  (the stand-in)

all_logits = []  # the epoch's outputs, for accuracy at the end
scores = []


def validate_batch(batch):
    logits = torch.randn(64, 16384, device="cuda")  # 4 MiB on cuda:0
    return logits, logits.mean()


def main(mode, seconds):
    print("validating", flush=True)  # what a test that attaches to it waits for
    start = time.time()
    batch = 0
    while time.time() - start < seconds:
        logits, score = validate_batch(batch)
        if mode == "kept":
            all_logits.append(logits)
        else:
            scores.append(score.item())
        batch += 1
        time.sleep(0.1)


main(sys.argv[1], float(sys.argv[2]))
