"""BENCHMARKS.md §k′: what the census copies in a gunicorn worker that shares pages with its master (issue 29).

Usage (Debian's python3 with gunicorn and python3-flask): /usr/bin/python3 bench/py/forked_census_cost.py [REPEATS]

For each walk, and for gunicorn with --preload and without, a fresh gunicorn with one worker serving
fixtures/holder/flask_pages.py plus a /probe route (added here): one request to /probe/<walk> reads the worker's USS
(Private_Clean + Private_Dirty of /proc/self/smaps_rollup) before and after the walk, in the same request. A fresh
worker each time, since a page once copied stays the worker's own. Medians over REPEATS (default 3). Also printed:
the shared anonymous memory before the walk (an upper bound: 2 × (Anonymous − Pss_Anon), two processes sharing)."""
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import http.client

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PROBE = r'''
import gc, sys, time, json
sys.path.insert(0, %(agent)r)
from flask_pages import app, PAGES

def _uss():
    f = {}
    with open("/proc/self/smaps_rollup") as fh:
        for line in fh:
            k, _, v = line.partition(":")
            if k in ("Private_Clean", "Private_Dirty", "Anonymous", "Pss_Anon"):
                f[k] = int(v.split()[0])
    return f

@app.route("/probe/<walk>")
def probe(walk):
    import memleak_agent as agent
    before = _uss()
    t0 = time.perf_counter()
    if walk == "whole heap (census before)":
        agent.census._state.scope = "heap"
        agent.census._shares_pages_with_relatives = lambda: False
        agent.census._census_stats(1.0, True)
    elif walk == "near globals (census now)":
        agent.census._census_stats(1.0, True)
    elif walk == "near globals + holder search":
        agent.census._census_stats(1.0, True)
        agent.census._holder_module().find(PAGES)
    elif walk == "gc.collect()":
        gc.collect()
    ms = (time.perf_counter() - t0) * 1000
    after = _uss()
    return json.dumps({"ms": ms, "kib": after["Private_Clean"] + after["Private_Dirty"] - before["Private_Clean"] - before["Private_Dirty"],
                       "shared": 2 * (before["Anonymous"] - before["Pss_Anon"]), "uss": before["Private_Clean"] + before["Private_Dirty"]})
'''

WALKS = ["nothing", "whole heap (census before)", "near globals (census now)", "near globals + holder search", "gc.collect()"]


class UnixHTTP(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("localhost", timeout=30)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.path)


def get(path, url):
    c = UnixHTTP(path)
    try:
        c.request("GET", url)
        r = c.getresponse()
        return r.status, r.read()
    finally:
        c.close()


def one(walk, preload, tmp):
    path = os.path.join(tmp, "web.sock")
    cmd = [sys.executable, "-m", "gunicorn", "-w", "1", "-b", "unix:" + path, "--chdir", tmp, "probe_app:app"]
    if preload:
        cmd.insert(3, "--preload")
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            try:
                if get(path, "/ready")[0] == 200:
                    break
            except OSError:
                time.sleep(0.1)
        time.sleep(1)
        return json.loads(get(path, "/probe/" + walk.replace(" ", "%20"))[1])
    finally:
        p.terminate()
        p.wait()


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "flask_pages.py"), "w") as f, open(os.path.join(REPO, "fixtures/holder/flask_pages.py")) as src:
            f.write(src.read())
        with open(os.path.join(tmp, "probe_app.py"), "w") as f:
            f.write(PROBE % {"agent": os.path.join(REPO, "src/agent/python")})
        print("| gunicorn | walk | USS copied by the walk | walk's wall time | worker's USS before | shared anon before (bound) |")
        print("| --- | --- | --- | --- | --- | --- |")
        for preload in (True, False):
            for walk in WALKS:
                runs = [one(walk, preload, tmp) for _ in range(repeats)]
                med = lambda k: statistics.median(r[k] for r in runs)
                print("| %s | %s | %.2f MiB | %.0f ms | %.1f MiB | %.1f MiB |" % ("--preload" if preload else "no --preload", walk, med("kib") / 1024, med("ms"), med("uss") / 1024, med("shared") / 1024))


main()
