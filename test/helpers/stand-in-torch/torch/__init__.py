"""A STAND-IN for PyTorch, NOT PyTorch: no GPU has been near this. It exists so that memleak's agent can be tested
on machines without a GPU: the tests put test/helpers/stand-in-torch first on PYTHONPATH, `import torch` finds this,
and the numbers torch.cuda reports are the ones the test sets (torch/cuda.py), plus the bytes of the stand-in CUDA
tensors alive (torch/tensor.py). Only what the agent reads, and what the stand-in programs call, is here."""
from . import _C, cuda  # noqa: F401  (torch._C, torch.cuda, as in PyTorch)
from .tensor import Tensor, device, empty, randn  # noqa: F401  (torch.Tensor, torch.device, torch.empty, torch.randn)

__version__ = "0.0+stand-in"


def get_num_threads():
    return 1


def get_num_interop_threads():
    return 1
