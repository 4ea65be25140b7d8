"""How memleak's agent module is loaded into a target: from code compiled once per memleak and shared, not compiled from
its source in every process; the agent's rooms too (memleak_agent.py loads them through load's _load_cached). Used by
sitecustomize.py (`run`) and memleak_attach.py (`watch`).

Compiling the agent (memleak_agent.py and its rooms, 60 KB) leaves ~3.6 MiB of the compiler's freed memory resident in the process (RssAnon;
loading the compiled code instead: ~0.6 MiB), and every page of it is walked again by each smaps_rollup memleak reads
of that process, and by the rollups of every worker forked from it. Python's own bytecode cache does not help where
users are: PYTHONDONTWRITEBYTECODE=1 is set in most Python container images, and a global install's directory is not
the user's to write. So the first process compiles the agent and leaves the code in memleak's private directory (its
socket's, 0700, removed with it) under the interpreter's bytecode magic number and the source's size and mtime; the
others load it. Another Python version, or another source, compiles its own."""
import os
import sys

# The import system's own functions, which importlib.util re-exports: importing importlib.util would bring contextlib,
# functools, collections and more into every process memleak watches (+0.8 MiB of Debian's Python 3.11, in every
# forked worker's page tables too: BENCHMARKS.md §g⁗). These modules are loaded in every CPython before site runs.
from _frozen_importlib import module_from_spec
from _frozen_importlib_external import MAGIC_NUMBER, spec_from_file_location


# The agent's code is compiled without its docstrings (as `python -OO` would; it has no asserts): they are for its
# readers, and kept they are resident in every process memleak loads the agent into (the five files' ~25 KB of them,
# which the split into rooms by job made larger). Its tracebacks keep their line numbers.
_OPTIMIZE = 2


# The files every agent loads: memleak_agent.py and its rooms (its _ROOMS; src/agent/attach/precompile.ts
# AGENT_CODE_FILES, which test/unit/agent/placed-files.test.ts holds to this list). One compile elsewhere does them all.
_AGENT_FILES = (
    "memleak_agent.py",
    "memleak_channel.py",
    "memleak_readings.py",
    "memleak_census.py",
    "memleak_lifecycle.py",
)

# How long the first process of a run waits for its interpreter to compile the agent elsewhere (~0.1 s) before it
# compiles the agent itself, as it did before.
_COMPILE_ELSEWHERE_SECONDS = 10.0


def _key(path):
    st = os.stat(path)
    return b"%s %d %d O%d\n" % (MAGIC_NUMBER.hex().encode(), st.st_size, st.st_mtime_ns, _OPTIMIZE)


def _cached_path(path, cache_dir):
    name = os.path.splitext(os.path.basename(path))[0]
    return os.path.join(cache_dir, "%s-%s.code" % (name, MAGIC_NUMBER.hex()))


def _from_cache(cached, key):
    """The code in `cached` if it was compiled from this source by this Python; None otherwise."""
    import marshal

    try:
        fd = os.open(cached, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as f:
            data = f.read()
        if data.startswith(key):
            # Read through a view, not a copy of the file's tail: a 48 KB temporary freed in the program's heap before
            # it forks is a hole its workers' first allocations land in, and each such write copies a shared page
            # (§g¹⁵: 256 idle workers).
            return marshal.loads(memoryview(data)[len(key) :])
    except (OSError, ValueError, EOFError, TypeError):
        pass
    return None


def _interpreter():
    """This process's interpreter, where running it again compiles the agent: CPython's own binary by its name (a
    program that embeds Python, uWSGI or Blender, has sys.executable pointing at itself or at nothing, and would take
    the arguments as its own and start), the one this process runs (/proc/self/exe). None otherwise."""
    exe = sys.executable
    name = os.path.basename(exe or "")
    if not name.startswith("python") or name.strip("python0123456789.mt"):
        return None
    try:
        if os.path.realpath(exe) != os.readlink("/proc/self/exe"):
            return None
    except OSError:
        return None
    return exe


def _compile_elsewhere(path, cache_dir):
    """`path` and the agent's files beside it compiled into `cache_dir` by this interpreter in a short-lived process
    (this module's __main__, as `watch` runs it before loading the agent: precompile.ts). Compiling here leaves the
    compiler's freed memory in the program's heap as holes, and a program that forks after start-up hands them to every
    worker, whose first allocations land there and copy the pages they share (§g¹⁵: ~45 kB an idle worker on 3.11).
    Anything that fails leaves the caller to compile it here, as before."""
    exe = _interpreter()
    if exe is None or not hasattr(os, "posix_spawn"):
        return
    here = os.path.dirname(path)
    sources = [path] + [os.path.join(here, f) for f in _AGENT_FILES if os.path.join(here, f) != path]
    try:
        # -I: none of the user's PYTHON* settings or site-packages; -S: no site, so no sitecustomize (no agent). No
        # environment either: the compile needs none, and nothing of the program's reaches it.
        # Its standard streams go nowhere: nothing it could say (an interpreter that fails to start) is the program's.
        quiet = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)]
        argv = [exe, "-I", "-S", os.path.abspath(__file__), cache_dir] + sources
        pid = os.posix_spawn(exe, argv, {}, file_actions=quiet)
    except OSError:
        return
    import time

    deadline = time.monotonic() + _COMPILE_ELSEWHERE_SECONDS
    try:
        while os.waitpid(pid, os.WNOHANG)[0] == 0:
            if time.monotonic() > deadline:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                return
            time.sleep(0.005)
    except (OSError, ChildProcessError):  # reaped by a SIGCHLD handler, or gone: the cache says whether it compiled
        pass


