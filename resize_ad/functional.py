"""resize_ad.interpolate: the argument handling of torch.nn.functional.interpolate, on our kernels."""
from __future__ import annotations

import math
import numbers
from typing import List, Optional, Sequence, Union

import torch
from torch import Tensor

from torch.autograd import forward_ad as _forward_ad

from ._C import _interpolate as _c_interpolate
from .autograd import _plain_resize, _resize
from .capabilities import (FILTER_MODES, MODE_CAPS, MODES, NATIVE_MODES, check_align_corners,
                           check_antialias, check_dtype, check_rank)

__all__ = ["interpolate", "MODES", "FILTER_MODES"]

# The mode lists, from the capability table (capabilities.py); kept here under their old names.
_NATIVE_MODES = NATIVE_MODES

_INT64_MAX = 2**63 - 1


class NotATensorError(TypeError, AttributeError):
    """A non-tensor ``input``. Both a TypeError and, like native's failure on ``input.dim()``,
    an AttributeError."""


def _is_integer(x) -> bool:
    # torch.nn.functional._is_integer: int (bool too), SymInt, numpy integers, non-float tensors
    if isinstance(x, (int, torch.SymInt)):
        return True
    return isinstance(x, numbers.Integral) or (isinstance(x, Tensor) and not x.is_floating_point())


def _size_error(what) -> TypeError:
    return TypeError(
        "expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, int], "
        f"but got {what}; pass Python ints (or 0-dim integer tensors)"
    )


def _as_size(s):
    """One output size entry as native's argument parser takes it, or a TypeError."""
    if isinstance(s, Tensor):
        if s.dim() != 0 or s.is_floating_point() or s.is_complex() or s.dtype == torch.bool:
            raise _size_error(f"a size tensor of shape {tuple(s.shape)} and dtype {s.dtype}")
        s = int(s)
    if isinstance(s, torch.SymInt):
        return s
    if isinstance(s, bool) or not _is_integer(s):
        raise _size_error(f"size of type {type(s).__name__} ({s!r})")
    s = int(s)
    if not -_INT64_MAX - 1 <= s <= _INT64_MAX:
        raise TypeError(f"output size {s} does not fit in int64; pass a smaller size or scale_factor")
    return s


def _is_real(s) -> bool:
    if isinstance(s, (bool, int, float, torch.SymInt, torch.SymFloat)):
        return True
    if isinstance(s, Tensor):  # a 0-dim real tensor, as native's parser takes inside a list
        return s.dim() == 0 and not s.is_complex()
    return isinstance(s, numbers.Real)


def _check_scale_types(scale_factors, whole) -> None:
    if isinstance(whole, Tensor):
        raise TypeError(
            f"scale_factor must be a float or a tuple of floats, got a Tensor; pass "
            f"scale_factor=t.item() (or a tuple of floats)"
        )
    for s in scale_factors:
        if not _is_real(s):
            raise TypeError(
                f"scale_factor must be a float or a tuple of floats, but found an element of type "
                f"{type(s).__name__} ({s!r}); pass real numbers"
            )


