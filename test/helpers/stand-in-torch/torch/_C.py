"""STAND-IN for torch._C (NOT PyTorch): only the out-of-memory observer the agent attaches."""
from . import cuda


def _cuda_attach_out_of_memory_observer(observer):
    cuda.calls.append("_C._cuda_attach_out_of_memory_observer")
    cuda._oom_observers.append(observer)
