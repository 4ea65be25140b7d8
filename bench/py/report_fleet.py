"""Stands in for N agents on one machine: N connections to memleak's agent socket, each sending a hello and then one
report a second, as the agent does (the line is a real report of an idle forked worker). PHASE says when in the second:
"spread" (each connection at its own offset, as agents started at different times send) or "aligned" (all at the
whole second). Usage: python3 report_fleet.py SOCKET N PHASE SECONDS"""
import json
import socket
import sys
import time

path, n, phase, seconds = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
REPORT = {"type": "report", "pid": 0, "t": 0, "threads": 2, "py": {"allocatedBlocks": 34585, "pythonThreads": 2, "gcCount0": 554, "gcCount1": 9, "gcCount2": 1, "gcCollections": 21, "gcRuns2": 0, "gcCollected1": 0, "gcCollected2": 0, "gcThreshold2": 10, "modules": 106}, "malloc": {"inUse": 2190512, "free": 1442640, "arena": 3231744, "mmapped": 401408, "allocator": "glibc", "arenas": 2}, "census": {"skipped": 1, "why": "shares pages with forked relatives"}}
socks = []
for i in range(n):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall((json.dumps({"type": "hello", "pid": 100000 + i, "t": time.time()}) + "\n").encode())
    socks.append(s)
start = time.time()
k = 0
while time.time() - start < seconds:
    second = int(time.time() - start)
    for i, s in enumerate(socks):
        at = start + second + (0 if phase == "aligned" else i / n)
        time.sleep(max(0.0, at - time.time()))
        REPORT["pid"] = 100000 + i
        REPORT["t"] = time.time()
        REPORT["py"]["allocatedBlocks"] = 34585 + k % 7  # a number that moves, as an idle process's does
        k += 1
        s.sendall((json.dumps(REPORT, separators=(",", ":")) + "\n").encode())
    time.sleep(max(0.0, start + second + 1 - time.time()))