def interpolate(
    input: Tensor,
    size: Optional[Union[int, Sequence[int]]] = None,
    scale_factor: Optional[Union[float, Sequence[float]]] = None,
    mode: str = "nearest",
    align_corners: Optional[bool] = None,
    recompute_scale_factor: Optional[bool] = None,
    antialias: bool = False,
) -> Tensor:
    r"""Down/up samples the input, as :func:`torch.nn.functional.interpolate`, on resize_ad's kernels.

    Same signature, defaults, output sizes, results and errors as ``F.interpolate`` for every
    native mode, differentiable to any order (backward, double backward, forward-mode AD),
    with a deterministic backward on every device. In addition:

    - ``antialias=True`` works for ``linear`` (3-D), ``bilinear`` (4-D), ``trilinear`` (5-D),
      ``bicubic`` (4-D) and every filter mode, on every floating dtype;
    - filter modes on 3-D, 4-D and 5-D input: ``"cubic"`` (bicubic in any rank),
      ``"box"``, ``"hamming"``, ``"lanczos"`` (alias ``"lanczos3"``), ``"lanczos5"``,
      ``"mitchell"``, ``"gaussian"``. With ``antialias=True`` the filter stretches by
      ``max(scale, 1)`` when downsampling; with ``antialias=False`` it does not (so, unlike
      native, ``"lanczos"`` also takes ``antialias=False``). An axis whose size does not
      change is copied. Definitions, sources and measured errors: ``docs/filters.md``.
    - ``uint8`` input (forward only) where native torch takes it: ``nearest`` and
      ``nearest-exact`` in any rank, 4-D ``bilinear``, ``bicubic`` and ``lanczos``, with or
      without antialias. The result equals native CPU's: the same int16 fixed-point weights,
      one pass per axis (width first), each rounded half up and saturated to [0, 255]
      (docs/dropin.md).

    Args:
        input (Tensor): the input tensor, of shape :math:`(N, C, W)`, :math:`(N, C, H, W)` or
            :math:`(N, C, D, H, W)`.
        size (int or Tuple[int]): output spatial size.
        scale_factor (float or Tuple[float]): multiplier for spatial size.
        mode (str): algorithm used for upsampling; one of :data:`MODES`. Default: ``'nearest'``
        align_corners (bool, optional): as in ``F.interpolate``; only for
            linear/bilinear/bicubic/trilinear/cubic. ``"cubic"`` takes it on purpose, its table
            being bicubic's; the other filter modes raise ``ValueError`` for ``True``.
            Default: ``False`` for those modes.
        recompute_scale_factor (bool, optional): recompute the scale factor from the output
            size, as in ``F.interpolate``.
        antialias (bool, optional): antialias filter when downsampling. Default: ``False``

    Returns:
        Tensor: shape :math:`(N, C, *\text{output spatial size})`, the memory format native
        torch gives (channels_last in, channels_last out).

    Example::

        >>> import torch, resize_ad
        >>> x = torch.randn(1, 3, 8, 8, requires_grad=True)
        >>> y = resize_ad.interpolate(x, scale_factor=2, mode="bilinear")
        >>> y.shape
        torch.Size([1, 3, 16, 16])
    """
    # The common call: checked and run in one C call (resize_ad._C._interpolate, _fast_call's
    # tests in C++), else _fast_call, else every check here.
    if _forward_ad._current_level < 0 and not torch.compiler.is_compiling():
        fast = _c_interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor, antialias)
        if fast is not NotImplemented:
            return fast
    fast = _fast_call(input, size, scale_factor, mode, align_corners, recompute_scale_factor, antialias)
    if fast is not None:
        return fast
    # The checks run in native F.interpolate's order, so that a call with several problems fails
    # with the same exception type as native; the checks native leaves to its C++ argument
    # parser and kernels come last, in their order (see _checks_at_dispatch). The rules about
    # modes are the capability table's (capabilities.py), raised with the op's own messages.
    caps = MODE_CAPS.get(mode) if isinstance(mode, str) else None
    align_corners = _align_corners(caps, align_corners)
    if not isinstance(input, Tensor):
        raise NotATensorError(
            f"resize_ad.interpolate: input must be a torch.Tensor, got {type(input).__name__}"
        )
    output_size, scale_factors = _size_or_scales(input, size, scale_factor, mode, recompute_scale_factor)
    _check_mode(input, mode, caps, antialias)
    output_size, scale_factors, early = _checks_at_dispatch(
        input, output_size, scale_factors, scale_factor, caps, align_corners)
    if early is not None:
        return early
    if mode == "nearest" and scale_factors is not None:
        scale_factors = _nearest_scales(input, output_size, scale_factors)
    return _resize(input, list(output_size), mode, bool(align_corners), scale_factors, bool(antialias))


_FAST_DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16)


def _fast_call(input, size, scale_factor, mode, align_corners, recompute_scale_factor, antialias):
    """The common call, with plain arguments every check below passes: its result, without the
    checks' Python cost (most of a call on a small tensor). None for anything else, which then
    takes the full checks (and their errors). Written without generators: they cost about half a
    microsecond each."""
    if (type(input) is not Tensor or recompute_scale_factor is not None or type(antialias) is not bool
            or type(mode) is not str or torch.compiler.is_compiling()):
        return None
    caps = MODE_CAPS.get(mode)
    shape = input.shape
    dim = len(shape) - 2
    if (caps is None or dim not in caps.ranks or input.numel() == 0  # empty: the full checks
            or (antialias and dim not in caps.antialias_ranks)):
        return None
    dtype = input.dtype
    if dtype not in _FAST_DTYPES and not (dtype is torch.uint8 and dim in caps.uint8_ranks):
        return None
    if align_corners is None:
        ac = False
    elif type(align_corners) is bool and (caps.align_corners == "grid" or
                                          (caps.align_corners == "refused" and not align_corners)):
        ac = align_corners
    else:
        return None
    if scale_factor is None:
        ts = type(size)
        if ts is int:
            if size <= 0 or size >= 2**62:
                return None
            out = [size] * dim
        elif (ts is tuple or ts is list) and len(size) == dim:
            out = list(size)
            for v in out:
                if type(v) is not int or v <= 0 or v >= 2**62:
                    return None
        else:
            return None
        scales = None
    elif size is None and caps.name != "area":
        ts = type(scale_factor)
        if ts is float or ts is int:
            scales = [float(scale_factor)] * dim
        elif (ts is tuple or ts is list) and len(scale_factor) == dim:
            scales = []
            for v in scale_factor:
                if type(v) is not float and type(v) is not int:
                    return None
                scales.append(float(v))
        else:
            return None
        out = []
        for n, sc in zip(shape[2:], scales):
            v = n * sc
            if not (math.isfinite(v) and 1.0 <= v < 2.0**62):
                return None
            out.append(int(v))
        if caps.name == "nearest":
            scales = _nearest_scales(input, out, scales)
    else:
        return None
    return _plain_resize(input, out, mode, ac, scales, antialias)


