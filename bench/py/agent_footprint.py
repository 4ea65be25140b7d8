"""What memleak's agent adds to the memory of the processes it is in: an idle spawned Python process and the workers of
a forked tree (bench/py/small_tree.py's shape), each with the agent (sitecustomize, as under `memleak run`) against the
same without it, side by side. Every page a process has resident is walked again by each smaps_rollup memleak reads of
it, so this is what the agent adds to memleak's own cost (BENCHMARKS.md §g⁗). A listener here stands for memleak: it
reads the agents' lines and counts them. A first agent process runs and exits before the measured ones start, so that
they load the agent's compiled code from the private directory as every process but the first does under `run`.

Usage: python3 bench/py/agent_footprint.py PYTHON [AGENT_DIR=src/agent/python] [WORKERS=8] [MB=8] [SECONDS=12]
        [--maps: the differences per mapping too]
Prints, per kind of process, the bare one's Rss and the agent's differences (MiB) in Rss, Pss, Pss_Anon, RssAnon."""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

args = [a for a in sys.argv[1:] if not a.startswith("--")]
python = args[0]
agent_dir = os.path.abspath(args[1] if len(args) > 1 else "src/agent/python")
workers, mb, settle = (int(args[2]) if len(args) > 2 else 8), (int(args[3]) if len(args) > 3 else 8), (float(args[4]) if len(args) > 4 else 12)

private = tempfile.mkdtemp(prefix="agent-footprint-")
path = os.path.join(private, "agent.sock")
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind(path)
listener.listen(256)
lines = {}


def serve(conn):
    buf = b""
    while True:
        data = conn.recv(65536)
        if not data:
            return
        buf += data
        *complete, buf = buf.split(b"\n")
        for line in complete:
            kind = json.loads(line)["type"]
            lines[kind] = lines.get(kind, 0) + 1


def accept():
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


threading.Thread(target=accept, daemon=True).start()

TREE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "small_tree.py")  # prints "ready" once its workers hold their memory
IDLE = "import time\nprint('', flush=True)\nwhile True: time.sleep(3600)"


def start(agent, argv):
    """The process and its children (the forked workers), once it has printed its first line."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")  # as in most container images: nothing cached on disk
    env.pop("PYTHONPATH", None)
    if agent:
        env.update(PYTHONPATH=agent_dir, MEMLEAK_AGENT_SOCKET=path, MEMLEAK_AGENT_INTERVAL="1")
    p = subprocess.Popen([python] + argv, env=env, stdout=subprocess.PIPE, text=True)
    p.stdout.readline()
    with open("/proc/%d/task/%d/children" % (p.pid, p.pid)) as f:
        return p, [int(x) for x in f.read().split()]


def rollup(pid):
    out = {}
    with open("/proc/%d/smaps_rollup" % pid) as f:
        for line in f:
            key, _, value = line.partition(":")
            if value.strip().endswith("kB"):
                out[key] = int(value.split()[0])
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("RssAnon:"):
                out["RssAnon"] = int(line.split()[1])
    return out


def mappings(pid):
    """Rss (kB) by mapped file's name and permissions; anonymous mappings as [anon]."""
    out, name = {}, None
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            parts = line.split()
            if "-" in parts[0] and not parts[0].endswith(":"):
                name = "%s %s" % (parts[5].rsplit("/", 1)[-1] if len(parts) > 5 else "[anon]", parts[1])
            elif parts[0] == "Rss:":
                out[name] = out.get(name, 0) + int(parts[1])
    return out


first = subprocess.run([python, "-c", "pass"], env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=agent_dir, MEMLEAK_AGENT_SOCKET=path))
procs = {}
try:
    for agent in (False, True):
        procs[("idle", agent)] = start(agent, ["-c", IDLE])
        procs[("tree", agent)] = start(agent, [TREE, str(workers), str(mb)])
    time.sleep(settle)
    keys = ("Rss", "Pss", "Pss_Anon", "RssAnon")
    found = {}
    for (kind, agent), (p, kids) in procs.items():
        found[(kind, agent, "process")] = rollup(p.pid)
        if kids:
            each = [rollup(k) for k in kids]
            found[(kind, agent, "worker")] = {k: sum(w.get(k, 0) for w in each) / len(each) for k in keys}
    print("%s, agent %s; %d workers of %d MB, %.0f s in; lines from the agents: %s" % (python, agent_dir, workers, mb, settle, lines))
    for kind, who, label in (("idle", "process", "spawned, idle"), ("tree", "process", "tree's parent"), ("tree", "worker", "forked worker")):
        bare, with_agent = found[(kind, False, who)], found[(kind, True, who)]
        diffs = "  ".join("%s %+.2f" % (k, (with_agent[k] - bare[k]) / 1024) for k in keys)
        print("%-14s bare Rss %5.2f MiB | agent - bare: %s MiB" % (label, bare["Rss"] / 1024, diffs))
    if "--maps" in sys.argv:
        bare, with_agent = mappings(procs[("tree", False)][1][0]), mappings(procs[("tree", True)][1][0])
        diff = sorted(((k, with_agent.get(k, 0) - bare.get(k, 0)) for k in set(bare) | set(with_agent)), key=lambda x: -abs(x[1]))
        print("forked worker, Rss by mapping, agent - bare (kB):", ", ".join("%s %+d" % x for x in diff if x[1]))
finally:
    for p, kids in procs.values():
        for pid in [p.pid] + kids:  # the forked workers too: they sleep forever, and hold this script's stderr open
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass
    shutil.rmtree(private, ignore_errors=True)
