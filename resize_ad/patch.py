"""Route torch.nn.functional.interpolate (and so nn.Upsample) through resize_ad.

``patch()`` rebinds the attribute ``torch.nn.functional.interpolate``. Everything that looks the
function up through the module at call time follows it: ``nn.Upsample`` and its subclasses
(torch/nn/modules/upsampling.py calls ``F.interpolate`` through its module global ``F``),
``F.upsample`` / ``F.upsample_bilinear`` / ``F.upsample_nearest`` (they call the module-level
name), and third-party code written as ``F.interpolate(...)`` or
``torch.nn.functional.interpolate(...)``. Code that bound the function itself earlier
(``from torch.nn.functional import interpolate``) keeps the original.
"""
import torch
import torch.nn.functional as F
from torch.overrides import handle_torch_function, has_torch_function_unary

from .functional import _NATIVE_MODES, interpolate

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
        return False  # native's antialias rules (resize_ad.interpolate itself allows more)
    if mode in _NATIVE_MODES:
        return True
    return (mode == "lanczos" and _NATIVE_LANCZOS and input.dim() == 4 and bool(antialias)
            and not align_corners)


def _patched_interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                         recompute_scale_factor=None, antialias=False):
    if has_torch_function_unary(input):
        # Tensor subclasses, torch function modes and FX proxies see this function, as they
        # see F.interpolate when unpatched; their default handling calls it again.
        return handle_torch_function(
            _patched_interpolate, (input,), input, size=size, scale_factor=scale_factor, mode=mode,
            align_corners=align_corners, recompute_scale_factor=recompute_scale_factor,
            antialias=antialias)
    if not _routed(input, mode, align_corners, antialias):
        return _ORIGINAL(input, size, scale_factor, mode, align_corners, recompute_scale_factor, antialias)
    return interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor, antialias)


_patched_interpolate.__doc__ = (
    "torch.nn.functional.interpolate, patched by resize_ad.patch(): the native modes run on "
    "resize_ad.interpolate; other modes go to the original function.\n\n" + (_ORIGINAL.__doc__ or ""))
_patched_interpolate.__wrapped__ = _ORIGINAL
_patched_interpolate._resize_ad_original = _ORIGINAL


def is_patched() -> bool:
    """True while ``torch.nn.functional.interpolate`` is resize_ad's."""
    return F.interpolate is _patched_interpolate


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
    """Make ``torch.nn.functional.interpolate`` call :func:`resize_ad.interpolate`.

    Covers ``nn.Upsample`` and every caller that looks ``F.interpolate`` up at call time. The
    native modes (nearest, nearest-exact, linear, bilinear, bicubic, trilinear, area, and
    native's antialiased 4-D lanczos) run on resize_ad's kernels, with any-order autodiff; any
    other mode is passed to the original function, so it errors (or works) exactly as before.

    Idempotent. Use as a plain call (undo with :func:`unpatch`) or as a context manager::

        with resize_ad.patch():
            y = model(x)   # every F.interpolate / nn.Upsample inside runs on resize_ad
    """
    was = is_patched()
    F.interpolate = _patched_interpolate
    return _Patch(was)


def unpatch() -> None:
    """Restore the original ``torch.nn.functional.interpolate`` (the same object). Idempotent."""
    F.interpolate = _ORIGINAL
