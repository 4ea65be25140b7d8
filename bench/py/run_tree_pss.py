"""What `memleak run` adds to a forking program's memory: the same tree (bench/py/small_tree.py, WORKERS forked workers
of MB megabytes) started bare and under `memleak run` at the same moment, and SECONDS after both said "ready" each
process's Pss from /proc/PID/smaps_rollup (memleak's own Node process left out: what the program's tree pays). Rounds
alternate which of the two starts first. Prints the tree's Σ PSS added, the parent's, and the median worker's; and the
tree's anonymous pages added (Σ Pss_Anon): a woken agent reads the interpreter's and libraries' code that its idle
siblings never touched, and PSS then splits those file pages, already in memory, among one process more — the run's
tree takes a share of them from the bare trees, no new memory (BENCHMARKS.md §g²¹).

A third tree, bare as well, is started with them: the two bare trees' difference is what the layout alone moves Σ PSS
(an identical program differs by 8 kB a worker from one start to the next; `import threading` in the parent moved it
by -20 to -28 kB a worker: BENCHMARKS.md §g¹⁹). The figure is read against that control, not against zero.
Under `setarch x86_64 -R` (address space layout not randomised, inherited by every process started) the two bare trees
match to the kB, and an A/B of two builds (MEMLEAK) shows changes of a page a worker (§g²⁰).

Usage: python3 bench/py/run_tree_pss.py [WORKERS=256] [MB=8] [SECONDS=40] [ROUNDS=2] [MEMLEAK=bin/memleak.js]
(MEMLEAK may be another checkout's bin/memleak.js: an A/B against that build, one after the other.)"""
import os
import statistics
import sys
import time

from tree_pss import children, rollup_kib, start, stop_all, wait_ready

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
workers = int(sys.argv[1]) if len(sys.argv) > 1 else 256
megabytes = sys.argv[2] if len(sys.argv) > 2 else "8"
seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 40.0
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 2
memleak = sys.argv[5] if len(sys.argv) > 5 else os.path.join(REPO, "bin", "memleak.js")
tree = [os.path.join(HERE, "small_tree.py"), str(workers), megabytes]


def is_python(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().startswith("python")
    except OSError:
        return False


def python_root(pid):
    """The tree's parent: the process itself (bare), or the Python process under memleak's Node (run)."""
    seen = [pid]
    while seen:
        p = seen.pop(0)
        if is_python(p):
            return p
        seen += children(p)
    return None


def awake(pid):
    """Whether memleak's agent thread (named memleak-agent) runs in the process: a woken agent costs ~3.7 MiB."""
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                if f.read().strip() == "memleak-agent":
                    return True
    except OSError:
        pass
    return False


def measure(root):
    pids = children(root)
    rollups = {p: rollup_kib(p) for p in [root] + pids}  # one read of each: Pss and Pss_Anon at the same moment
    read = [r for r in rollups.values() if r is not None]
    parent = (rollups[root] or {}).get("Pss")
    kids = [r["Pss"] for p, r in rollups.items() if p != root and r is not None]
    anon = sum(r.get("Pss_Anon", 0) for r in read)
    return parent, kids, sum(awake(p) for p in [root] + pids), anon


def one_round(first_bare):
    launch = {
        "bare": [sys.executable] + tree,
        "run": ["node", memleak, "run", "--"] + [sys.executable] + tree,
        "control": [sys.executable] + tree,
    }
    order = ["bare", "run", "control"] if first_bare else ["control", "run", "bare"]
    procs = {name: start(launch[name], cwd=REPO) for name in order}
    try:
        for name in order:
            wait_ready(procs[name])
        time.sleep(seconds)
        got = {}
        for name in order:
            root = python_root(procs[name].pid)
            got[name] = measure(root)
        return got
    finally:
        stop_all(procs.values())


for r in range(rounds):
    got = one_round(r % 2 == 0)
    (bp, bk, _, ba), (rp, rk, agents, ra), (cp, ck, _, ca) = got["bare"], got["run"], got["control"]
    tree_added = (rp + sum(rk)) - (bp + sum(bk))
    control = (cp + sum(ck)) - (bp + sum(bk))
    print(
        "round %d: %d workers (bare %d): tree %+.1f MiB (anonymous %+.1f), parent %+d kB, median worker %+d kB,"
        " agents awake in %d; control (bare again) %+.1f MiB (anonymous %+.1f), median worker %+d kB"
        % (
            r + 1,
            len(rk),
            len(bk),
            tree_added / 1024,
            (ra - ba) / 1024,
            rp - bp,
            statistics.median(rk) - statistics.median(bk),
            agents,
            control / 1024,
            (ca - ba) / 1024,
            statistics.median(ck) - statistics.median(bk),
        ),
        flush=True,
    )
