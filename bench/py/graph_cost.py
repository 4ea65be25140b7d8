"""What the census's count of autograd graph nodes (memleak_graphs.py) costs, against the census walk it is part of.

    /usr/bin/python3 bench/py/graph_cost.py [ROUNDS]

Two programs' graphs, as the e2e scenarios grow them (fixtures/kept/kept.py): a running loss kept as a tensor (a
two-layer MLP's step: Add, NllLoss, LogSoftmax, Addmm x2, Relu, T x2 — chained at every step) and a GRU cell's state
carried outside torch.no_grad(). For each, at chains of 2,000 and 40,000 steps' nodes: the census walk (thread CPU,
the count included), the count alone, whether it stopped at its bounds (MAX_NODES, MAX_SECONDS), and the resident
memory the count left behind (the Python wrappers of the nodes are made on access and freed after). Medians of ROUNDS.
"""
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "agent", "python"))
import memleak_agent as A  # noqa: E402
import memleak_graphs as G  # noqa: E402
import torch  # noqa: E402

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 7


def rss_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def running(steps):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 10))
    loss_fn = torch.nn.CrossEntropyLoss()
    total = 0.0
    for _ in range(steps):
        loss = loss_fn(model(torch.randn(4, 16)), torch.randint(0, 10, (4,)))
        loss.backward()
        total = total + loss
    return total


def recurrent(steps):
    torch.manual_seed(0)
    cell = torch.nn.GRUCell(8, 16)
    h = torch.zeros(2, 16)
    for _ in range(steps):
        h = cell(torch.randn(2, 8), h)
    return h


print(
    "| graph | steps | nodes counted | capped | census walk (ms) | count alone (ms) | count ÷ walk | RSS left (MiB) |"
)
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for name, make in (("running loss", running), ("GRU state", recurrent)):
    for steps in (2_000, 40_000):
        held = make(steps)  # noqa: F841 (kept alive: the census finds it among the tracked objects)
        before = rss_mib()
        walks, counts = [], []
        for _ in range(ROUNDS):
            t0 = time.thread_time()
            A.census._census_stats(0.5, force=True)
            walks.append((time.thread_time() - t0) * 1000)
            t0 = time.thread_time()
            nodes, capped = G.count_nodes([held])
            counts.append((time.thread_time() - t0) * 1000)
        walk, count = statistics.median(walks), statistics.median(counts)
        print(
            "| %s | %d | %d | %s | %.1f | %.1f | %.0f%% | %+.1f |"
            % (name, steps, nodes, "yes" if capped else "no", walk, count, 100 * count / walk, rss_mib() - before)
        )
        held = None
