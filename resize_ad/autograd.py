"""Autodiff for the op pair resize / resize_backward.

resize is linear in its input, so its derivative is resize_backward (the transposed tables) and
the derivative of resize_backward is resize: each op's backward and jvp is the other op (or
itself), so every order of reverse and forward mode comes from the pair.

Three routes reach the same kernels:
- eager, plain tensors with no forward-AD level open and no functorch transform: the C++
  autograd.Function pair (csrc/autograd.cpp), the same graph without Python per call;
- eager, anything else: the autograd.Function pair below (it has ``jvp``, so forward-mode AD
  works, and functorch transforms take its setup_context form);
- torch.compile / torch.export: the ops themselves, differentiable through
  ``torch.library.register_autograd``; Dynamo cannot trace a Function with a custom ``jvp``.
"""
from __future__ import annotations

from typing import List, Optional, Sequence

import torch
from torch import Tensor
# torch has no public Python form of Tensor::suggest_memory_format, the rule the kernels use.
from torch._prims_common import suggest_memory_format

from ._C import _call as _c_call
from torch.autograd import forward_ad as _forward_ad
from .capabilities import MODE_CAPS

__all__: List[str] = []

_ops = torch.ops.resize_ad
# Private torch APIs, each because no public one answers the question cheaply enough for a
# per-call check (public equivalents cost microseconds of Python per call):
# - is a tensor a functorch (vmap / grad) wrapper: torch.func has no public predicate;
_is_functorch_wrapped = torch._C._functorch.is_functorch_wrapped_tensor
# - is a torch function mode active: torch.overrides only exposes the mode stack, not a cheap test;
_tf_mode_enabled = torch._C._is_torch_function_mode_enabled
# - is a functorch transform active (setup_context Functions are needed then);
_peek_interpreter = torch._C._functorch.peek_interpreter_stack
# - is a forward-AD level open: torch.autograd.forward_ad has no public query
#   (forward_ad._current_level, read below).


def _call(backward: bool, x: Tensor, sizes, mode, align_corners, scales, antialias) -> Tensor:
    """The op below autograd. A plain tensor (no subclass, functorch wrapper, torch function
    mode or forward-AD level) takes resize_ad._C._call, which skips torch.ops' generic argument
    parsing (most of the cost of a call on a small tensor); anything else takes torch.ops."""
    if (type(x) is Tensor and torch.autograd.forward_ad._current_level < 0
            and not _tf_mode_enabled() and not _is_functorch_wrapped(x)):
        y = _c_call(int(backward), x, sizes, mode, align_corners, scales, antialias)
        if y is not NotImplemented:
            return y
    op = _ops.resize_backward if backward else _ops.resize
    return op(x, sizes, mode, align_corners, scales, antialias)


def _plain_resize(x: Tensor, output_size: List[int], mode: str, align_corners: bool,
                  scales: Optional[List[float]], antialias: bool) -> Tensor:
    """resize from interpolate's fast path (not under torch.compile): _call's and _plain's tests
    in one, so that a plain tensor reaches _C._call with the least Python."""
    if (not (x.requires_grad and torch.is_grad_enabled()) and _forward_ad._current_level < 0
            and not _tf_mode_enabled() and not _is_functorch_wrapped(x)):
        y = _c_call(0, x, output_size, mode, align_corners, scales, antialias)
        if y is not NotImplemented:
            return y
    return _direct_or_function(False, x, output_size, mode, align_corners, scales, antialias)


def _resize(x: Tensor, output_size: Sequence[int], mode: str, align_corners: bool,
            scales: Optional[Sequence[float]], antialias: bool) -> Tensor:
    output_size = list(output_size)
    if torch.compiler.is_compiling():
        return _ops.resize(x, output_size, mode, align_corners, scales, antialias)
    return _direct_or_function(False, x, output_size, mode, align_corners, scales, antialias)


