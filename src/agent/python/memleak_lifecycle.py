"""The agent's life in a process: it starts (`run`, from sitecustomize) or is attached (`watch`), connects, says
hello, and reports every interval from a thread of its own until memleak says goodbye or goes; it follows the
program's forks (a worker forked under `run` sleeps, running nothing of ours, until memleak wakes it; if memleak is
killed meanwhile, run's orphan guard stops it: src/system/orphan-guard.ts), and sends its last report at exit. Also
what `run --try trim`, --trace-python and the trim probe add to that life. Loaded in every process memleak watches,
from the code memleak_agent.py's loader shares.

Costs, by design: one daemon thread that sleeps between reports, waking on the wall clock's whole intervals
(_until_next_beat); each report reads /proc/self/status (~20 µs) and the other rooms' readings, each bounded by its own
cost (memleak_readings.py, memleak_census.py). tracemalloc (--trace-python) is the exception: it slows allocation-heavy
code down noticeably, which is why it is opt-in.
"""
import _socket
import _thread
import atexit
import gc
import os
import sys
import time

# The agent's entry and its other rooms, which this one runs, set by memleak_agent.py once every room is loaded; and the
# loader of the rooms loaded only when needed (memleak_agent.py _sibling_module).
_agent = _channel = _readings = _census = _sibling_module = None


class _Process:
    """The agent's state in this process: its thread and settings, how it came (run or watch), and its forks."""

    def __init__(self):
        self.thread = None
        self.stop = None  # the reporting thread's stop event (_Event)
        self.interval = 1.0
        self.attached = False  # loaded by `watch` (attach), not by `run`
        self.atexit = False  # _at_exit is registered
        self.placed = None  # the directory memleak placed in a container's view (attach), to remove if it is killed
        # run: the signal that wakes a forked worker's agent (_install_wake), None where it could not be installed. A
        # worker forked where it is installed runs nothing of ours until the signal comes (_asleep).
        self.wake = None
        self.child_hook = False  # forked children set themselves up as they are forked (_follow_forks_in_children)
        self.forked = False  # a forked child: it shares pages with its parent (memleak_census.py)
        self.fork_filter = False  # the filter of the fork warning is in the warnings filters (_hide_our_fork_warning)
        # `run --try trim` (_periodic_trim): every how many seconds (None: not read yet; 0: off), when last, how often
        self.trim_every = None
        self.trim_last = 0.0
        self.trim_count = 0
        self.tracer = None  # memleak_trace.py's Tracer, in a process traced (--trace-python)
        self.gpu_sites = None  # memleak_gpu_sites.py's GpuSites, in a process whose CUDA allocator was read
        self.traced = None
        # The program's main thread, for the holder search where threading is not loaded: the agent is loaded on it
        # (by sitecustomize under `run`, by a pending call under `watch`); in a forked child, the thread that forked.
        self.main = _thread.get_ident()


_process = _Process()
# Held while a report is put together: the pytest plugin takes it around its readings, so that a report's transient
# objects (json, the census's list) are never counted in a test's growth.
measure_lock = _thread.RLock()


def _env_float(name, default):
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


def _report(interval, force=False, census=True):
    with measure_lock:
        _report_locked(interval, force, census)


def _report_locked(interval, force, census):
    # The census first: what its walk allocates and frees moves the interpreter's counts (gcCount0, allocatedBlocks),
    # and read before it they would differ in the next report instead of this one, so an idle process whose census
    # ran every 5 s sent two reports per census instead of one (a `watch`ed forked worker: BENCHMARKS.md §g⁷).
    walked = _census._census_stats(interval, force) if census else None
    message = {
        "type": "report",
        "pid": os.getpid(),
        "threads": _readings._os_threads(),
        "py": _readings._python_stats(),
    }
    malloc = _readings._malloc_stats(interval, force)
    if malloc is not None:
        # The trims `run --try trim` made so far: the proof that the setting was in effect (a copy: the reading is cached).
        message["malloc"] = dict(malloc, trims=_process.trim_count) if _process.trim_every else malloc
    torch = _readings._torch_stats()
    if torch is not None:
        message["torch"] = torch
    gpu = _readings._cuda_stats()
    if gpu is not None:
        message["gpu"] = gpu
        _gpu_sites_beat(gpu)
    if walked is not None:
        message["census"] = walked
    line = _channel._json_line(message)
    pid, sock, last = os.getpid(), _channel._conn.sock, _channel._conn.last_report
    if not force and line == last["line"] and pid == last["pid"] and sock is last["sock"]:
        return
    _channel._conn.last_report.update(line=line, pid=pid, sock=sock)
    _channel._send_line('%s,"t":%r}' % (line[:-1], time.time()))