def _compiled(path, cache_dir, elsewhere=False):
    """(code, compiled here?) of the source at `path`, from `cache_dir` when a process of the same Python put it there
    (or, with `elsewhere`, when this interpreter just compiled it there in a process of its own). Where nothing can be
    cached (no directory, one the process may not write), it is compiled as Python would."""
    import marshal

    with open(path, "rb") as f:
        source = f.read()
    key = _key(path)
    cached = _cached_path(path, cache_dir) if cache_dir else None
    if cached:
        code = _from_cache(cached, key)
        if code is None and elsewhere:
            _compile_elsewhere(path, cache_dir)
            code = _from_cache(cached, key)
        if code is not None:
            return code, False
    code = compile(source, path, "exec", optimize=_OPTIMIZE)
    if cached:
        tmp = "%s.%d.tmp" % (cached, os.getpid())
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(key + marshal.dumps(code))
            os.replace(tmp, cached)  # whole or not at all: another process may be reading it
        except OSError:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    return code, True


def _give_back_loader_memory():
    """glibc keeps freed blocks in its heap; malloc_trim returns the free pages to the kernel: the compiler's (~2 of the
    3.6 MiB, in under a millisecond) where the code was compiled here, and where it was loaded from the cache whatever
    the reading of the file and the code's unmarshalling left at the heap's top (0.10-0.25 MiB, by where the agent's
    code happens to end: an agent 7 KB shorter kept 128 KiB more of [heap]). Only called at start-up under `run`,
    before the program's own code has run, so it changes nothing the program did."""
    try:
        import ctypes

        trim = getattr(ctypes.CDLL(None), "malloc_trim", None)
        if trim is not None:
            trim(0)
    except Exception:  # not glibc, or no ctypes: the memory stays, nothing else changes
        pass


def load(name, path, cache_dir, trim_after_load=False, elsewhere=False):
    """The module at `path`, registered as sys.modules[name] (as an import would), its code from the shared cache. The
    module finds `_load_cached(name, path)` in its namespace as it runs: how it loads the files beside it that it always
    needs (memleak_agent.py's rooms) from the same cache. With `elsewhere` (`run`), code missing from the cache is
    compiled by this interpreter in a process of its own, not in this one (_compile_elsewhere)."""
    spec = spec_from_file_location(name, path)
    module = module_from_spec(spec)
    code = _compiled(path, cache_dir, elsewhere)[0]
    module._load_cached = lambda room, room_path: load(room, room_path, cache_dir, elsewhere=elsewhere)
    sys.modules[name] = module
    try:
        exec(code, module.__dict__)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    del code
    if trim_after_load:
        _give_back_loader_memory()
    return module


if __name__ == "__main__":
    # `memleak watch` runs this with the watched program's own interpreter (its /proc/PID/exe, `-I -S`) before it loads
    # the agent there: the compiler's ~3.5 MiB of freed memory then stays in this short-lived process, not in the
    # program, whose heap nothing may trim (memleak would be measuring its own effect). Usage: CACHE_DIR SOURCE...
    for source in sys.argv[2:]:
        _compiled(source, sys.argv[1])
