"""memleak's in-process agent: every interval, one JSON line to memleak over a Unix socket with what only the
process itself can see — glibc's allocator counters, Python's object and GC counters, PyTorch's settings and the CUDA
caching allocator's memory per device (only if the program imported torch and initialised CUDA; neither is done
here), and optionally tracemalloc growth sites and a malloc_trim probe at exit. Standard library only, Python 3.8+.

This module is its entry: the API others use (start and attach for `run` and `watch`, the rest for the pytest plugin),
and the loading of its rooms, each a file beside this one with one job:
- memleak_channel.py: the connection to memleak (the socket, the JSON lines, memleak's words back);
- memleak_readings.py: what a report reads (malloc and the allocator, the interpreter and its collector, torch, CUDA);
- memleak_census.py: the walks over the program's containers, and the searches for what holds one that grows;
- memleak_lifecycle.py: the agent's life in the process (start, attach, the reporting thread, forks, wake-ups, exit).
Every agent loads those four with this module, from the code memleak_code.py shares between the processes of a
memleak (compiling them in each process would leave the compiler's memory there: memleak_code.py says how much). The
others are loaded only where they are needed (_sibling_module): memleak_trace.py (tracemalloc), memleak_holder.py and
memleak_retained.py (what holds a growing container, what one of its items keeps alive), memleak_graphs.py (autograd
graphs' nodes), memleak_cow.py (what a forked worker copied). A name with an underscore is the agent's own, shared
between its rooms; without, it is the API. Every field a report carries is declared in src/agent/report-fields.ts,
which test/unit/agent/report-fields.test.ts holds the rooms to.
"""
import os
import sys

_DIR = os.path.dirname(os.path.abspath(__file__))
# The rooms every agent loads, in this order. src/agent/attach/precompile.ts compiles them for `watch`, and placement.ts
# places them in a container's view (test/unit/agent/placed-files.test.ts holds both to this list).
_ROOMS = ("memleak_channel", "memleak_readings", "memleak_census", "memleak_lifecycle")


def _from_source(name, path):
    """The module at `path`, compiled from its source, registered as sys.modules[name]."""
    # The import system's own functions (importlib.util's are these, with contextlib, functools and more imported
    # around them: imported here, they would stay in the process).
    from _frozen_importlib import module_from_spec
    from _frozen_importlib_external import spec_from_file_location

    spec = spec_from_file_location(name, path)
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[name] = module
    return module


def _sibling_module(name):
    """One of the agent's own modules beside this file (memleak_holder.py, memleak_retained.py), loaded when first
    needed under a private name, as `watch` loads this one: a program with nothing growing never pays for it."""
    module = sys.modules.get("_" + name)
    if module is None:
        module = _from_source("_" + name, os.path.join(_DIR, name + ".py"))
    return module


def _load_room(stem):
    """One of the rooms every agent loads, registered under a name of this module's: memleak_census beside
    memleak_agent (`run`), _memleak_census_attached beside _memleak_agent_attached (`watch`), so that two agents in one
    process (a program `run` launched, which a `watch` attaches to) keep their own state. Its code comes from where this
    module's came: memleak_code.load hands its loader in (_load_cached), with the directory it shares the code in;
    imported as a module (the tests, the benchmarks), the room is compiled from source as this module was."""
    name = __name__.replace("memleak_agent", stem) if "memleak_agent" in __name__ else "%s.%s" % (__name__, stem)
    path = os.path.join(_DIR, stem + ".py")
    load = globals().get("_load_cached")
    return load(name, path) if load is not None else _from_source(name, path)


channel, readings, census, lifecycle = [_load_room(stem) for stem in _ROOMS]
globals().pop("_load_cached", None)  # the loader is not needed again: it would keep memleak_code's module alive


def _wire():
    """Each room declares the others it calls (as None); they are set here, once all are loaded."""
    given = {
        "_agent": sys.modules[__name__],
        "_channel": channel,
        "_readings": readings,
        "_census": census,
        "_lifecycle": lifecycle,
        "_sibling_module": _sibling_module,
    }
    for room in (channel, readings, census, lifecycle):
        for name in given.keys() & room.__dict__.keys():
            setattr(room, name, given[name])


_wire()
del _load_room, _wire  # needed once, as the agent loads: not kept in every process

# The API: `run` (sitecustomize.py) calls start, `watch` (memleak_attach.py) attach; the pytest plugin (memleak_pytest.py)
# the others, and measure_lock (below).
start = lifecycle.start
attach = lifecycle.attach
connected = channel.connected
send = channel.send
census_paused = census.census_paused
container_lengths = census.container_lengths
grown_holder = census.grown_holder


def __getattr__(name):
    """measure_lock, read where it is at each use: a forked child's agent makes a fresh one (memleak_lifecycle.py
    _reset_in_child), which a copy of it here would not be."""
    if name == "measure_lock":
        return lifecycle.measure_lock
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
