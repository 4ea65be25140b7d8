"""`memleak run --trace-native`: keeps heaptrack's preload library in every Python process of the command.

heaptrack's library removes LD_PRELOAD and DUMP_HEAPTRACK_OUTPUT from the environment of each process it starts in,
so that its children are not traced; and a shell or a pyenv shim between memleak and Python loses them the same way.
memleak passes the two values again as MEMLEAK_TRACE_NATIVE_PRELOAD and MEMLEAK_TRACE_NATIVE_OUTPUT, which heaptrack
leaves alone. At start-up (sitecustomize, before the agent), a Python process
  - that is traced puts LD_PRELOAD and DUMP_HEAPTRACK_OUTPUT back, so the programs it starts are traced too, and
    ends its trace at exit, before the interpreter's finalization;
  - that is not re-executes itself once, same interpreter, same arguments, same pid, with the preload set.
Forked children are not traced (heaptrack stops in them). Nothing here may stop the program: failures are swallowed."""
import os
import sys

_TRIED = "MEMLEAK_TRACE_NATIVE_REEXEC"


def _loaded(library):
    try:
        with open("/proc/self/maps") as maps:
            return any(library in line for line in maps)
    except OSError:
        return True  # cannot tell: leave the process as it is


def _argv():
    with open("/proc/self/cmdline", "rb") as f:
        raw = f.read()
    return [os.fsdecode(a) for a in raw.split(b"\0")[:-1]]


def _stop_at_exit():
    """The trace ends when the program does, before the interpreter tears its modules down: finalization allocates
    too (torch's bindings do, through the very functions that ran at import), and what it allocates is never freed
    only because the process ends, which would read as a leak still growing at the very end. Registered first, so it
    runs after the program's own atexit handlers."""
    import atexit
    import ctypes

    stop = ctypes.CDLL(None).heaptrack_stop  # the preloaded library's own API (heaptrack_api.h)
    stop.restype = None
    stop.argtypes = []
    traced = os.getpid()

    def stop_here():
        # A forked child inherits this handler but not the trace (heaptrack leaves it in the parent): nothing to stop.
        if os.getpid() == traced:
            stop()

    atexit.register(stop_here)


def arm():
    library = os.environ.get("MEMLEAK_TRACE_NATIVE_PRELOAD")
    output = os.environ.get("MEMLEAK_TRACE_NATIVE_OUTPUT")
    if not library or not output:
        return
    others = [p for p in os.environ.get("LD_PRELOAD", "").split(":") if p and p != library]
    preload = ":".join([library] + others)
    if _loaded(library):
        os.environ["LD_PRELOAD"] = preload
        os.environ["DUMP_HEAPTRACK_OUTPUT"] = output
        _stop_at_exit()
        return
    # Once only: where the preload cannot load (a static or setuid interpreter) the program runs untraced.
    if os.environ.get(_TRIED) == str(os.getpid()) or not sys.executable:
        return
    argv = _argv()
    if not argv:
        return
    env = dict(os.environ, LD_PRELOAD=preload, DUMP_HEAPTRACK_OUTPUT=output)
    env[_TRIED] = str(os.getpid())
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, argv, env)
