"""Autograd graphs that one tensor keeps growing: `running_loss = running_loss + loss` after backward(), or a recurrent
state carried from batch to batch (`h = cell(x, h)`) without .detach() or torch.no_grad(). No container grows there:
each step chains its graph onto the one before, so the census's containers say nothing, and the growth is graph
nodes (what malloc keeps: each node pins memory around it once backward() has freed its saved tensors).

Two parts, run by the census (memleak_census.py) with PyTorch loaded:
  - count_nodes: the nodes reachable from the grad_fn of every tensor the census met that keeps one, counted once
    each, up to MAX_NODES (a bounded walk: ~1-2 us a node, so MAX_NODES is ~20-40 ms of one walk);
  - held_graph: once that count rose at two walks in a row, which of the program's module globals or the locals of its
    running functions is a tensor whose graph is the largest: the holder, named as the holder search names one.

Side effects: none the program can see but those the holder search has (reading a running frame's f_locals). The
Python objects wrapping graph nodes are made on access and freed after: they are kept in a dict while a walk runs, or
a freed wrapper's id would be reused by the next and a node counted as seen (a chain of 100,000 nodes counted 5).
The walk's transient objects leave ~2 MiB resident in the interpreter's arenas after a walk of MAX_NODES, reused by
the next walks (measured with PyTorch 1.13). Standard library only.
"""
import sys
import time

# Nodes counted in one walk: a chain past this is counted as this many (and said to be capped), so a long-running
# leak's graph is still seen as held, but its growth no longer is. 20,000 nodes of added losses took 19-22 ms (PyTorch
# 1.13), of a GRU cell's steps (more edges a node) 150 ms: MAX_SECONDS bounds it too, and a count it cut is capped.
MAX_NODES = 20_000
MAX_SECONDS = 0.05
# Candidates looked at by held_graph: each is a walk of its own graph.
MAX_CANDIDATES = 16
_CO_OPTIMIZED = 0x1
_UNDER_HALF = (
    "the largest graph a global or a running function's local holds (%s, %d nodes) is under half of the %d counted"
)


def count_nodes(tensors, limit=MAX_NODES, seconds=MAX_SECONDS):
    """(nodes, capped): the graph nodes reachable from these tensors' grad_fn, each counted once; capped when the count
    stopped at `limit` nodes or after `seconds` of this thread's CPU time. CPU time, not wall time: the same graph
    gives about the same count however busy the machine is (clock speed and a shared core's caches still vary it). With wall time, a CI runner's load cut a running loss's chain
    at 7,168 nodes, then 6,144, then 14,947: no rise at two walks in a row, no holder, and the watch said
    fragmentation."""
    deadline = time.thread_time() + seconds
    # A backstop in wall time: the census holds the collector off while it counts, and a thread starved of CPU would
    # keep it off for as long as its CPU-time bound took to pass.
    backstop = time.monotonic() + 20 * seconds
    next_check = 1024
    seen = {}
    stack = []
    for t in tensors:
        try:
            fn = t.grad_fn
        except Exception:
            continue
        if fn is not None and id(fn) not in seen:
            seen[id(fn)] = fn
            stack.append(fn)
    try:
        while stack and len(seen) < limit:
            # A threshold, not len(seen) % 1024: a node adds several entries at once and could step over each multiple.
            if len(seen) >= next_check:
                next_check = len(seen) + 1024
                if time.thread_time() > deadline or time.monotonic() > backstop:
                    return len(seen), True
            node = stack.pop()
            try:
                following = node.next_functions
            except Exception:  # a node type without edges exposed
                continue
            for nxt, _ in following:
                if nxt is not None and id(nxt) not in seen:
                    seen[id(nxt)] = nxt
                    stack.append(nxt)
        return min(len(seen), limit), len(seen) >= limit
    finally:
        seen.clear()
        stack = node = nxt = following = None


def _module_candidates(tensor_type, programs_own, agents_own):
    """(path, where-args, tensor) for each module global of the program's own modules that is a tensor keeping a graph."""
    out = []
    seen = set()
    for name, module in list(sys.modules.items()):
        # Once per module: multiprocessing (which torch imports) adds __main__ again as __mp_main__; the first name,
        # in import order, is the one the program knows it by (as the holder search names it).
        if id(module) in seen or not programs_own(module) or agents_own(module):
            continue
        seen.add(id(module))
        try:
            for var, value in list(module.__dict__.items()):
                if issubclass(type(value), tensor_type) and value.grad_fn is not None:
                    out.append(("module global", "%s.%s" % (name, var), (name, var), value))
        except Exception:  # a global changed meanwhile (another thread)
            continue
    return out


def _frame_candidates(tensor_type, own_path, skip_ident, thread_names, holder_module):
    """The same for the locals of the program's own running functions, in every thread but the agent's (its frames as
    the holder search walks them: memleak_holder._running_frames)."""
    out = []
    for ident, frame in holder_module._running_frames(skip_ident):
        code = frame.f_code
        if code.co_flags & _CO_OPTIMIZED and own_path(code.co_filename):
            try:
                for var, value in list(frame.f_locals.items()):
                    if issubclass(type(value), tensor_type) and value.grad_fn is not None:
                        thread = thread_names.get(ident, "thread %d" % ident)
                        path = 'thread "%s": %s() local %s' % (thread, code.co_name, var)
                        out.append(("thread frame", path, None, value))
            except Exception:  # a frame that returned meanwhile
                pass
    frame = None
    return out


def held_graph(tensor_type, programs_own, agents_own, own_path, skip_ident, holder_module, main_ident, counted):
    """The module global or running function's local holding the tensor with the largest graph, as the holder search
    reports one (found, path, root, hops, where, and what it cost), with `nodes` and `capped`; found False with why
    when none of them holds a tensor keeping a graph, or none whose graph is half of the `counted` nodes the census's
    walk reached (the step's own loss, a local of a few nodes, while the graphs grow elsewhere)."""
    started = time.monotonic()
    longest = 0.0
    names = holder_module._thread_names(main_ident)
    candidates = _module_candidates(tensor_type, programs_own, agents_own)
    candidates += _frame_candidates(tensor_type, own_path, skip_ident, names, holder_module)
    best = None
    looked = len(candidates[:MAX_CANDIDATES])
    for root, path, where_args, tensor in candidates[:MAX_CANDIDATES]:
        t0 = time.perf_counter()
        # A shorter bound each: sixteen candidates at the walk's bound would hold the program up to 0.8 s.
        nodes, capped = count_nodes([tensor], seconds=MAX_SECONDS / 4)
        longest = max(longest, (time.perf_counter() - t0) * 1000)
        if best is None or nodes > best[3]:
            best = (root, path, where_args, nodes, capped)
    tensor = candidates = None
    cost = {
        "levels": 0,
        "calls": 0,
        "objects": looked,
        "ms": round((time.monotonic() - started) * 1000, 1),
        "longestMs": round(longest, 2),
    }
    if best is None or not (best[4] or 2 * best[3] >= counted):
        why = "no module global or running function of the program holds a tensor with a graph"
        if best is not None:
            why = _UNDER_HALF % (best[1], best[3], counted)
        out = {"found": False, "why": why}
        out.update(cost)
        return out
    root, path, where_args, nodes, capped = best
    out = {"found": True, "path": path, "root": root, "hops": [{"kind": root, "name": path}], "nodes": nodes}
    if capped:
        out["capped"] = True
    if where_args is not None:
        where = holder_module.assigned_at(*where_args)
        if where is not None:
            out["where"] = {"file": where[0], "line": where[1]}
    out.update(cost)
    return out
