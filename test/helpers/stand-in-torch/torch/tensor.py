"""STAND-IN tensors (NOT PyTorch): a CUDA tensor here holds no memory at all, only its byte count, which torch/cuda.py
adds to its device's allocated bytes while the tensor is alive, as PyTorch's caching allocator counts a live tensor's
block. What the agent reads of a tensor is what PyTorch's has: `device` (type and index), `element_size()`,
`nelement()`, `grad_fn`, `untyped_storage()` (nbytes, data_ptr), `item()`, `data_ptr()`."""
import itertools

from . import cuda

_addresses = itertools.count(0x7F0000000000, 2 * 1024 * 1024)


class device:
    """torch.device: "cuda" is cuda:0 once a tensor is made on it, as PyTorch gives a tensor's device its index."""

    def __init__(self, spec):
        kind, _, index = str(spec).partition(":")
        self.type = kind
        self.index = (int(index) if index else 0) if kind == "cuda" else None

    def __str__(self):
        return self.type if self.index is None else "%s:%d" % (self.type, self.index)

    __repr__ = __str__


class _Storage:
    """The device memory, counted while any tensor viewing it is alive (PyTorch frees a block with its last view)."""

    def __init__(self, nbytes, ptr, on):
        self._nbytes = nbytes
        self._ptr = ptr
        self._device = on.index if on.type == "cuda" else None
        if self._device is not None:
            cuda._tensor_made(self._device, nbytes, self)

    def __del__(self):
        if self._device is not None and cuda is not None:
            cuda._tensor_freed(self._device, self._nbytes, self)

    def nbytes(self):
        return self._nbytes

    def data_ptr(self):
        return self._ptr


class Tensor:
    """float32 elements; on "cpu" its bytes are not allocated either (the stand-in is for CUDA memory)."""

    def __init__(self, shape, on="cpu", value=0.0, storage=None):
        self.shape = tuple(shape)
        self.device = device(on)
        self.grad_fn = None
        self._value = value
        self._storage = storage or _Storage(self.nelement() * 4, next(_addresses), self.device)

    def element_size(self):
        return 4

    def nelement(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    def untyped_storage(self):
        return self._storage

    def data_ptr(self):
        return self._storage.data_ptr()

    def mean(self):
        return Tensor((), str(self.device), self._value)

    def item(self):
        return float(self._value)

    def detach(self):
        # Another tensor object viewing the same storage, as PyTorch's: the device memory stays where it is.
        return Tensor(self.shape, str(self.device), self._value, self._storage)

    def cpu(self):
        return Tensor(self.shape, "cpu", self._value)


def empty(*shape, device="cpu"):
    return Tensor(shape, device)


def randn(*shape, device="cpu"):
    return Tensor(shape, device, 0.5)
