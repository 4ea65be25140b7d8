"""memleak's entry point inside the target: Python imports `sitecustomize` at start-up from the first directory on
sys.path that has one, and `memleak run` puts this directory first on PYTHONPATH. It starts the agent, then runs the
sitecustomize that would have run without memleak (the user's own, or the distribution's), so nothing is lost.
Nothing here may break the user's program: every failure is swallowed and reported to memleak at most."""
import os
import sys


def _chain_to_next_sitecustomize():
    # importlib.machinery's PathFinder and importlib.util's module_from_spec are these: importing importlib.util would
    # bring contextlib, functools, collections and more into every process of the run (memleak_code.py).
    from _frozen_importlib import module_from_spec
    from _frozen_importlib_external import PathFinder

    here = os.path.dirname(os.path.abspath(__file__))
    others = [p for p in sys.path if os.path.abspath(p or ".") != here]
    spec = PathFinder.find_spec("sitecustomize", others)
    if spec is None or spec.loader is None:
        return
    module = module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


try:
    # First: it may re-execute the interpreter, which must happen before the agent connects.
    if os.environ.get("MEMLEAK_TRACE_NATIVE_PRELOAD"):
        import memleak_native

        memleak_native.arm()
except Exception:  # tracing must never stop the program from starting
    pass

try:
    if os.environ.get("MEMLEAK_AGENT_SOCKET"):
        import memleak_code

        # The agent's code compiled once per run, in memleak's private directory (its socket's), and shared by every
        # Python process the run starts (memleak_code.py says what compiling it in each one cost).
        memleak_agent = memleak_code.load(
            "memleak_agent",
            os.path.join(os.path.dirname(os.path.abspath(__file__)), "memleak_agent.py"),
            os.path.dirname(os.environ["MEMLEAK_AGENT_SOCKET"]),
            trim_after_load=True,
            elsewhere=True,
        )
        memleak_agent.start()
except Exception:  # the agent must never stop the program from starting
    pass

_chain_to_next_sitecustomize()