def _gpu_sites_beat(gpu):
    """The GPU sites room (memleak_gpu_sites.py), loaded in a process once CUDA is up in it, follows each device's
    allocated floor at every report and records where a rising one was allocated. Never fails a report."""
    try:
        sites = _process.gpu_sites
        if sites is None:
            room = _sibling_module("memleak_gpu_sites")
            sites = _process.gpu_sites = room.GpuSites(sys.modules[__name__], _census._own_path)
        sites.beat(gpu, time.monotonic())
    except Exception:
        pass


# ------------------------------------------------------------------------------------------------ tracemalloc, trim


def _tracer():
    """The tracemalloc room (memleak_trace.py), loaded the first time --trace-python needs it: a process that is not
    traced never loads it. One per process: a forked child's agent makes its own (_reset_in_child)."""
    tracer = _process.tracer
    if tracer is None:
        tracer = _process.tracer = _sibling_module("memleak_trace").Tracer(sys.modules[__name__], _agent_files())
    return tracer


def _agent_files():
    """The agent's own files, its entry's and its rooms': what is allocated there is memleak's, not the program's."""
    return tuple(m.__file__ for m in (_agent, _channel, _readings, _census, sys.modules[__name__]))


# `run --try trim` (MEMLEAK_TRIM_EVERY seconds): the agent calls malloc_trim(0) that often, on its own thread, to show
# what returning glibc's free pages to the kernel does to this program. Read once per process, like the allocator.


def _trim_every():
    if _process.trim_every is None:
        every = _env_float("MEMLEAK_TRIM_EVERY", 0.0)
        _process.trim_every = (
            every if every > 0 and not _process.attached and _readings._allocator() == "glibc" else 0.0
        )
    return _process.trim_every


def _periodic_trim():
    every = _trim_every()
    now = time.monotonic()
    if not every or now - _process.trim_last < every:
        return
    libc = _readings._libc()
    if libc is None or not hasattr(libc, "malloc_trim"):
        _process.trim_every = 0.0
        return
    _process.trim_last = now
    libc.malloc_trim(0)
    _process.trim_count += 1


def _trim_probe():
    libc = _readings._libc()
    if libc is None or not hasattr(libc, "malloc_trim"):
        return
    before = _readings._status_kib("RssAnon")
    libc.malloc_trim(0)
    after = _readings._status_kib("RssAnon")
    _channel._send({"type": "trim", "pid": os.getpid(), "t": time.time(), "anonBefore": before, "anonAfter": after})


def _at_exit():
    if _asleep():
        return  # a forked worker whose agent was never woken: nothing of ours ran here, and nothing will at its end
    launched = not _process.attached  # tracemalloc and the trim probe are `run` options
    try:
        if launched and os.environ.get("MEMLEAK_TRACE_PYTHON") and _process.tracer is not None:
            _process.tracer.report()
        if not _channel._conn.quiet:  # a quiet agent's process is read from /proc only, to its end
            _report(0, force=True)  # before the trim, so the last reading shows what was held
        if _process.gpu_sites is not None:
            _process.gpu_sites.at_exit(time.monotonic())
        if launched and os.environ.get("MEMLEAK_TRIM_PROBE"):
            _trim_probe()
    except Exception:
        pass
    sock = _channel._conn.sock
    if sock is not None:
        try:
            sock.close()
        except OSError:
            pass