# Each Function exists twice. functorch transforms (vmap, grad, jacrev, ...) need the
# setup_context form (_Resize, _ResizeBackward); plain autograd takes the equivalent ctx form
# (_ResizeCtx, _ResizeBackwardCtx), whose apply does not bind the arguments through
# inspect.signature, about 50 us of Python per call.
def _apply_resize(*args):
    return (_ResizeCtx if _peek_interpreter() is None else _Resize).apply(*args)


def _apply_resize_backward(*args):
    return (_ResizeBackwardCtx if _peek_interpreter() is None else _ResizeBackward).apply(*args)


def _direct_or_function(backward: bool, x: Tensor, sizes: Sequence[int], *args) -> Tensor:
    """The op directly when no graph needs building (_plain: e.g. a backward without
    create_graph, which runs with grad mode off); else, for a plain tensor with no forward-AD
    level open and no functorch transform active, the C++ autograd Functions (csrc/autograd.cpp:
    the same graph without the Functions' Python per call, which measured more than the kernels
    of a small resize); else the Function below."""
    if _plain(x):
        return _call(backward, x, list(sizes), *args)
    if (type(x) is Tensor and _forward_ad._current_level < 0 and _peek_interpreter() is None
            and not _tf_mode_enabled()):
        y = _c_call(3 if backward else 2, x, list(sizes), *args)
        if y is not NotImplemented:
            return y
    return (_apply_resize_backward if backward else _apply_resize)(x, sizes, *args)


def _resize_backward(grad: Tensor, input_size: Sequence[int], mode: str, align_corners: bool,
                     scales: Optional[Sequence[float]], antialias: bool) -> Tensor:
    """resize_backward as _Resize.backward calls it."""
    return _direct_or_function(True, grad, input_size, mode, align_corners, scales, antialias)


def _plain(x: Tensor) -> bool:
    """True when x carries no autodiff or functorch state: the op is then called directly,
    skipping the Function's Python overhead (the op is differentiable by itself anyway)."""
    if x.requires_grad and torch.is_grad_enabled():
        return False
    if torch._C._functorch.is_functorch_wrapped_tensor(x):
        return False
    return torch.autograd.forward_ad._current_level < 0


class _Resize(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x, output_size, mode, align_corners, scales, antialias):
        return _call(False, x, output_size, mode, align_corners, scales, antialias)

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, output_size, mode, align_corners, scales, antialias = inputs
        ctx.input_size = list(x.shape)
        ctx.output_size = list(output_size)
        ctx.args = (mode, align_corners, scales, antialias)

    @staticmethod
    def backward(ctx, grad):
        return _resize_backward(grad, ctx.input_size, *ctx.args), None, None, None, None, None

    @staticmethod
    def jvp(ctx, tx, *unused):
        return _apply_resize(tx, ctx.output_size, *ctx.args)