def _align_corners(caps, align_corners):
    """align_corners as the op takes it (None -> False), or native's ValueError."""
    if caps is not None and caps.align_corners == "absent":
        check_align_corners(caps.name, align_corners is not None)
        return align_corners
    if caps is not None and caps.align_corners == "refused":
        check_align_corners(caps.name, align_corners is True)
    return False if align_corners is None else align_corners


def _size_or_scales(input, size, scale_factor, mode, recompute_scale_factor):
    """(output_size, scale_factors) as F.interpolate derives them (one of them None), with its
    errors."""
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError(
            "only one of size or scale_factor should be defined; pass size (the output spatial "
            "size) or scale_factor, not both"
        )
    elif size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and output size of {size}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "output size in (o1, o2, ...,oK) format."
                )
            if not all(_is_integer(x) for x in size):
                raise _size_error(f"size with types {[type(x) for x in size]}")
            output_size = list(size)
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {list(input.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "scale_factor in (s1, s2, ...,sK) format."
                )
            scale_factors = list(scale_factor)
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined; pass one of them")

    if recompute_scale_factor is not None and recompute_scale_factor and size is not None:
        raise ValueError(
            "recompute_scale_factor is not meaningful with an explicit size; leave it None "
            "when passing size"
        )

    # "area" mode always requires an explicit size rather than scale factor.
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        # Native multiplies whatever it was given (a str is repeated, a Tensor broadcast); resize_ad
        # wants numbers. A non-finite product fails as int() does: ValueError (NaN) or OverflowError.
        _check_scale_types(scale_factors, scale_factor)
        output_size = []
        for i in range(dim):
            v = input.size(i + 2) * scale_factors[i]
            try:
                output_size.append(torch.sym_int(v))
            except (ValueError, OverflowError) as e:
                raise type(e)(
                    f"resize_ad: scale_factor {scale_factors} gives output size {v} for an input "
                    f"of spatial size {list(input.shape[2:])} ({e}); pass a finite scale_factor"
                ) from e
        scale_factors = None
    return output_size, scale_factors


def _check_mode(input, mode, caps, antialias) -> None:
    """Antialias, then rank, then the mode itself, in native's order."""
    check_antialias(mode if isinstance(mode, str) else repr(mode), input.dim() - 2, bool(antialias))
    if input.dim() in (3, 4, 5) and caps is not None:
        check_rank(caps.name, input.dim() - 2)
    if input.dim() not in (3, 4, 5) or caps is None:
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the "
            f"modes: {' | '.join(MODES)} (got {mode!r})"
        )


def _nearest_scales(input: Tensor, output_size, scale_factors):
    """The scales native's nearest kernel really uses on input's device.

    Native CPU runs 2-D nearest through its channels-last kernel when the input is channels_last
    with C > 3 or the output is small (out_h + out_w <= 128), and 3-D nearest when the input is
    channels_last_3d with C > 3 (UpSampleKernel.cpp _use_vectorized_kernel_cond_2d/3d). That
    kernel's index (UpSample.h nearest_idx) copies an axis with output == input and halves one
    with output == 2 * input, ignoring the scale: the floor(o * scale) rule of the other kernels
    with the scale absent. Native CUDA always floors with the scale. The decision is made once
    here, so the backward (which gets the same scales) stays the exact adjoint."""
    if input.device.type != "cpu" or input.dim() == 3:
        return scale_factors
    c = input.shape[1]
    if input.dim() == 4:
        cl = input.is_contiguous(memory_format=torch.channels_last)
        use_idx = (cl and _definitely(c > 3)) or _definitely(output_size[0] + output_size[1] <= 128)
    else:
        use_idx = input.is_contiguous(memory_format=torch.channels_last_3d) and _definitely(c > 3)
    if not use_idx:
        return scale_factors
    return [0.0 if _definitely(o == i) or _definitely(o == 2 * i) else s
            for s, i, o in zip(scale_factors, input.shape[2:], output_size)]