# ------------------------------------------------------------------------------------------------------- lifecycle

# The agent's threads are _thread's, not threading's: threading (with collections, functools and the rest it imports)
# would be in every process only for them. They are daemon threads as threading's were (the interpreter does not wait
# for them at exit), not in threading.enumerate() (the program sees only its own threads there), and counted in
# pythonThreads as before (_python_threads). Their native names are set by prctl (_name_native_thread).
_own_threads = set()


def _start_thread(target, args):
    def run():
        ident = _thread.get_ident()
        _own_threads.add(ident)
        try:
            target(*args)
        except BaseException:  # never a traceback in the program's stderr (the targets catch their own already)
            pass
        finally:
            _own_threads.discard(ident)

    return _thread.start_new_thread(run, ())


class _Event:
    """threading.Event's set, is_set and wait, on one of _thread's locks: held while unset, released once set."""

    def __init__(self):
        self._flag = False
        self._guard = _thread.allocate_lock()
        self._gate = _thread.allocate_lock()
        self._gate.acquire()

    def is_set(self):
        return self._flag

    def set(self):
        with self._guard:
            if not self._flag:
                self._flag = True
                self._gate.release()

    def wait(self, timeout):
        if self._flag:
            return True
        if self._gate.acquire(True, max(0.0, timeout)):
            self._gate.release()  # open for every other waiter too
        return self._flag


def _name_native_thread():
    """Names the OS thread, so /proc/PID/task/*/comm shows whether memleak's thread is (still) in the process."""
    try:
        _readings._libc().prctl(15, b"memleak-agent", 0, 0, 0)  # PR_SET_NAME
    except Exception:
        pass


