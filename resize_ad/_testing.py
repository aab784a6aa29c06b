"""Test seams: explicit switches for tests, never read from the environment."""
from __future__ import annotations

import contextlib

from ._C import _set_executor, _set_huge_pages, _set_pass_chunk_bytes, _set_stream_threshold

__all__ = ["EXECUTORS", "executor", "huge_pages", "pass_chunk_bytes", "stream_threshold"]

# The executors (csrc/common/plan.h), by the names the code and the docs use.
EXECUTORS = ("separable", "line_sweep", "product_gather")
_CODES = {"auto": 0, "separable": 1, "line_sweep": 2, "product_gather": 3}
_current = "auto"


@contextlib.contextmanager
def executor(name: str):
    """Run every resize inside the block on one executor, where the call allows it: fixed-point
    (uint8) plans always take the separable passes, and a device without the executor (CUDA has
    no line sweep) keeps its cost model. Process-wide, for tests; ``"auto"`` is the cost model."""
    if name not in _CODES:
        raise ValueError(f"resize_ad._testing.executor: unknown executor {name!r}; use one of {tuple(_CODES)}")
    global _current
    previous, _current = _current, name
    _set_executor(_CODES[name])
    try:
        yield
    finally:
        _current = previous
        _set_executor(_CODES[previous])


_huge_pages = True


@contextlib.contextmanager
def huge_pages(enabled: bool):
    """Whether the CPU kernels ask the kernel for transparent huge pages on results fresh from
    mmap (csrc/cpu/resize_cpu.cpp advise_huge_pages; on by default). Off, such results keep
    4 KiB pages, faulted in just ahead of the lines that write them. Process-wide, for tests."""
    global _huge_pages
    previous, _huge_pages = _huge_pages, bool(enabled)
    _set_huge_pages(_huge_pages)
    try:
        yield
    finally:
        _huge_pages = previous
        _set_huge_pages(previous)


_stream_threshold = 0
_pass_chunk_bytes = 0


@contextlib.contextmanager
def _byte_count(name: str, setter, nbytes: int):
    """The seam `name` (its value in the module's global `_<name>`) at ``nbytes`` inside the block."""
    if nbytes <= 0:
        raise ValueError(f"resize_ad._testing.{name}: a positive byte count, got {nbytes}")
    g = globals()
    previous, g["_" + name] = g["_" + name], int(nbytes)
    setter(int(nbytes))
    try:
        yield
    finally:
        g["_" + name] = previous
        setter(previous)


def stream_threshold(nbytes: int):
    """Outputs of ``nbytes`` and more whose pages are mapped leave the CPU line sweep through
    non-temporal stores (csrc/cpu/resize_cpu.cpp stream_threshold), in place of the machine's
    threshold (8 to 24 MiB, by the last-level cache's design): tests reach those paths with
    outputs of the same size on every machine. Process-wide, for tests."""
    return _byte_count("stream_threshold", _set_stream_threshold, nbytes)


def pass_chunk_bytes(nbytes: int):
    """The separable passes run a chunk of planes at a time, every pass over it before the next,
    where their scratch would exceed ``nbytes`` (csrc/common/plan.cpp chunk_planes), in place of
    the machine's budget (a quarter of a core's L2): tests reach the chunked passes with small
    inputs, or keep them whole with a budget larger than any scratch. Process-wide, for tests."""
    return _byte_count("pass_chunk_bytes", _set_pass_chunk_bytes, nbytes)
