"""What the Σ PSS benches share (run_tree_pss.py, fork_hook_cost.py): a process's Pss, its children, a tree started in
a session of its own and waited on until it says "ready", and the trees stopped at the end."""
import os
import signal
import subprocess


def pss_kib(pid, field="Pss"):
    """A field of /proc/PID/smaps_rollup in kB (Pss; Pss_Anon: the anonymous pages alone, what is new memory where a
    file's shared pages are only split among more processes); None once it has gone."""
    try:
        with open("/proc/%d/smaps_rollup" % pid) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


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