def _launcher_exited(pid):
    """No such process, or a zombie its parent has not reaped yet. Unknown counts as alive."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X")
    except FileNotFoundError:
        return True
    except (OSError, IndexError):
        return False


def _launcher_dead(wait=3.0):
    """Whether the memleak that launched this program (`run` puts its pid in MEMLEAK_PID) has exited. A dying
    process closes its sockets before it becomes a zombie, so the connection can end a moment before /proc says so:
    it is given `wait` seconds. Still there after that, it closed this connection on purpose. Never stop a program
    on a guess."""
    try:
        pid = int(os.environ.get("MEMLEAK_PID", ""))
    except ValueError:
        return False
    deadline = time.monotonic() + wait
    while not _launcher_exited(pid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
    return True


def _killed_not_closed(path):
    """memleak's close() removes its socket's directory before it exits; a memleak killed by SIGKILL cannot (the next
    run does). So a connection that ended without a goodbye, from a memleak that has exited, with the directory still
    there, is a killed memleak — not a connection it dropped, or one it never accepted as it ended normally."""
    return bool(path) and os.path.isdir(os.path.dirname(path))


def _remove_placed():
    """In a container, memleak placed the agent's files and its socket in a directory of this process's /tmp
    (agent/attach/placement.ts), which memleak removes as it ends. A memleak killed by SIGKILL cannot: the first agent
    to see its connection end without a goodbye removes the directory, once nothing answers on the socket any more
    (memleak's listener is gone, not just this connection). The module is loaded by then: nothing here needs the files.
    """
    placed = _process.placed
    path = _channel._conn.path
    if not placed or not path or os.path.dirname(path) != placed:
        return
    # A process being killed closes its descriptors one by one: this connection can end while its listening socket
    # still takes connections for a moment. So memleak counts as there only if it still answers over ~1.5 s.
    for attempt in range(6):
        probe = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        probe.settimeout(1.0)
        try:
            probe.connect(path)
        except OSError:
            break  # nobody listens: memleak is gone
        finally:
            probe.close()
        if attempt == 5:
            return  # memleak still listens: it closed this connection on purpose, and removes its directory itself
        time.sleep(0.3)
    try:
        import shutil

        shutil.rmtree(placed, ignore_errors=True)
    except Exception:
        pass


def _die_with_memleak():
    """`memleak run` was killed (SIGKILL: it could not stop the program itself). A program memleak launched must not
    go on unsupervised — allocating, holding its cgroup — so it stops as memleak would have stopped it: SIGTERM,
    then SIGKILL if it is still there after the grace memleak gives (FAIL_FAST_GRACE_MS). setpriv's parent-death
    signal does this for the command itself; this covers the Python processes it started (forked workers)."""
    try:
        os.write(
            2, b"memleak: the memleak that launched this process is gone (killed); stopping PID %d\n" % os.getpid()
        )
    except OSError:
        pass
    import signal  # only on this path: signal imports enum

    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(_env_float("MEMLEAK_ORPHAN_GRACE", 5.0))
    os.kill(os.getpid(), signal.SIGKILL)


def _until_next_beat(interval):
    """Seconds to the next whole multiple of `interval` on the wall clock, at least half an interval: every agent of a
    tree then reports at the same moment, and memleak reads their reports in one wake-up instead of one each. On 64
    processes at 1 Hz, reports spread over the second cost memleak ~300 µs each, at the same moment ~100 µs
    (bench/lib/channel-cost.mjs): its cost was the waking, not the reading."""
    wait = interval - time.time() % interval
    return wait + interval if wait < interval / 2 else wait


def _loop(interval, stop, sock):
    _name_native_thread()
    while not stop.is_set():
        if os.getpid() != _channel._conn.pid or _channel._conn.sock is not sock:
            return
        gone = _channel._memleak_gone(sock, _until_next_beat(interval))
        if gone:
            if _channel._conn.sock is sock:  # not a connection a later attach() already replaced
                _stop()
                if gone == "eof" and _process.attached:
                    _remove_placed()
                if (
                    gone == "eof"
                    and not _process.attached
                    and _launcher_dead()
                    and _killed_not_closed(_channel._conn.path)
                ):
                    _die_with_memleak()
            return
        if stop.is_set():
            return
        if _process.fork_filter:
            try:
                _unhide_fork_warning()
            except Exception:
                pass
        try:
            _periodic_trim()  # a quiet agent's process trims too: the setting is the program's, not the report's
        except Exception:
            pass
        if _channel._conn.cow_asked:
            _channel._conn.cow_asked = False
            _census._copied_objects()  # asked by memleak's word: quiet or not
        if _channel._conn.quiet:
            continue
        try:
            _report(interval)
        except Exception:
            pass


def _close_connection():
    sock = _channel._conn.sock
    _channel._conn.sock = None
    if sock is not None:
        try:
            sock.close()
        except OSError:
            pass


def _stop():
    """Closes the connection and lets the reporting thread end: nothing of the agent keeps running. Under `watch`
    this is how an attached agent leaves a live program once memleak has gone (closed, Ctrl-C or kill -9 alike)."""
    stop = _process.stop
    if stop is not None:
        stop.set()
    _close_connection()
    if _process.atexit:
        _process.atexit = False
        atexit.unregister(_at_exit)


def start(socket_path=None, interval=None, quiet=False):
    """Connects, sends a hello and a first report, and starts the reporting thread. `run` calls it from
    sitecustomize with the settings in MEMLEAK_* variables; `watch` calls it through attach(). `quiet`: a worker
    forked under `run` says hello and waits for memleak's word before its first report: most of a service's idle
    workers are read from /proc only (memleak's run-agents.ts), and a report they never send copies no page they
    share with their parent."""
    if interval is None:
        interval = _env_float("MEMLEAK_AGENT_INTERVAL", 1.0)
    interval = max(0.05, interval)
    path = socket_path if socket_path is not None else os.environ.get("MEMLEAK_AGENT_SOCKET")
    try:
        sock = _channel._connect(path)
    except OSError as e:
        _channel._conn.error = repr(e)  # said by memleak_attach.py, for `watch` to tell
        sock = None
    if sock is None:
        return
    _channel._conn.sock = sock
    _channel._conn.path = path
    _process.interval = interval
    # a new connection (a forked child's, a later watch's): memleak has said nothing to it yet
    _channel._conn.quiet = quiet
    _channel._conn.heard = b""
    _channel._conn.pid = os.getpid()
    if not _process.forked:
        _install_wake()
    if _process.attached or _process.wake is None:
        _follow_forks_in_children()
    stop = _Event()
    _process.stop = stop
    if not _process.atexit:
        _process.atexit = True
        atexit.register(_at_exit)
    _channel._send(
        {
            "type": "hello",
            "pid": os.getpid(),
            "t": time.time(),
            "python": sys.version.split()[0],
            "executable": sys.executable,
            "attached": _process.attached,
            "quiet": quiet,
            **({"wake": _process.wake} if _process.wake is not None else {}),
        }
    )
    try:
        if not quiet:
            _report(interval, census=False)  # on the caller's thread (the program's, under watch): no walk here
    except Exception:
        pass
    _process.thread = _start_thread(_loop, (interval, stop, sock))
    if not _process.attached and os.environ.get("MEMLEAK_TRACE_PYTHON") and _process.traced is None:
        _process.traced = True
        _tracer().start()


def _trace_window_quietly(seconds, stop):
    try:
        _tracer().window(seconds, stop)
    except Exception:  # never a traceback in the program's stderr
        pass


def attach(socket_path, interval, trace=None, placed=None):
    """`memleak watch` injected us into a running interpreter (memleak_attach.py runs this on the main thread, with the
    GIL, at a point where the interpreter runs Python code). The same reports as under `run`; tracemalloc only for
    --trace-python's window (`trace` seconds, memleak_trace.py Tracer.window), no trim probe; and the agent stops by itself when
    memleak's end of the socket closes. Attaching again (a later watch) reuses this module, so nothing accumulates.
    `placed`: the directory memleak placed in this process's view (a container), to remove if memleak is killed."""
    _process.placed = placed
    if _channel._conn.sock is not None and _channel._conn.pid == os.getpid():
        if _channel._conn.path == socket_path:
            return  # already reporting to this memleak
        _stop()  # a previous memleak's connection
    _process.attached = True
    start(socket_path, interval)
    if trace and _channel._conn.sock is not None:
        stop = _process.stop
        _start_thread(_trace_window_quietly, (float(trace), stop))


def _reset_in_child():
    """What the parent's agent left behind that a forked child's own agent must not use."""
    global measure_lock
    # Fresh locks: the reporting thread, which does not exist in the child, may have held them at the fork.
    _channel._conn.send_lock = _thread.allocate_lock()
    measure_lock = _thread.RLock()
    _own_threads.clear()  # only the thread that forked is in the child
    _process.main = _thread.get_ident()
    _census._reset_in_child()
    _process.stop = None
    _process.gpu_sites = None  # CUDA does not survive a fork: the parent's floors and window are not the child's
    _readings._malloc.cached = None
    tracer = _process.tracer
    if tracer is not None and tracer.baseline is not None:
        _process.tracer = None  # the parent's baseline is not this child's: its agent takes its own
        _process.traced = None


def _asleep():
    """A worker forked under `run` where the wake signal is installed, its agent not woken: the connection it has is
    its parent's (inherited with the process's memory), and nothing of memleak's has run in it since the fork."""
    return _process.wake is not None and not _process.attached and _channel._conn.pid not in (None, os.getpid())


def _adopt_fork():
    """The child's side of a fork, run in the child once its agent is wanted: the parent's connection closed (not
    ours to use), collection back on, and what the parent's agent left reset."""
    _unhide_fork_warning()
    _census._collection_back_in_child()
    _process.forked = True
    _close_connection()
    _reset_in_child()


def _follow_forks_in_children():
    """Where a forked child's agent must connect as it is forked (`watch`, which follows a connected agent's forks;
    `run` without the wake signal, whose every worker connects quiet), the child runs its side at the fork. Under
    `run` with the wake signal nothing of ours runs in a forked worker until memleak wakes it (_wake): every line run
    there writes to pages the worker shares with its parent — the child's side alone, ~20 lines, cost each idle worker
    ~100 kB of them, the handler being there ~25 kB more (BENCHMARKS.md § g¹⁴)."""
    if _process.child_hook or not hasattr(os, "register_at_fork"):
        return
    _process.child_hook = True
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _after_fork_in_child():
    try:
        parent_connected = _channel._conn.sock is not None
        _adopt_fork()
        # An attached agent follows a forked worker only while it is itself connected, so a program forked after
        # memleak left stays untouched; under run every process reports (the socket is in the environment).
        if _process.attached:
            if parent_connected:
                start(_channel._conn.path, _process.interval)
        else:
            start(quiet=True)
    except Exception:
        pass


def _wake(signum, frame):
    """The wake signal's handler, on the program's main thread between two of its bytecodes: memleak wants this
    forked worker's agent (it grows, or stands for its siblings). Nothing where the agent is awake already: a signal
    sent twice, or to the process that installed the handler."""
    if not _asleep():
        return
    try:
        _adopt_fork()
        start()
    except Exception:
        pass


def _install_wake():
    """Under run, before the program forks: the handler of the signal that wakes a forked worker's agent, inherited by
    every worker with the process's memory. Only where the program has not taken that signal (its disposition is the
    default), only on the main thread (where Python lets a handler be set), and MEMLEAK_WAKE_SIGNAL=0 turns it off:
    then each forked worker connects, quiet, as before. memleak sends the signal only to a process whose
    /proc/PID/status says it catches it (an exec resets a caught signal), and only after this hello said which."""
    if _process.attached or _process.wake is not None or not hasattr(os, "register_at_fork"):
        return
    # `run --try trim`: every worker's agent trims on its own thread (_periodic_trim); --trace-python: every worker
    # sends its allocation sites, at the end too. Both need each worker's agent awake.
    if _env_float("MEMLEAK_TRIM_EVERY", 0.0) > 0 or os.environ.get("MEMLEAK_TRACE_PYTHON"):
        return
    import _signal

    try:
        offset = int(os.environ.get("MEMLEAK_WAKE_SIGNAL", "7"))
    except ValueError:
        return
    signum = _signal.SIGRTMIN + offset
    if offset <= 0 or signum > _signal.SIGRTMAX or _thread.get_ident() != _process.main:
        return
    try:
        if _signal.getsignal(signum) != _signal.SIG_DFL:
            return
        _signal.signal(signum, _wake)
    except (ValueError, OSError):
        return
    _process.wake = signum


def _before_fork():
    """Before every fork of the program's: its work (_before_fork_work) only while there is some. A page the parent
    writes between two forks stays, as it was, with the worker forked before, which then holds it alone: each object
    this touches costs every idle worker a page. Reading the census's state here wrote three (this function, a module
    and the state object: a helper's pagemap study, 2026-12-06, 16 of 16 workers); reading the flag below, two."""
    if _fork_work:
        _before_fork_work()


def _before_fork_work():
    """Before every fork of the program's, in the process that forks. Each line run here writes pages the children
    forked before share with this process, so little runs: a wait where the census holds the collector off on the
    agent's thread (a child forked then would never collect: a sleeping worker runs nothing of ours to turn it back on),
    and on 3.12+ whether the fork's warning would be memleak's (_hide_our_fork_warning)."""
    try:
        census = _census
        walking = census._state.gc_held if census is not None else None
        if walking == _thread.get_ident():
            # The walk forks (the program's __len__ or __sizeof__ it called): collection goes back on for the rest of
            # the walk, so that the child has it.
            census._state.gc_held = None
            gc.enable()
        elif walking is not None:
            lock = measure_lock  # held around the walk (_report): the forking thread waits for its end
            if lock.acquire(True, 1.0):
                lock.release()
        if _WARNS_AT_FORK:
            _hide_our_fork_warning()
    except Exception:
        pass


_WARNS_AT_FORK = sys.version_info >= (3, 12)
# Whether _before_fork has work: while a census walk holds the collector off (memleak_census.py _hold_collection sets
# it first, _release_collection clears it last), and always where forks warn (3.12+).
_fork_work = _WARNS_AT_FORK


# Python 3.12+ warns, in the parent after a fork, when the process had more than one OS thread: "This process (pid=…)
# is multi-threaded, use of fork() may lead to deadlocks in the child" (a DeprecationWarning, shown where the program
# forks from __main__, and in pytest's summary for a fork anywhere). Where the only other threads are the agent's, the
# warning would be memleak's, not the program's: the agent is safe across a fork (its locks are made again in the child,
# _reset_in_child, and its thread does not run there). So for that fork only, a filter ignores that warning; with any
# thread of the program's (or a library's native one) the warning is the program's, and it is left to say so. The
# filter goes at the next fork's decision, in the child, and at the reporting thread's next wake-up — not in the parent's
# after-fork hook: 3.13 warns after those hooks have run (3.12 before).
# Ending the thread for each fork instead was measured dearer: starting it again after each fork wrote ~3x the pages a
# forked worker then held alone (BENCHMARKS.md § g¹²).
class _OwnForkWarning:
    """A warnings filter's message test (its `match`, as a compiled pattern's): the fork warning, nothing else."""

    def match(self, text):
        return text.startswith("This process (pid=") and " is multi-threaded, use of fork() " in text


_FORK_WARNING_FILTER = ("ignore", _OwnForkWarning(), DeprecationWarning, None, 0)


def _warning_filters():
    """The filters list the warnings machinery reads now: warnings.filters where warnings is imported (pytest's
    catch_warnings puts a copy there), _warnings' own before (the one warnings takes when it is imported)."""
    import _warnings

    module = sys.modules.get("warnings") or _warnings
    return module, getattr(module, "filters", None)


def _hide_our_fork_warning():
    _unhide_fork_warning()  # decided afresh at every fork
    if not _own_threads or _asleep():
        return  # in a sleeping worker _own_threads is its parent's
    if _readings._os_threads() != 1 + len(_own_threads):
        return  # a thread of the program's: the warning is true of it
    module, filters = _warning_filters()
    if isinstance(filters, list):
        filters.insert(0, _FORK_WARNING_FILTER)
        _filters_changed(module)
        _process.fork_filter = True


def _unhide_fork_warning():
    """After the fork: the filter goes (a later fork's warning may be the program's)."""
    if not _process.fork_filter:
        return
    _process.fork_filter = False
    module, filters = _warning_filters()
    if isinstance(filters, list):
        for i, f in enumerate(filters):
            if f is _FORK_WARNING_FILTER:
                del filters[i]
                _filters_changed(module)
                return


def _filters_changed(module):
    """The warnings machinery caches what it decided per place: a change of the filters is told to it, as
    warnings.filterwarnings tells it."""
    changed = getattr(module, "_filters_mutated", None) or getattr(module, "_filters_mutated_lock_held", None)
    if changed is not None:
        changed()


def _fork_hook_wanted():
    """_before_fork registered, once per module (`watch` keeps the module in sys.modules, memleak_attach.py, so
    attaching again adds no hook; a hook cannot be taken back). Where forks warn (3.12+) from the start, for the
    warning's filter; before that at the census's first walk of the whole heap, the only thing it waits for: on
    Debian's CPython 3.11 the hook being there, reading its flag, cost every idle worker forked after it ~14 kB
    (BENCHMARKS.md § g²¹), and a server that forks its workers before memleak first walks never gets one."""
    global _fork_hook
    if _fork_hook or not hasattr(os, "register_at_fork"):
        return
    _fork_hook = True
    os.register_at_fork(before=_before_fork)


_fork_hook = False
if _WARNS_AT_FORK:
    _fork_hook_wanted()
