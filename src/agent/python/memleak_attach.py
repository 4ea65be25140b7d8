"""Run inside a live interpreter by `memleak watch` (through gdb and Py_AddPendingCall, or sys.remote_exec on 3.14+),
on the main thread, holding the GIL, between two bytecodes. It only loads memleak's agent and connects it back to
memleak's socket. It is executed with its own globals — SOCKET, INTERVAL and AGENT are given there, and PLACED when
memleak placed the files in a container's view — so nothing is defined in the program's __main__.

The agent module is kept in sys.modules under a private name: a later watch reuses it instead of loading it again,
so repeated attaches add no hooks and no modules."""
import sys

_NAME = "_memleak_agent_attached"


def _agent():
    module = sys.modules.get(_NAME)
    if module is None:
        import importlib.util

        spec = importlib.util.spec_from_file_location(_NAME, AGENT)  # noqa: F821 (given by memleak)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
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
