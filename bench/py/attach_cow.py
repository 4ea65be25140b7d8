"""What loading code into an already forked, idle worker copies of the pages it shares with its parent (BENCHMARKS.md §g⁷).

`memleak watch` loads its agent into each process of a tree that is already running: gdb's pending call runs the loader
on the worker's main thread. Here bench/py/small_tree.py's SIGUSR1 handler does the same on the main thread of its
forked workers, which sleep (a pool waiting for requests), each worker running one step, so that the steps do not add
up: nothing (`pass`), the modules the agent needs, a full collection, the agent loaded, the agent loaded and
connected (to a socket this script drains). Each step's growth of the worker's Private_Dirty and fall of its
Shared_Dirty (smaps_rollup) after SECONDS. Under `memleak run` the agent is in the parent before it forks, so what it
touched is shared instead.

Usage: python3 attach_cow.py [SECONDS=20] [MB=8]   (the agent's code is compiled into a temporary directory first)
"""
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
AGENT_DIR = os.path.join(HERE, "..", "..", "src", "agent", "python")
AGENT = os.path.join(AGENT_DIR, "memleak_agent.py")

TREE = os.path.join(HERE, "small_tree.py")  # with a steps directory: SIGUSR1 runs a worker's step on its main thread

LOAD = """
from _frozen_importlib import module_from_spec
from _frozen_importlib_external import spec_from_file_location
spec = spec_from_file_location("_memleak_code_attached", {code!r})
m = module_from_spec(spec)
spec.loader.exec_module(m)
agent = m.load("_memleak_agent_attached", {agent!r}, {cache!r})
"""


def rollup(pid):
    out = {}
    with open("/proc/%d/smaps_rollup" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            if v.strip().endswith("kB"):
                out[k] = int(v.split()[0])
    return out


def read_all(conn):
    while conn.recv(65536):
        pass


def drain(server):
    """Accepts the agents' connections and reads what they send, as memleak would."""
    while True:
        conn, _ = server.accept()
        threading.Thread(target=read_all, args=(conn,), daemon=True).start()


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 20.0
    mb = sys.argv[2] if len(sys.argv) > 2 else "8"
    work = tempfile.mkdtemp(prefix="attach-cow-")
    sock_path = os.path.join(work, "sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(sock_path)
    server.listen(64)
    threading.Thread(target=drain, args=(server,), daemon=True).start()
    cache = os.path.join(work, "cache")
    os.mkdir(cache)
    # The first process compiles the agent for the others (memleak_code.py), as the first process memleak loads it into.
    subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, %r); import memleak_code; "
                    "memleak_code.load('first', %r, %r)" % (AGENT_DIR, AGENT, cache)], check=True)
    load = LOAD.format(code=os.path.join(AGENT_DIR, "memleak_code.py"), agent=AGENT, cache=cache)
    steps = [
        ("nothing (pass)", "pass"),
        ("the modules the agent needs", "import ctypes, _json, _socket, select, gc"),
        ("a full collection", "import gc; gc.collect()"),
        ("the agent loaded", load),
        ("the agent loaded and connected", load + "agent.attach(%r, 1.0)\n" % sock_path),
    ]
    tree = subprocess.Popen([sys.executable, TREE, str(len(steps)), mb, work], stdout=subprocess.PIPE)
    workers = []
    try:
        tree.stdout.readline()
        with open("/proc/%d/task/%d/children" % (tree.pid, tree.pid)) as f:
            workers = [int(p) for p in f.read().split()]
        before = {}
        for pid, (_, code) in zip(workers, steps):
            with open(os.path.join(work, "step_%d.py" % pid), "w") as f:
                f.write(code)
            before[pid] = rollup(pid)
            os.kill(pid, signal.SIGUSR1)
        time.sleep(seconds)
        print("%s, forked workers of %s MB, %g s after the step (KiB)" % (sys.version.split()[0], mb, seconds))
        print("%-34s %14s %14s" % ("step", "Private_Dirty", "Shared_Dirty"))
        for pid, (name, _) in zip(workers, steps):
            now = rollup(pid)
            print("%-34s %+14d %+14d" % (name, now["Private_Dirty"] - before[pid]["Private_Dirty"],
                                         now["Shared_Dirty"] - before[pid]["Shared_Dirty"]))
    finally:
        tree.kill()
        for pid in workers:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        server.close()
        subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
