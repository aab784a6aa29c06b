"""The capability table, as Python sees it.

The table itself lives in C++ (csrc/common/capabilities.cpp), where the op checks its arguments
against it; this module reads it once. resize_ad.interpolate's checks, patch()'s routing, the
fake kernels and the tests' sample generator all ask this table, so a rule about modes exists
once.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, Tuple

import torch

from ._C import _capabilities, _check as _c_check

__all__ = ["ModeCaps", "MODE_CAPS", "MODES", "NATIVE_MODES", "FILTER_MODES"]


@dataclasses.dataclass(frozen=True)
class ModeCaps:
    """What one mode name accepts. Ranks are spatial ranks (1, 2, 3: input of 3, 4, 5 dims)."""

    name: str
    family: str                       # the table's formula family: aliases share it
    radius: float                     # filter half support before stretching (0: nearest, area)
    native: bool                      # a mode of torch's F.interpolate
    ranks: Tuple[int, ...]
    align_corners: str                # "absent" (must stay None), "grid" (True/False), "refused" (not True)
    antialias_ranks: Tuple[int, ...]
    uint8_ranks: Tuple[int, ...]      # ranks with a uint8 forward
    contiguous_out_ranks: Tuple[int, ...]  # ranks whose output is contiguous for any input layout

    def output_contiguous(self, spatial_rank: int) -> bool:
        return spatial_rank in self.contiguous_out_ranks


MODE_CAPS: Dict[str, ModeCaps] = {d["name"]: ModeCaps(**d) for d in _capabilities()}
MODES: Tuple[str, ...] = tuple(MODE_CAPS)
NATIVE_MODES: Tuple[str, ...] = tuple(m for m, c in MODE_CAPS.items() if c.native)
FILTER_MODES: Tuple[str, ...] = tuple(m for m, c in MODE_CAPS.items() if not c.native)

# The op's checks (C++), raised with the op's messages and exception types.
_ALIGN, _ANTIALIAS, _RANK, _DTYPE = 0, 1, 2, 3


def _check(kind, mode, spatial_rank, value) -> None:
    # Dynamo cannot trace a C function; under torch.compile the op's kernels run the same checks.
    if not torch.compiler.is_compiling():
        _c_check(kind, mode, spatial_rank, value)


def check_align_corners(mode: str, align_corners_set: bool) -> None:
    _check(_ALIGN, mode, 0, align_corners_set)


def check_antialias(mode: str, spatial_rank: int, antialias: bool) -> None:
    _check(_ANTIALIAS, mode, spatial_rank, antialias)


def check_rank(mode: str, spatial_rank: int) -> None:
    _check(_RANK, mode, spatial_rank, None)


def check_dtype(mode: str, input) -> None:
    _check(_DTYPE, mode, input.dim() - 2, input)
