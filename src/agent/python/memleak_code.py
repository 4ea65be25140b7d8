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


def _compiled(path, cache_dir):
    """(code, compiled here?) of the source at `path`, from `cache_dir` when a process of the same Python put it there.
    Where nothing can be cached (no directory, one the process may not write), it is compiled as Python would."""
    import marshal

    with open(path, "rb") as f:
        source = f.read()
    st = os.stat(path)
    key = b"%s %d %d O%d\n" % (MAGIC_NUMBER.hex().encode(), st.st_size, st.st_mtime_ns, _OPTIMIZE)
    name = os.path.splitext(os.path.basename(path))[0]
    cached = os.path.join(cache_dir, "%s-%s.code" % (name, MAGIC_NUMBER.hex())) if cache_dir else None
    if cached:
        try:
            fd = os.open(cached, os.O_RDONLY | os.O_NOFOLLOW)
            with os.fdopen(fd, "rb") as f:
                data = f.read()
            if data.startswith(key):
                return marshal.loads(data[len(key) :]), False
        except (OSError, ValueError, EOFError, TypeError):
            pass
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


def load(name, path, cache_dir, trim_after_load=False):
    """The module at `path`, registered as sys.modules[name] (as an import would), its code from the shared cache. The
    module finds `_load_cached(name, path)` in its namespace as it runs: how it loads the files beside it that it always
    needs (memleak_agent.py's rooms) from the same cache."""
    spec = spec_from_file_location(name, path)
    module = module_from_spec(spec)
    code = _compiled(path, cache_dir)[0]
    module._load_cached = lambda room, room_path: load(room, room_path, cache_dir)
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
