"""Run inside a live interpreter by `memleak watch` (through gdb and Py_AddPendingCall, or sys.remote_exec on 3.14+),
on the main thread, holding the GIL, between two bytecodes. It only loads memleak's agent and connects it back to
memleak's socket. It is executed with its own globals — SOCKET, INTERVAL and AGENT are given there, CACHE (the
directory where the agent's compiled code, its rooms' too, is shared: memleak_code.py), and PLACED when memleak placed the files in a
container's view — so nothing is defined in the program's __main__.

The agent module is kept in sys.modules under a private name: a later watch reuses it instead of loading it again,
so repeated attaches add no hooks and no modules."""
import os
import sys

_NAME = "_memleak_agent_attached"


def _loader():
    """memleak_code.py, beside the agent: the one way the agent's code is loaded (compiled once per memleak, shared)."""
    # importlib.util's functions, without importing it (and what it imports) into the program: memleak_code.py says why.
    from _frozen_importlib import module_from_spec
    from _frozen_importlib_external import spec_from_file_location

    path = os.path.join(os.path.dirname(AGENT), "memleak_code.py")  # noqa: F821 (given by memleak)
    spec = spec_from_file_location("_memleak_code_attached", path)
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _agent():
    module = sys.modules.get(_NAME)
    if module is None:
        # CACHE: memleak's private directory, where the first process compiles the agent for the others.
        module = _loader().load(_NAME, AGENT, globals().get("CACHE"))  # noqa: F821 (given by memleak)
    return module


_module = _agent()
try:
    # TRACE: watch --trace-python's seconds; PLACED: the directory memleak placed in a container's view
    _module.attach(SOCKET, INTERVAL, globals().get("TRACE"), globals().get("PLACED"))  # noqa: F821 (given by memleak)
except TypeError:  # an agent an older memleak loaded into this process: the same, without the trace window or `placed`
    _module.attach(SOCKET, INTERVAL)  # noqa: F821
# The loader's caller writes what is raised where memleak reads it: a socket the process cannot reach is said so.
if not _module.connected():
    # Why, as the agent's channel kept it (an older memleak's agent kept it in its _state).
    error = _module.channel._conn.error if hasattr(_module, "channel") else _module._state.get("error")
    raise OSError("cannot connect to memleak's socket %s: %s" % (SOCKET, error))  # noqa: F821