class _ResizeBackward(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(grad, input_size, mode, align_corners, scales, antialias):
        return _call(True, grad, input_size, mode, align_corners, scales, antialias)

    @staticmethod
    def setup_context(ctx, inputs, output):
        grad, input_size, mode, align_corners, scales, antialias = inputs
        ctx.input_size = list(input_size)
        ctx.output_size = list(grad.shape[2:])
        ctx.args = (mode, align_corners, scales, antialias)

    @staticmethod
    def backward(ctx, gg):
        return _apply_resize(gg, ctx.output_size, *ctx.args), None, None, None, None, None

    @staticmethod
    def jvp(ctx, tg, *unused):
        return _apply_resize_backward(tg, ctx.input_size, *ctx.args)


class _ResizeCtx(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, output_size, mode, align_corners, scales, antialias):
        _Resize.setup_context(ctx, (x, output_size, mode, align_corners, scales, antialias), None)
        return _call(False, x, output_size, mode, align_corners, scales, antialias)

    backward = staticmethod(_Resize.backward)
    jvp = staticmethod(_Resize.jvp)


class _ResizeBackwardCtx(torch.autograd.Function):
    @staticmethod
    def forward(ctx, grad, input_size, mode, align_corners, scales, antialias):
        _ResizeBackward.setup_context(ctx, (grad, input_size, mode, align_corners, scales, antialias), None)
        return _call(True, grad, input_size, mode, align_corners, scales, antialias)

    backward = staticmethod(_ResizeBackward.backward)
    jvp = staticmethod(_ResizeBackward.jvp)


# ---- the ops' own autograd (used under torch.compile / export) ----

def _setup_resize(ctx, inputs, output):
    x, output_size, mode, align_corners, scales, antialias = inputs
    ctx.input_size = list(x.shape)
    ctx.args = (mode, align_corners, scales, antialias)


def _backward_resize(ctx, grad):
    return _ops.resize_backward(grad, ctx.input_size, *ctx.args), None, None, None, None, None


def _setup_resize_backward(ctx, inputs, output):
    grad, input_size, mode, align_corners, scales, antialias = inputs
    ctx.output_size = list(grad.shape[2:])
    ctx.args = (mode, align_corners, scales, antialias)


def _backward_resize_backward(ctx, gg):
    return _ops.resize(gg, ctx.output_size, *ctx.args), None, None, None, None, None


torch.library.register_autograd("resize_ad::resize", _backward_resize, setup_context=_setup_resize)
torch.library.register_autograd(
    "resize_ad::resize_backward", _backward_resize_backward, setup_context=_setup_resize_backward
)


# ---- fake (meta) kernels: shapes and memory format exactly as the real kernels ----

@torch.library.register_fake("resize_ad::resize")
def _resize_fake(x, output_size, mode, align_corners, scales, antialias):
    torch._check(x.dim() >= 3 and x.dim() <= 5, lambda: "resize_ad: expected 3-D, 4-D or 5-D input")
    torch._check(len(output_size) == x.dim() - 2, lambda: "resize_ad: one output size per spatial dim")
    shape = list(x.shape[:2]) + list(output_size)
    if MODE_CAPS[mode].output_contiguous(x.dim() - 2):
        return x.new_empty(shape)
    return x.new_empty(shape).contiguous(memory_format=suggest_memory_format(x))


@torch.library.register_fake("resize_ad::resize_backward")
def _resize_backward_fake(grad, input_size, mode, align_corners, scales, antialias):
    torch._check(len(input_size) == grad.dim(), lambda: "resize_ad: input_size must match grad rank")
    return grad.new_empty(list(input_size)).contiguous(memory_format=suggest_memory_format(grad))


# ---- vmap: fold the vmapped dimension into the batch dimension ----

def _fold(x: Tensor, bdim: int) -> Tensor:
    x = x.movedim(bdim, 0)
    return x.reshape((x.shape[0] * x.shape[1],) + tuple(x.shape[2:]))


@torch.library.register_vmap("resize_ad::resize")
def _resize_vmap(info, in_dims, x, output_size, mode, align_corners, scales, antialias):
    bdim = in_dims[0]
    if bdim is None:
        return _ops.resize(x, output_size, mode, align_corners, scales, antialias), None
    b = x.shape[bdim]
    y = _ops.resize(_fold(x, bdim), output_size, mode, align_corners, scales, antialias)
    return y.reshape((b, -1) + tuple(y.shape[1:])), 0


@torch.library.register_vmap("resize_ad::resize_backward")
def _resize_backward_vmap(info, in_dims, grad, input_size, mode, align_corners, scales, antialias):
    bdim = in_dims[0]
    if bdim is None:
        return _ops.resize_backward(grad, input_size, mode, align_corners, scales, antialias), None
    b = grad.shape[bdim]
    size = [b * input_size[0]] + list(input_size[1:])
    gx = _ops.resize_backward(_fold(grad, bdim), size, mode, align_corners, scales, antialias)
    return gx.reshape((b, -1) + tuple(gx.shape[1:])), 0
