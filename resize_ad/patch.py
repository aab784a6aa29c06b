"""Route torch's interpolation through resize_ad: patch() / unpatch().

patch() does two things, and unpatch() undoes both:

1. It registers resize_ad's kernels for aten's upsample ops (upsample_nearest1d/2d/3d,
   _upsample_nearest_exact1d/2d/3d, upsample_linear1d, upsample_bilinear2d, upsample_bicubic2d,
   upsample_trilinear3d, _upsample_bilinear2d_aa, _upsample_bicubic2d_aa,
   _upsample_lanczos2d_aa and their *_backward ops) at the dispatcher's CPU key (and CUDA key
   when built with CUDA): csrc/aten_override.cpp. That reaches every caller of those ops, however
   it found them: code that bound ``interpolate`` by name before patch() (torchvision
   transforms v1 and v2, kornia, timm), TorchScript programs, C++ callers, and aten's own
   autograd formulas, so backward and double backward run on resize_ad too.
2. It rebinds the attribute ``torch.nn.functional.interpolate``, so callers that look it up at
   call time (``nn.Upsample``, ``F.interpolate(...)``) run :func:`resize_ad.interpolate`
   itself: that path also covers "area" (the adaptive-pooling ops stay native at the
   dispatcher: they are nn.AdaptiveAvgPool's too), and torch.compile / torch.export / FX,
   which decompose aten's upsample ops instead of dispatching them.

docs/dropin.md lists what is routed and the trade-offs.
"""
import warnings

import torch
import torch.nn.functional as F
from torch.overrides import handle_torch_function, has_torch_function_unary

from ._C import _aten_override
from .capabilities import NATIVE_MODES
from .functional import interpolate

__all__ = ["patch", "unpatch", "is_patched"]

# The exact function unpatch() restores (also when this module is re-imported while patched).
_ORIGINAL = getattr(F.interpolate, "_resize_ad_original", F.interpolate)

# Native torch 2.14 has a 4-D, antialias-only "lanczos" mode (PIL's LANCZOS); resize_ad's
# lanczos with antialias=True computes the same thing, so those calls are routed too.
_NATIVE_LANCZOS = hasattr(torch._C._nn, "_upsample_lanczos2d_aa")


def _routed(input, mode, align_corners, antialias) -> bool:
    """True for the calls resize_ad answers; everything else goes to the original function,
    so modes resize_ad does not know (or knows with other rules) raise exactly as native."""
    if not isinstance(mode, str) or not isinstance(input, torch.Tensor):
        return False
    if antialias and not (input.dim() == 4 and mode in ("bilinear", "bicubic", "lanczos")):
        return False  # native's antialias rules (resize_ad's capability table allows more)
    if mode in NATIVE_MODES:
        return True
    return (mode == "lanczos" and _NATIVE_LANCZOS and input.dim() == 4 and bool(antialias)
            and not align_corners)


# Whether patch() is in effect. A module that bound the patched function by name while patched
# keeps it after unpatch(); the function then behaves as the original.
_active = False


def _patched_interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                         recompute_scale_factor=None, antialias=False):
    if has_torch_function_unary(input):
        # Tensor subclasses, torch function modes and FX proxies see this function, as they
        # see F.interpolate when unpatched; their default handling calls it again.
        return handle_torch_function(
            _patched_interpolate, (input,), input, size=size, scale_factor=scale_factor, mode=mode,
            align_corners=align_corners, recompute_scale_factor=recompute_scale_factor,
            antialias=antialias)
    if not _active or not _routed(input, mode, align_corners, antialias):
        return _ORIGINAL(input, size, scale_factor, mode, align_corners, recompute_scale_factor, antialias)
    return interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor, antialias)


_patched_interpolate.__doc__ = (
    "torch.nn.functional.interpolate, patched by resize_ad.patch(): the native modes run on "
    "resize_ad.interpolate; other modes go to the original function.\n\n" + (_ORIGINAL.__doc__ or ""))
_patched_interpolate._resize_ad_original = _ORIGINAL


def _share_torchscript_overloads() -> None:
    """Make TorchScript compile a call to the patched function as a call to the original.

    TorchScript resolves ``F.interpolate`` to the compiled overloads it caches for the function
    object it finds (torch.jit._script._get_overloads); the original's are compiled once (about
    0.1 s) and cached for this function too. The scripted program calls aten's upsample ops,
    which reach resize_ad through the dispatcher while patched and native kernels otherwise."""
    from torch.jit import _script, _state

    cache = _state._jit_function_overload_caching
    if _patched_interpolate in cache:
        return
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # "torch.jit.script is deprecated"
            _script._get_overloads(_ORIGINAL)
        cache[_patched_interpolate] = list(cache[_ORIGINAL])
    except Exception as e:  # a TorchScript internals change must not break patch() itself
        warnings.warn(f"resize_ad.patch(): torch.jit.script of code calling F.interpolate will "
                      f"fail while patched ({type(e).__name__}: {e})", RuntimeWarning)


def is_patched() -> bool:
    """True while patch() is in effect."""
    return _active


class _Patch:
    """Returned by patch(): the patch is already active. As a context manager, leaving the
    block restores the state from before the patch() call (so nested blocks compose)."""

    def __init__(self, was_patched: bool):
        self._was_patched = was_patched

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if not self._was_patched:
            unpatch()
        return False

    def __repr__(self):
        return f"<resize_ad.patch active={is_patched()}>"


def patch() -> _Patch:
    """Route torch's interpolation through resize_ad's kernels, for every caller.

    Registers resize_ad's kernels for aten's upsample ops and their backward ops at the
    dispatcher, and rebinds ``torch.nn.functional.interpolate`` to call
    :func:`resize_ad.interpolate`. Reached: ``nn.Upsample``, ``F.interpolate`` however it was
    imported (torchvision transforms, kornia, timm, modules imported before or after), scripted
    (TorchScript) programs, C++ callers, and the backward and double backward aten's autograd
    runs for those ops. The native modes (nearest, nearest-exact, linear, bilinear, bicubic,
    trilinear, native's antialiased 4-D lanczos; "area" through ``F.interpolate``) run on
    resize_ad with native's semantics; other modes and dtypes resize_ad does not compute as
    native does go to the native kernels, so they work or fail exactly as before.

    Idempotent. Use as a plain call (undo with :func:`unpatch`) or as a context manager::

        with resize_ad.patch():
            y = model(x)   # every resize inside runs on resize_ad
    """
    global _active
    was = _active
    _share_torchscript_overloads()
    _aten_override(True)
    F.interpolate = _patched_interpolate
    _active = True
    return _Patch(was)


def unpatch() -> None:
    """Remove the dispatcher kernels (the native ones are active again) and restore the
    original ``torch.nn.functional.interpolate`` (the same object). Idempotent."""
    global _active
    _active = False
    F.interpolate = _ORIGINAL
    _aten_override(False)