def _checks_at_dispatch(input, output_size, scale_factors, scale_factor, caps, align_corners):
    """What native leaves to its argument parser (TypeError) and to the upsample / adaptive
    pooling kernels (RuntimeError for sizes, NotImplementedError for dtypes), in that order.

    Returns (output_size, scale_factors, early): early, when not None, is the result (an empty
    area output of a dtype that area cannot compute, which native returns without computing)."""
    if caps.align_corners != "absent" and not isinstance(align_corners, bool):
        raise TypeError(
            f"align_corners must be a bool or None, got {type(align_corners).__name__} "
            f"({align_corners!r})"
        )
    if output_size is not None:
        output_size = [_as_size(s) for s in output_size]
    else:
        scale_factors, output_size = _sizes_from_scales(input, scale_factors, scale_factor)
    _check_sizes(input, output_size, caps.name == "area")
    early = _empty_area_result(input, output_size, caps.name)
    if early is None:
        check_dtype(caps.name, input)
    return output_size, scale_factors, early


def _sizes_from_scales(input, scale_factors, scale_factor):
    """(scale_factors as floats, output sizes floor(in * scale)) as native's kernels take them."""
    _check_scale_types(scale_factors, scale_factor)
    scale_factors = [s if isinstance(s, torch.SymFloat) else float(s) for s in scale_factors]
    output_size = []
    for i, sf in enumerate(scale_factors):
        v = input.size(i + 2) * sf
        if (not torch.compiler.is_compiling() and isinstance(v, float)
                and not (math.isfinite(v) and abs(v) < 2.0**63)):
            raise RuntimeError(
                f"resize_ad: scale_factor {scale_factors} gives output size {v} for an input "
                f"of spatial size {list(input.shape[2:])}: value cannot be converted to type "
                "int64_t without overflow; pass a finite scale_factor (or size)"
            )
        output_size.append(torch.sym_int(v))
    return scale_factors, output_size


def _check_sizes(input, output_size, area: bool) -> None:
    """Native's kernels' size checks: non-empty input spatial dims, positive output sizes (area
    allows 0), non-empty channels (area in 1-D and 2-D allows them empty)."""
    in_sp = list(input.shape[2:])
    names = ["D", "H", "W"][3 - len(in_sp):]
    fmt = lambda v: ", ".join(f"{n}: {x}" for n, x in zip(names, v))  # noqa: E731
    if any(_definitely(s <= 0) for s in in_sp):
        raise RuntimeError(
            f"Input and output sizes should be greater than 0, but got input ({fmt(in_sp)}) "
            f"output ({fmt(output_size)}); the input's spatial dimensions must not be empty"
        )
    if any(_definitely(s < 0) if area else _definitely(s <= 0) for s in output_size):
        raise RuntimeError(
            f"Input and output sizes should be greater than 0, but got input ({fmt(in_sp)}) "
            f"output ({fmt(output_size)}); pass a larger size or scale_factor"
            + (" (area allows 0: an empty output)" if area else "")
        )
    if _definitely(input.shape[1] == 0) and not (area and input.dim() < 5):
        raise RuntimeError(
            f"Non-empty {input.dim()}D data tensor expected but got a tensor with sizes "
            f"{list(input.shape)}; only the batch dimension may be empty"
        )


def _empty_area_result(input, output_size, mode):
    """Native's 1-D / 2-D adaptive pooling returns an empty output of any dtype without
    computing (so without checking the dtype); None for every other call."""
    if mode != "area" or input.dim() >= 5 or input.dtype.is_floating_point:
        return None
    if _definitely(input.shape[0] * input.shape[1] == 0) or any(_definitely(s == 0) for s in output_size):
        return input.new_empty(list(input.shape[:2]) + list(output_size))
    return None


def _definitely(cond) -> bool:
    # Symbolic sizes under torch.compile: only raise on what is known to be true.
    if isinstance(cond, bool):
        return cond
    try:
        return bool(torch.fx.experimental.symbolic_shapes.statically_known_true(cond))
    except Exception:  # pragma: no cover - older torch
        return False
