#!/usr/bin/env bash
# What memleak costs a training loop on a GPU: steps per second of bench/py/gpu_step_rate.py alone and under
# `memleak run` at its defaults (the agent in), alternating ROUNDS times on the same machine, and under `run --no-agent`
# once a round for where the cost is. Needs a CUDA GPU and PyTorch; run on a lent GPU machine (BENCHMARKS.md §gpu).
#   bench/gpu-step-rate.sh MEMLEAK_JS [ROUNDS] [SECONDS]
set -u
M="$1"
ROUNDS="${2:-3}"
S="${3:-15}"
cd "$(dirname "$0")/.."
for r in $(seq "$ROUNDS"); do
  echo "alone $(python3 bench/py/gpu_step_rate.py "$S")"
  echo "memleak $(node "$M" run -- python3 bench/py/gpu_step_rate.py "$S" 2>/dev/null | grep '^{')"
  echo "no-agent $(node "$M" run --no-agent -- python3 bench/py/gpu_step_rate.py "$S" 2>/dev/null | grep '^{')"
done
