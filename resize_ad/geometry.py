"""scale_and_translate: a resize differentiable in its input, its scale and its translation.

Semantics are those of ``jax.image.scale_and_translate`` (jax/_src/image/scale.py,
``compute_weight_mat``). Per resampled axis a banded table is built here in plain torch code:
window starts (int64, piecewise constant in scale and translation, so computed without grad)
and weights (a float tensor, differentiable to any order by torch's own autograd). The tables
are applied by the ops ``resize_ad::band_apply``, ``band_apply_transposed`` and
``band_weight_grad`` (csrc/cpu/band_cpu.cpp, csrc/cuda/band_cuda.cu).

``band_apply(x, w)`` is bilinear in (x, w); its derivatives are the transpose (in x) and the
weight gradient (in w), and each of the three ops is bilinear again, with derivatives among the
three. So the autograd.Functions below, whose backward and jvp call one another, give every order
of reverse and forward mode, and torch's autograd carries the weight derivatives on to scale and
translation through the table code.
"""
from __future__ import annotations

import math
from typing import List, Optional, Sequence, Tuple, Union

import numpy as np
import torch
from torch import Tensor

__all__ = ["scale_and_translate", "SCALE_TRANSLATE_METHODS"]

_ops = torch.ops.resize_ad

# method -> support radius of the filter at kernel scale 1.
_RADIUS = {"linear": 1.0, "cubic": 2.0, "lanczos3": 3.0, "lanczos5": 5.0}
_ALIASES = {"bilinear": "linear", "trilinear": "linear", "triangle": "linear",
            "bicubic": "cubic", "tricubic": "cubic"}
SCALE_TRANSLATE_METHODS = tuple(_RADIUS)

# JAX's threshold below which a weight sum counts as zero (the whole row is then zeroed).
_SUM_EPS = 1000.0 * float(np.finfo(np.float32).eps)


# ---- filters, as jax/_src/image/scale.py defines them (x >= 0 is the scaled distance) ----

def _triangle(x: Tensor) -> Tensor:
    return torch.clamp(1.0 - x, min=0.0)


def _keys_cubic(x: Tensor) -> Tensor:
    # Keys (1981), A = -0.5.
    out = ((1.5 * x - 2.5) * x) * x + 1.0
    out = torch.where(x >= 1.0, ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0, out)
    return torch.where(x >= 2.0, torch.zeros_like(x), out)


def _lanczos(radius: float, x: Tensor) -> Tensor:
    y = radius * torch.sin(math.pi * x) * torch.sin(math.pi * x / radius)
    # The inner where keeps the untaken branch finite, so its gradient is not NaN at x = 0.
    safe = torch.where(x != 0, (math.pi ** 2) * x * x, torch.ones_like(x))
    out = torch.where(x > 1e-3, y / safe, torch.ones_like(x))
    return torch.where(x > radius, torch.zeros_like(x), out)


_FILTERS = {
    "linear": _triangle,
    "cubic": _keys_cubic,
    "lanczos3": lambda x: _lanczos(3.0, x),
    "lanczos5": lambda x: _lanczos(5.0, x),
}


# ---- the three ops as autograd.Functions (eager: every order, forward mode, vmap) ----

class _BandApply(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x, start, w, dim):
        return _ops.band_apply(x, start, w, dim)

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, start, w, dim = inputs
        ctx.save_for_backward(x, start, w)
        ctx.save_for_forward(x, start, w)
        ctx.dim = dim

    @staticmethod
    def backward(ctx, g):
        x, start, w = ctx.saved_tensors
        gx = gw = None
        if ctx.needs_input_grad[0]:
            gx = _BandApplyT.apply(g, start, w, ctx.dim, x.shape[ctx.dim])
        if ctx.needs_input_grad[2]:
            gw = _BandWeightGrad.apply(g, x, start, ctx.dim, w.shape[1])
        return gx, None, gw, None

    @staticmethod
    def jvp(ctx, tx, _tstart, tw, _tdim):
        x, start, w = ctx.saved_tensors
        return _sum_tangents(
            None if tx is None else _BandApply.apply(tx, start, w, ctx.dim),
            None if tw is None else _BandApply.apply(x, start, tw, ctx.dim))


