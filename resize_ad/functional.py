"""resize_ad.interpolate: the argument handling of torch.nn.functional.interpolate, on our kernels."""
from __future__ import annotations

import math
import numbers
from typing import List, Optional, Sequence, Union

import torch
from torch import Tensor

from .autograd import _resize

__all__ = ["interpolate", "MODES", "FILTER_MODES"]

# Modes with native torch's rules (rank, align_corners, antialias).
_NATIVE_MODES = ("nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "area")
# Modes resize_ad adds: any of 1-D, 2-D and 3-D spatial input.
FILTER_MODES = ("cubic", "box", "hamming", "lanczos", "lanczos3", "lanczos5", "mitchell", "gaussian")
MODES = _NATIVE_MODES + FILTER_MODES

_LINEAR_RANK = {"linear": 3, "bilinear": 4, "trilinear": 5, "bicubic": 4}
# Modes whose filter has a fixed grid relation, so align_corners means something.
_ALIGN_MODES = ("linear", "bilinear", "bicubic", "trilinear", "cubic")
_ANTIALIAS_MODES = ("linear", "bilinear", "trilinear", "bicubic") + FILTER_MODES


def _is_integer(x) -> bool:
    if isinstance(x, (int, torch.SymInt)):
        return not isinstance(x, bool)
    return isinstance(x, numbers.Integral) or (isinstance(x, Tensor) and not x.is_floating_point())


# uint8 as native torch has it (forward only): nearest / nearest-exact in any rank, bilinear,
# bicubic and lanczos on 4-D input.
_UINT8_4D_MODES = ("bilinear", "bicubic", "lanczos", "lanczos3")


def _check_dtype(input: Tensor, mode: str, antialias: bool) -> None:
    dt = input.dtype
    if dt.is_floating_point:
        return
    if dt == torch.uint8:
        if mode in ("nearest", "nearest-exact") or (mode in _UINT8_4D_MODES and input.dim() == 4):
            return
        raise NotImplementedError(
            f"resize_ad: mode '{mode}' does not support uint8 input with {input.dim()}-D input "
            "(uint8 is supported by nearest and nearest-exact, and by 4-D bilinear, bicubic and "
            "lanczos, as in native torch); convert with .float()"
        )
    raise NotImplementedError(
        f"resize_ad: interpolation is not implemented for dtype {dt}; use a floating point tensor "
        "(float64, float32, float16, bfloat16), or uint8 for nearest and 2-D bilinear/bicubic/lanczos"
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
    if not isinstance(input, Tensor):
        raise TypeError(f"resize_ad.interpolate: input must be a Tensor, got {type(input).__name__}")
    if not isinstance(mode, str) or mode not in MODES:
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the "
            f"modes: {' | '.join(MODES)} (got {mode})"
        )

    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: "
                "linear | bilinear | bicubic | trilinear | cubic"
            )
    elif mode in FILTER_MODES and mode != "cubic":
        if align_corners:
            raise ValueError(
                f"resize_ad: mode '{mode}' does not support align_corners=True "
                "(its filter is centred on pixel centres); pass align_corners=None or False"
            )
        align_corners = False
    elif align_corners is None:
        align_corners = False

    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
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
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                    f"Tuple[int, int, int], but got size with types {[type(x) for x in size]}"
                )
            output_size = [int(s) if isinstance(s, Tensor) else s for s in size]
        else:
            if not _is_integer(size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                    f"Tuple[int, int, int], but got size of type {type(size)}"
                )
            output_size = [int(size) if isinstance(size, Tensor) else size for _ in range(dim)]
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
            scale_factors = [float(s) for s in scale_factor]
        else:
            scale_factors = [float(scale_factor) for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")

    if recompute_scale_factor is not None and recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")

    if scale_factors is not None:
        for s in scale_factors:
            if not math.isfinite(s):
                raise RuntimeError(
                    f"resize_ad: scale_factor must be finite, got {scale_factors}; "
                    "value cannot be converted to type int64_t without overflow"
                )

    # "area" mode always requires an explicit size rather than scale factor.
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [torch.sym_int(input.size(i + 2) * scale_factors[i]) for i in range(dim)]
        scale_factors = None

    if antialias and not (
        mode in FILTER_MODES or (mode in _ANTIALIAS_MODES and input.dim() == _LINEAR_RANK[mode])
    ):
        raise ValueError(
            "Anti-alias option is restricted to linear (3-D), bilinear (4-D), trilinear (5-D), "
            "bicubic (4-D) and the filter modes "
            f"({', '.join(FILTER_MODES)}); got mode '{mode}' with a {input.dim()}-D input"
        )

    if input.dim() not in (3, 4, 5):
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the "
            f"modes: {' | '.join(MODES)} (got {mode})"
        )
    if mode in _LINEAR_RANK and input.dim() != _LINEAR_RANK[mode]:
        need = _LINEAR_RANK[mode]
        raise NotImplementedError(
            f"Got {input.dim()}D input, but {mode} mode needs {need}D input"
            + (" (use mode='cubic' for bicubic interpolation in any rank)" if mode == "bicubic" else "")
        )

    _check_dtype(input, mode, antialias)
    _check_sizes(input, output_size, scale_factors, mode)
    if scale_factors is not None:
        output_size = [torch.sym_int(input.size(i + 2) * scale_factors[i]) for i in range(dim)]
        _check_sizes(input, output_size, None, mode)
        if mode == "nearest":
            scale_factors = _nearest_scales(input, output_size, scale_factors)
    return _resize(input, list(output_size), mode, bool(align_corners), scale_factors, bool(antialias))


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


def _check_sizes(input: Tensor, output_size, scale_factors, mode) -> None:
    if output_size is None:
        return
    in_sp = list(input.shape[2:])
    if any(_definitely(s <= 0) for s in in_sp) or any(_definitely(s <= 0) for s in output_size):
        names = ["D", "H", "W"][3 - len(in_sp):]
        fmt = lambda v: ", ".join(f"{n}: {x}" for n, x in zip(names, v))  # noqa: E731
        raise RuntimeError(
            f"Input and output sizes should be greater than 0, but got input ({fmt(in_sp)}) "
            f"output ({fmt(output_size)}); pass a larger size or scale_factor"
        )
    if _definitely(input.shape[1] == 0) or any(_definitely(s == 0) for s in input.shape[1:]):
        raise RuntimeError(
            f"Non-empty {input.dim()}D data tensor expected but got a tensor with sizes "
            f"{list(input.shape)}; only the batch dimension may be empty"
        )


def _definitely(cond) -> bool:
    # Symbolic sizes under torch.compile: only raise on what is known to be true.
    if isinstance(cond, bool):
        return cond
    try:
        return bool(torch.fx.experimental.symbolic_shapes.statically_known_true(cond))
    except Exception:  # pragma: no cover - older torch
        return False
