"""Run inside a live interpreter by `memleak watch` (through gdb and Py_AddPendingCall, or sys.remote_exec on 3.14+),
on the main thread, holding the GIL, between two bytecodes. It only loads memleak's agent and connects it back to
memleak's socket. It is executed with its own globals — SOCKET, INTERVAL and AGENT are given there, CACHE (the
directory where the agent's compiled code is shared: _compiled), and PLACED when memleak placed the files in a
container's view — so nothing is defined in the program's __main__.

The agent module is kept in sys.modules under a private name: a later watch reuses it instead of loading it again,
so repeated attaches add no hooks and no modules."""
import os
import sys

_NAME = "_memleak_agent_attached"


def _compiled(path, cache_dir):
    """The agent's code. Compiling its source left ~3.8 MiB of the compiler's freed memory resident in every process it
    was injected into (RssAnon; loading the compiled code: ~0.6 MiB), and each of those pages is walked again by every
    smaps_rollup memleak reads. The first process of a watch compiles it and leaves the code in memleak's private
    directory (CACHE, removed with it) for the others, under the interpreter's bytecode magic number and the source's
    size and mtime: another Python version, or another source, compiles its own. Where nothing can be cached (no CACHE,
    a read-only directory), it is compiled as before."""
    import importlib.util
    import marshal

    with open(path, "rb") as f:
        source = f.read()
    st = os.stat(path)
    key = b"%s %d %d\n" % (importlib.util.MAGIC_NUMBER.hex().encode(), st.st_size, st.st_mtime_ns)
    cached = os.path.join(cache_dir, "agent-%s.code" % importlib.util.MAGIC_NUMBER.hex()) if cache_dir else None
    if cached:
        try:
            fd = os.open(cached, os.O_RDONLY | os.O_NOFOLLOW)
            with os.fdopen(fd, "rb") as f:
                data = f.read()
            if data.startswith(key):
                return marshal.loads(data[len(key) :])
        except (OSError, ValueError, EOFError, TypeError):
            pass
    code = compile(source, path, "exec")
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
    return code


def _agent():
    module = sys.modules.get(_NAME)
    if module is None:
        import importlib.util

        spec = importlib.util.spec_from_file_location(_NAME, AGENT)  # noqa: F821 (given by memleak)
        module = importlib.util.module_from_spec(spec)
        exec(_compiled(AGENT, globals().get("CACHE")), module.__dict__)  # noqa: F821 (given by memleak)
        sys.modules[_NAME] = module
    return module


_module = _agent()
try:
    # TRACE: watch --trace-python's seconds; PLACED: the directory memleak placed in a container's view
    _module.attach(SOCKET, INTERVAL, globals().get("TRACE"), globals().get("PLACED"))  # noqa: F821 (given by memleak)
except TypeError:  # an agent an older memleak loaded into this process: the same, without the trace window or `placed`
    _module.attach(SOCKET, INTERVAL)  # noqa: F821
# The loader's caller writes what is raised where memleak reads it: a socket the process cannot reach is said so.
if not _module.connected():
    raise OSError("cannot connect to memleak's socket %s: %s" % (SOCKET, _module._state.get("error")))  # noqa: F821