class _BandApplyT(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(g, start, w, dim, input_length):
        return _ops.band_apply_transposed(g, start, w, dim, input_length)

    @staticmethod
    def setup_context(ctx, inputs, output):
        g, start, w, dim, input_length = inputs
        ctx.save_for_backward(g, start, w)
        ctx.save_for_forward(g, start, w)
        ctx.dim, ctx.input_length = dim, input_length

    @staticmethod
    def backward(ctx, h):
        g, start, w = ctx.saved_tensors
        gg = gw = None
        if ctx.needs_input_grad[0]:
            gg = _BandApply.apply(h, start, w, ctx.dim)
        if ctx.needs_input_grad[2]:
            gw = _BandWeightGrad.apply(g, h, start, ctx.dim, w.shape[1])
        return gg, None, gw, None, None

    @staticmethod
    def jvp(ctx, tg, _tstart, tw, _tdim, _tlen):
        g, start, w = ctx.saved_tensors
        return _sum_tangents(
            None if tg is None else _BandApplyT.apply(tg, start, w, ctx.dim, ctx.input_length),
            None if tw is None else _BandApplyT.apply(g, start, tw, ctx.dim, ctx.input_length))


class _BandWeightGrad(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(g, x, start, dim, taps):
        return _ops.band_weight_grad(g, x, start, dim, taps)

    @staticmethod
    def setup_context(ctx, inputs, output):
        g, x, start, dim, taps = inputs
        ctx.save_for_backward(g, x, start)
        ctx.save_for_forward(g, x, start)
        ctx.dim, ctx.taps = dim, taps

    @staticmethod
    def backward(ctx, hw):
        g, x, start = ctx.saved_tensors
        gg = gx = None
        if ctx.needs_input_grad[0]:
            gg = _BandApply.apply(x, start, hw, ctx.dim)
        if ctx.needs_input_grad[1]:
            gx = _BandApplyT.apply(g, start, hw, ctx.dim, x.shape[ctx.dim])
        return gg, gx, None, None, None

    @staticmethod
    def jvp(ctx, tg, tx, _tstart, _tdim, _ttaps):
        g, x, start = ctx.saved_tensors
        return _sum_tangents(
            None if tg is None else _BandWeightGrad.apply(tg, x, start, ctx.dim, ctx.taps),
            None if tx is None else _BandWeightGrad.apply(g, tx, start, ctx.dim, ctx.taps))


def _sum_tangents(a: Optional[Tensor], b: Optional[Tensor]) -> Optional[Tensor]:
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def _band_apply(x: Tensor, start: Tensor, w: Tensor, dim: int) -> Tensor:
    if torch.compiler.is_compiling():
        # Dynamo cannot trace a Function with a custom jvp; the op's registered autograd
        # covers first order under compile (aot_autograd has no double backward anyway).
        return _ops.band_apply(x, start, w, dim)
    return _BandApply.apply(x, start, w, dim)


# ---- the ops' own autograd (used under torch.compile / export) ----

def _setup_apply(ctx, inputs, output):
    x, start, w, dim = inputs
    ctx.save_for_backward(x, start, w)
    ctx.dim = dim


def _backward_apply(ctx, g):
    x, start, w = ctx.saved_tensors
    gx = gw = None
    if ctx.needs_input_grad[0]:
        gx = _ops.band_apply_transposed(g, start, w, ctx.dim, x.shape[ctx.dim])
    if ctx.needs_input_grad[2]:
        gw = _ops.band_weight_grad(g, x, start, ctx.dim, w.shape[1])
    return gx, None, gw, None


def _setup_apply_t(ctx, inputs, output):
    g, start, w, dim, input_length = inputs
    ctx.save_for_backward(g, start, w)
    ctx.dim = dim


def _backward_apply_t(ctx, h):
    g, start, w = ctx.saved_tensors
    gg = gw = None
    if ctx.needs_input_grad[0]:
        gg = _ops.band_apply(h, start, w, ctx.dim)
    if ctx.needs_input_grad[2]:
        gw = _ops.band_weight_grad(g, h, start, ctx.dim, w.shape[1])
    return gg, None, gw, None, None


def _setup_weight_grad(ctx, inputs, output):
    g, x, start, dim, taps = inputs
    ctx.save_for_backward(g, x, start)
    ctx.dim = dim


def _backward_weight_grad(ctx, hw):
    g, x, start = ctx.saved_tensors
    gg = gx = None
    if ctx.needs_input_grad[0]:
        gg = _ops.band_apply(x, start, hw, ctx.dim)
    if ctx.needs_input_grad[1]:
        gx = _ops.band_apply_transposed(g, start, hw, ctx.dim, x.shape[ctx.dim])
    return gg, gx, None, None, None


torch.library.register_autograd("resize_ad::band_apply", _backward_apply, setup_context=_setup_apply)
torch.library.register_autograd(
    "resize_ad::band_apply_transposed", _backward_apply_t, setup_context=_setup_apply_t)
torch.library.register_autograd(
    "resize_ad::band_weight_grad", _backward_weight_grad, setup_context=_setup_weight_grad)


# ---- fake kernels ----

def _with_length(t: Tensor, dim: int, length) -> List:
    shape = list(t.shape)
    shape[dim] = length
    return shape


@torch.library.register_fake("resize_ad::band_apply")
def _band_apply_fake(x, start, w, dim):
    torch._check(0 <= dim < x.dim(), lambda: f"band_apply: dim {dim} out of range for {x.dim()}-D x")
    torch._check(w.dim() == 2 and w.shape[0] == start.shape[0], lambda: "band_apply: weight must be [O, K]")
    return x.new_empty(_with_length(x, dim, start.shape[0]))


@torch.library.register_fake("resize_ad::band_apply_transposed")
def _band_apply_t_fake(g, start, w, dim, input_length):
    torch._check(0 <= dim < g.dim(), lambda: f"band_apply_transposed: dim {dim} out of range")
    return g.new_empty(_with_length(g, dim, input_length))


@torch.library.register_fake("resize_ad::band_weight_grad")
def _band_weight_grad_fake(g, x, start, dim, taps):
    torch._check(0 <= dim < g.dim(), lambda: f"band_weight_grad: dim {dim} out of range")
    return g.new_empty([start.shape[0], taps])


# ---- vmap: a batched tensor operand moves its batch to the front (one op call); a batched
# table, or any batched operand of the weight gradient (whose output has no batch axis), runs
# the op once per sample ----

def _per_sample(op, in_dims, args):
    size = next(a.shape[d] for a, d in zip(args, in_dims) if d is not None)
    outs = []
    for b in range(size):
        outs.append(op(*[a.select(d, b) if d is not None else a for a, d in zip(args, in_dims)]))
    return torch.stack(outs), 0


@torch.library.register_vmap("resize_ad::band_apply")
def _band_apply_vmap(info, in_dims, x, start, w, dim):
    xd, sd, wd, _ = in_dims
    if sd is None and wd is None:
        if xd is None:
            return _ops.band_apply(x, start, w, dim), None
        return _ops.band_apply(x.movedim(xd, 0), start, w, dim + 1), 0
    return _per_sample(lambda a, s, v: _ops.band_apply(a, s, v, dim), (xd, sd, wd), (x, start, w))


@torch.library.register_vmap("resize_ad::band_apply_transposed")
def _band_apply_t_vmap(info, in_dims, g, start, w, dim, input_length):
    gd, sd, wd = in_dims[:3]
    if sd is None and wd is None:
        if gd is None:
            return _ops.band_apply_transposed(g, start, w, dim, input_length), None
        return _ops.band_apply_transposed(g.movedim(gd, 0), start, w, dim + 1, input_length), 0
    return _per_sample(lambda a, s, v: _ops.band_apply_transposed(a, s, v, dim, input_length),
                       (gd, sd, wd), (g, start, w))


@torch.library.register_vmap("resize_ad::band_weight_grad")
def _band_weight_grad_vmap(info, in_dims, g, x, start, dim, taps):
    gd, xd, sd = in_dims[:3]
    if gd is None and xd is None and sd is None:
        return _ops.band_weight_grad(g, x, start, dim, taps), None
    return _per_sample(lambda a, b, s: _ops.band_weight_grad(a, b, s, dim, taps),
                       (gd, xd, sd), (g, x, start))


# ---- tables ----

def _unwrapped(t: Tensor) -> Tensor:
    """The plain tensor under any functorch wrappers (vmap, grad, jvp): only its values are
    read, to size the windows."""
    while torch._C._functorch.is_functorch_wrapped_tensor(t):
        t = torch._C._functorch.get_unwrapped(t)
    return t


def _taps(in_len: int, radius: float, scale: Union[Tensor, float], antialias: bool,
          compiling: bool) -> int:
    """Taps per window: every input index strictly inside the support, plus one tap of slack
    for rounding in the window start. Under torch.compile the scale has no value at trace
    time, so the window spans the whole axis (still exact, just dense)."""
    if in_len == 0:
        return 0
    if not antialias:
        support = radius
    elif isinstance(scale, Tensor):
        if compiling:
            return in_len
        smallest = float(_unwrapped(scale).detach().min())
        support = radius * max(1.0 / smallest, 1.0)
    else:
        support = radius * max(1.0 / scale, 1.0)
    return int(min(in_len, math.ceil(2.0 * support) + 1))


def _table(in_len: int, out_len: int, scale: Tensor, translation: Tensor, method: str,
           antialias: bool, taps: int) -> Tuple[Tensor, Tensor]:
    """(start [O] int64, weight [O, taps]) for one axis, in the dtype of scale/translation.

    Mirrors compute_weight_mat of jax/_src/image/scale.py restricted to a band: the same
    sample positions, filter, normalisation and zeroing, evaluated only on taps start..start+K-1
    (the filter is zero, with zero derivative, on every other input index)."""
    dtype, device = scale.dtype, scale.device
    inv_scale = 1.0 / scale
    kernel_scale = torch.clamp(inv_scale, min=1.0) if antialias else torch.ones_like(inv_scale)
    o = torch.arange(out_len, dtype=dtype, device=device)
    sample_f = (o + 0.5) * inv_scale - translation * inv_scale - 0.5
    with torch.no_grad():
        if taps == in_len:
            start = torch.zeros(out_len, dtype=torch.long, device=device)
        else:
            support = _RADIUS[method] * kernel_scale.detach()
            first = torch.floor(sample_f.detach() - support) + 1
            start = first.clamp(0, in_len - taps).to(torch.long)
    idx = start.unsqueeze(1) + torch.arange(taps, device=device).unsqueeze(0)
    x = torch.abs(sample_f.unsqueeze(1) - idx.to(dtype)) / kernel_scale
    weights = _FILTERS[method](x)
    total = weights.sum(dim=1, keepdim=True)
    safe_total = torch.where(total != 0, total, torch.ones_like(total))
    weights = torch.where(total.abs() > _SUM_EPS, weights / safe_total, torch.zeros_like(weights))
    inside = (sample_f >= -0.5) & (sample_f <= in_len - 0.5)
    weights = torch.where(inside.unsqueeze(1), weights, torch.zeros_like(weights))
    return start, weights


# ---- argument checks ----

def _as_vector(name: str, value, k: int, device) -> Tensor:
    if isinstance(value, Tensor):
        if not value.dtype.is_floating_point:
            raise ValueError(f"scale_and_translate: {name} must be a floating point tensor, got "
                             f"{value.dtype}; convert it with .double() or .float()")
        if value.dim() != 1 or value.shape[0] != k:
            raise ValueError(f"scale_and_translate: {name} must have one entry per spatial dim "
                             f"({k}), got shape {tuple(value.shape)}")
        return value.to(device)
    try:
        values = [float(v) for v in value]
    except TypeError:
        raise ValueError(f"scale_and_translate: {name} must be a 1-D float tensor or a sequence "
                         f"of floats, got {type(value).__name__}") from None
    if len(values) != k:
        raise ValueError(f"scale_and_translate: {name} must have one entry per spatial dim ({k}), "
                         f"got {len(values)}")
    return torch.tensor(values, dtype=torch.float64, device=device)


def _check_values(scale: Tensor, translation: Tensor) -> None:
    if torch.compiler.is_compiling():
        return  # no values at trace time
    s, t = _unwrapped(scale).detach(), _unwrapped(translation).detach()
    if not bool(torch.isfinite(s).all()) or not bool((s > 0).all()):
        raise ValueError(f"scale_and_translate: every scale must be finite and > 0, got "
                         f"{s.tolist()}")
    if not bool(torch.isfinite(t).all()):
        raise ValueError(f"scale_and_translate: every translation must be finite, got "
                         f"{t.tolist()}")


def scale_and_translate(input: Tensor, shape: Sequence[int], spatial_dims: Sequence[int],
                        scale: Union[Tensor, Sequence[float]],
                        translation: Union[Tensor, Sequence[float]],
                        method: str = "linear", antialias: bool = True) -> Tensor:
    r"""Resample ``input`` under a per-axis scale and translation, as
    ``jax.image.scale_and_translate``; differentiable in ``input``, ``scale`` and ``translation``
    to any order.

    Output index ``o`` along spatial dim ``d`` samples the input at
    ``(o + 0.5 - translation[d]) / scale[d] - 0.5`` (half-pixel centres). Weights come from the
    filter of ``method``, stretched by ``max(1 / scale, 1)`` when ``antialias``, normalised to sum
    1 per output; outputs whose sample lies outside ``[-0.5, in_size - 0.5]`` are 0.

    Args:
        input (Tensor): any shape, floating point.
        shape (sequence of int): the whole output shape (``input.dim()`` entries); only the
            ``spatial_dims`` may differ from ``input.shape``.
        spatial_dims (sequence of int): the axes resampled (negative values count from the end).
        scale (Tensor or sequence of float): ``[len(spatial_dims)]``, each finite and > 0.
        translation (Tensor or sequence of float): ``[len(spatial_dims)]``, in output pixels.
        method (str): ``"linear"`` (triangle), ``"cubic"`` (Keys, A = -0.5), ``"lanczos3"`` or
            ``"lanczos5"``. ``"nearest"`` is refused, as in JAX: it has no gradient in scale or
            translation.
        antialias (bool): stretch the filter when downsampling. Default: ``True``.

    Returns:
        Tensor: of shape ``shape``, the dtype of ``input``.

    Example::

        >>> x = torch.rand(1, 3, 32, 32)
        >>> s = torch.tensor([2.0, 2.0], requires_grad=True)
        >>> t = torch.tensor([0.5, -1.0], requires_grad=True)
        >>> y = resize_ad.scale_and_translate(x, (1, 3, 64, 64), (2, 3), s, t, "cubic")
        >>> y.sum().backward()  # s.grad and t.grad are set
    """
    if not isinstance(input, Tensor) or not input.dtype.is_floating_point:
        raise ValueError("scale_and_translate: input must be a floating point tensor, got "
                         f"{getattr(input, 'dtype', type(input).__name__)}")
    method = _ALIASES.get(method, method) if isinstance(method, str) else method
    if method == "nearest":
        raise ValueError("scale_and_translate: method 'nearest' is not supported (as in "
                         "jax.image.scale_and_translate): it is piecewise constant, so it has no "
                         "gradient in scale or translation; use 'linear' or resize_ad.interpolate")
    if method not in _RADIUS:
        raise ValueError(f"scale_and_translate: unknown method {method!r}; expected one of "
                         f"{', '.join(SCALE_TRANSLATE_METHODS)}")
    shape = [int(s) for s in shape]
    ndim = input.dim()
    if len(shape) != ndim:
        raise ValueError(f"scale_and_translate: shape must have one entry per dim of input "
                         f"({ndim}), got {len(shape)}: {shape} for input {tuple(input.shape)}")
    if any(s < 0 for s in shape):
        raise ValueError(f"scale_and_translate: shape entries must be >= 0, got {shape}")
    dims = []
    for d in spatial_dims:
        d = int(d)
        if not -ndim <= d < ndim:
            raise ValueError(f"scale_and_translate: spatial dim {d} is out of range for a "
                             f"{ndim}-D input")
        dims.append(d % ndim)
    if len(set(dims)) != len(dims):
        raise ValueError(f"scale_and_translate: spatial_dims must not repeat an axis, got "
                         f"{list(spatial_dims)}")
    for d in range(ndim):
        if d not in dims and shape[d] != input.shape[d]:
            raise ValueError(f"scale_and_translate: axis {d} is not in spatial_dims, so shape[{d}] "
                             f"must stay {input.shape[d]}, got {shape[d]}")
    scale_was_tensor = isinstance(scale, Tensor)
    scale_t = _as_vector("scale", scale, len(dims), input.device)
    trans_t = _as_vector("translation", translation, len(dims), input.device)
    _check_values(scale_t, trans_t)
    table_dtype = torch.promote_types(scale_t.dtype, trans_t.dtype)
    scale_t, trans_t = scale_t.to(table_dtype), trans_t.to(table_dtype)
    compiling = torch.compiler.is_compiling()
    y = input
    for i, d in enumerate(dims):
        s_i = scale_t[i] if scale_was_tensor else float(scale[i])
        taps = _taps(input.shape[d], _RADIUS[method], s_i, antialias, compiling)
        start, w = _table(input.shape[d], shape[d], scale_t[i], trans_t[i], method, antialias, taps)
        y = _band_apply(y, start, w.to(input.dtype), d)
    return y
