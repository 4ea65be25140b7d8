"""The agent's channel to memleak: its end of the Unix socket, the JSON lines it sends there (one message a line, at
most _MAX_MESSAGE bytes), and what memleak says back. One connection per process: a forked child connects its own
(memleak_lifecycle.py). Loaded in every process memleak watches, from the code memleak_agent.py's loader shares.
"""
import _socket
import _thread
import os
import select

# The modules this channel imports are what every watched process pays for, in each one: their objects and the
# interpreter's code they run are resident pages that every smaps_rollup memleak reads walks again (BENCHMARKS.md §g⁗).
# So the C modules under json, socket and threading, not those: json, socket and threading (with signal) pulled 35 more
# modules into a bare interpreter (re, enum, collections, functools...: +1.1 MiB of Debian's Python 3.11 a process,
# copied into every forked worker's page tables). The other rooms keep to the same rule; what only some paths need
# (signal, shutil, tracemalloc, the holder search) is imported there.
try:
    from _json import encode_basestring_ascii as _c_encode_basestring_ascii
    from _json import make_encoder as _c_make_encoder
except ImportError:  # an interpreter built without _json: json's own pure-Python encoder, the same output
    _c_make_encoder = None

_MAX_MESSAGE = 60 * 1024  # memleak drops longer lines; stay under it

# The agent's room this one calls (memleak_lifecycle.py: _stop), set by memleak_agent.py once every room is loaded.
_lifecycle = None


class _Connection:
    """This process's connection to memleak, and what memleak said on it."""

    def __init__(self):
        self.sock = None  # None: not connected (never, memleak gone, or a forked child's parent's)
        self.path = None  # the socket's path
        self.pid = None  # the process that connected: a forked child inherits the object, not the connection
        self.error = None  # why the last connect failed: said by memleak_attach.py, for `watch` to tell
        # memleak said "quiet": this process is read from /proc only (run's placement): no reports, no wake-ups
        self.quiet = False
        self.heard = b""  # the part of memleak's words after the last newline
        self.cow_asked = False  # memleak said "cow": which of the parent's objects this worker copied, asked
        # One message on the socket at a time: the reporting thread and the program's thread (the pytest plugin) both
        # send. A forked child gets a fresh one (memleak_lifecycle.py _reset_in_child).
        self.send_lock = _thread.allocate_lock()
        # The last report sent, without its time, and on which connection by which process: a report equal to it is
        # not sent again (memleak_lifecycle.py _report_locked). memleak repeats each process's latest report in every
        # sample (src/agent/channel.ts snapshot), so what it records and judges is the same, and an idle process (a
        # worker waiting for requests, 64 forked loaders between epochs) costs it no socket read and no parse, and the
        # program no send: 83% of the reports of 64 idle forked workers of 8 MB here (BENCHMARKS.md §g⁶). Forced
        # reports (the last words at exit) are always sent.
        self.last_report = {"line": None, "pid": None, "sock": None}


_conn = _Connection()


def _connect(path):
    if not path:
        return None
    s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)  # not inheritable: a child exec'd later never holds it
    s.settimeout(1.0)
    try:
        s.connect(path)
    except OSError:
        s.close()
        raise
    return s


def _not_serializable(o):
    raise TypeError("Object of type %s is not JSON serializable" % o.__class__.__name__)


def _json_line(message):
    """json.dumps(message, separators=(",", ":")), byte for byte: json's own C encoder (the one json.dumps uses) with
    json.dumps's defaults (ASCII only, circular references checked, NaN allowed, keys unsorted), without importing
    json (see the imports)."""
    if _c_make_encoder is None:
        import json

        return json.dumps(message, separators=(",", ":"))
    encode = _c_make_encoder({}, _not_serializable, _c_encode_basestring_ascii, None, ":", ",", False, False, True)
    return "".join(encode(message, 0))


def _send(message):
    _send_line(_json_line(message))


def _send_line(line):
    sock = _conn.sock
    if sock is None:
        return
    data = (line + "\n").encode()
    if len(data) > _MAX_MESSAGE:
        return
    try:
        with _conn.send_lock:
            sock.sendall(data)
    except _socket.timeout:
        _lifecycle._stop()  # memleak is there but not reading (stopped, or swamped): stop reporting to it
    except OSError:
        pass  # the connection ended: the reporting thread sees it too, and decides what that means (_loop)


def connected():
    """Whether memleak is listening: the pytest plugin refuses to run without it."""
    return _conn.sock is not None and _conn.pid == os.getpid()


def send(message):
    """For the pytest plugin: one message of its own (test-start, test-end) on the agent's connection."""
    _send(message)


def _memleak_gone(sock, timeout):
    """Waits up to `timeout` seconds (for ever while quiet). None while memleak is there; "bye" when it said goodbye
    (as a session ends, or `watch` releases this agent); "eof" when the connection ended without one (memleak killed,
    or this connection dropped). memleak's other words, one a line: "quiet" — this process is read from /proc only
    (`run`'s placement, agent-placement.ts), so no reports and no wake-ups until memleak speaks again — "report"
    (report again, now) and "cow" (say which of the parent's objects this forked worker copied, memleak_cow.py). A
    word this agent does not know is a goodbye: an older agent took every word for one.
    """
    try:
        readable, _, _ = select.select([sock], [], [], None if _conn.quiet else timeout)
        if not readable:
            return None
        data = sock.recv(64)
        if not data:
            return "eof"
    except (OSError, ValueError):
        return "eof"
    lines = (_conn.heard + data).split(b"\n")
    _conn.heard = lines.pop()
    for word in lines:
        if word == b"quiet":
            _conn.quiet = True
        elif word == b"report":
            _conn.quiet = False
            _conn.last_report["line"] = None  # memleak forgot the last one when it said quiet: the next is sent
        elif word == b"cow":
            _conn.cow_asked = True  # which of the parent's objects this worker copied: walked on the agent's thread
        else:
            return "bye"
    return None
