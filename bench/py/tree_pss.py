"""What the Σ PSS benches share (run_tree_pss.py, fork_hook_cost.py): a process's Pss, its children, a tree started in
a session of its own and waited on until it says "ready", and the trees stopped at the end."""
import os
import signal
import subprocess

from forked_workers import rollup_kib


def pss_kib(pid):
    """Pss of the process in kB; None once it has gone."""
    fields = rollup_kib(pid)
    return None if fields is None else fields.get("Pss")


def children(pid):
    """The children of every thread of the process (a thread that forks is its parent)."""
    out = []
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return out
    for tid in tids:
        try:
            with open("/proc/%d/task/%s/children" % (pid, tid)) as f:
                out += [int(c) for c in f.read().split()]
        except OSError:
            pass
    return out


def start(argv, cwd=None):
    """A tree in a session (and process group) of its own, its stdout read for "ready"."""
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True, cwd=cwd)


def wait_ready(p):
    for line in p.stdout:
        if line.strip() == b"ready":
            return


def stop_all(procs):
    """Every tree's process group killed, and each tree's first process reaped."""
    for p in procs:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        p.wait()
