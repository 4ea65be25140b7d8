"""lldb's Python script for `memleak watch`, where gdb cannot be used safely (debugger.ts): the same steps as
gdb-inject.py, through lldb's SB API. gdb before 14 sizes the x86 XSAVE area by what it knew of (up to AVX-512 and
PKRU): on a CPU with AMX the kernel wants the whole area back, refuses gdb's shorter one ("Couldn't write extended
state status: Bad address"), and the registers of the thread gdb called into are not put back — the program dies, or
a system call it was in fails with errno 514. lldb writes back the area the kernel gave it.

  1. mmap() one page (a plain system call: nothing is allocated with malloc in the target),
  2. write the code into it,
  3. then, by MEMLEAK_INJECT_MODE:
     pending  Py_AddPendingCall(PyRun_SimpleString, page): the main thread runs the code at its next check between
              bytecodes, holding the GIL.
     blocked  only if the main thread is blocked in one of the system calls CPython makes with the GIL released,
              called from CPython itself (checked on its stack): PyGILState_Ensure, PyRun_SimpleString, release,
              with the other threads running meanwhile (whoever holds the GIL lets go of it). Taken at once, in
              either mode, when the main thread is found so blocked.
Then it detaches. Run inside lldb (`command script import`), settings from the environment (MEMLEAK_INJECT_CODE,
MEMLEAK_INJECT_MODE). Prints one `MEMLEAK-OK` or `MEMLEAK-ERROR <stage>: <message>` line for memleak to read."""
import os
import sys

import lldb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blocked_stack import DEPTH, blocked_safely, in_system_call_at  # noqa: E402  (beside this script)


class Failed(Exception):
    pass


def fail(stage, message):
    print("MEMLEAK-ERROR %s: %s" % (stage, message))


def call(frame, expr, others_run=False):
    """Evaluates expr on frame's thread; an error raises Failed. others_run: the other threads run meanwhile."""
    options = lldb.SBExpressionOptions()
    options.SetUnwindOnError(True)
    options.SetIgnoreBreakpoints(True)
    options.SetStopOthers(not others_run)
    options.SetTryAllThreads(False)
    options.SetTimeoutInMicroSeconds(10 * 1000 * 1000)
    value = frame.EvaluateExpression(expr, options)
    error = value.GetError()
    if error.Fail():
        raise Failed(error.GetCString() or "expression failed")
    return value.GetValueAsUnsigned()


def address(target, name):
    """The load address of a function by its symbol: lldb's expressions cannot name the symbols of a binary without
    debug information (Debian's static python3: "expression failed to parse"), so every call goes to a number."""
    for context in target.FindSymbols(name):
        symbol = context.GetSymbol()
        if symbol.IsValid() and symbol.GetType() == lldb.eSymbolTypeCode:
            at = symbol.GetStartAddress().GetLoadAddress(target)
            if at != lldb.LLDB_INVALID_ADDRESS and at != 0:
                return at
    raise Failed("no symbol %s" % name)


def write_code(process, frame, at):
    page = call(
        frame,
        "(unsigned long)((void*(*)(void*,unsigned long,int,int,int,long))%d)(0, 4096, 3, 0x22, -1, 0)" % at["mmap"],
    )
    if page == 0 or page >= 2**63:
        raise Failed("mmap failed")
    code = os.environ["MEMLEAK_INJECT_CODE"].replace("@PAGE@", str(page)).encode() + b"\0"
    if len(code) > 4096:
        call(frame, "((int(*)(void*,unsigned long))%d)((void*)%d, 4096)" % (at["munmap"], page))
        raise Failed("code too long")
    error = lldb.SBError()
    process.WriteMemory(page, code, error)
    if error.Fail():
        raise Failed(error.GetCString() or "cannot write the code")
    return page


def schedule_pending(process, frame, at):
    page = write_code(process, frame, at)
    rc = call(
        frame,
        "((int(*)(void*,void*))%d)((void*)%d, (void*)%d)" % (at["Py_AddPendingCall"], at["PyRun_SimpleString"], page),
    )
    if (rc & 0xFFFFFFFF) != 0:  # the queue of pending calls is full: nothing will run the code
        call(frame, "((int(*)(void*,unsigned long))%d)((void*)%d, 4096)" % (at["munmap"], page))
        fail("schedule", "the interpreter's queue of pending calls is full")
        return
    print("MEMLEAK-OK")


def objfile(frame):
    module = frame.GetModule()
    spec = module.GetFileSpec() if module.IsValid() else None
    return spec.fullpath or "" if spec else ""


def thread_frames(thread):
    """(function name, object file) of the thread's newest DEPTH frames."""
    frames = [thread.GetFrameAtIndex(i) for i in range(min(DEPTH, thread.GetNumFrames()))]
    return [(f.GetFunctionName(), objfile(f)) for f in frames]


def in_system_call(process, thread):
    """Whether the thread was stopped right after a system call instruction (its newest frame may have no name)."""
    error = lldb.SBError()
    pc = thread.GetFrameAtIndex(0).GetPC()
    code = process.ReadMemory(pc - 2, 2, error) if pc >= 2 else None
    return error.Success() and in_system_call_at(code)


def blocked_here(process, thread):
    return blocked_safely(thread_frames(thread), in_system_call(process, thread))


def run_blocked(process, thread, at):
    safe, what = blocked_here(process, thread)
    if not safe:
        fail("unsafe", what)
        return
    frame = thread.GetFrameAtIndex(0)
    page = write_code(process, frame, at)
    state = call(frame, "((int(*)(void))%d)()" % at["PyGILState_Ensure"], others_run=True)
    try:
        call(frame, "((int(*)(void*))%d)((void*)%d)" % (at["PyRun_SimpleString"], page), others_run=True)
    finally:
        # A void call gives lldb no value, which it reports as an error: the comma gives it one.
        call(frame, "((void(*)(int))%d)(%d), 0" % (at["PyGILState_Release"], state & 0xFFFFFFFF), others_run=True)
    print("MEMLEAK-OK")


def main(process):
    thread = process.GetThreadByID(process.GetProcessID())  # the main thread: its tid is the pid
    if not thread.IsValid():
        fail("thread", "no main thread")
        return
    process.SetSelectedThread(thread)
    frame = thread.GetFrameAtIndex(0)
    target = process.GetTarget()
    names = ("Py_AddPendingCall", "PyRun_SimpleString", "PyGILState_Ensure", "PyGILState_Release", "mmap", "munmap")
    try:
        at = {name: address(target, name) for name in names}
    except Failed as e:
        fail("symbols", e)
        return
    try:
        # A main thread already blocked in CPython's own GIL-released call (a worker asleep between requests) would not
        # run a pending call until that call returns, maybe in an hour: the blocked path now saves a second attach
        # after memleak's wait for a hello (lldb takes ~2 s to attach, gdb less). Else the pending call, as gdb's.
        if os.environ.get("MEMLEAK_INJECT_MODE") == "blocked" or blocked_here(process, thread)[0]:
            run_blocked(process, thread, at)
        else:
            schedule_pending(process, frame, at)
    except Failed as e:
        fail("call", e)


def __lldb_init_module(debugger, internal_dict):
    process = debugger.GetSelectedTarget().GetProcess()
    try:
        if not process.IsValid():
            fail("attach", "lldb is not attached")
            return
        main(process)
    finally:
        if process.IsValid():
            process.Detach()
