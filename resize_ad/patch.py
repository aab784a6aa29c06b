"""Route torch.nn.functional.interpolate (and so nn.Upsample) through resize_ad."""
import contextlib
import functools

import torch.nn.functional as F

from .functional import interpolate

__all__ = ["patch", "unpatch", "is_patched"]

_ORIGINAL = F.interpolate  # the exact function unpatch() restores


@functools.wraps(_ORIGINAL)
def _patched_interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                         recompute_scale_factor=None, antialias=False):
    return interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor, antialias)


def is_patched() -> bool:
    return F.interpolate is _patched_interpolate


class _Patch(contextlib.ContextDecorator):
    """Returned by patch(): already active; as a context manager it unpatches on exit."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        unpatch()
        return False


def patch() -> _Patch:
    """Make ``torch.nn.functional.interpolate`` call :func:`resize_ad.interpolate`.

    Idempotent. Use as a plain call (undo with :func:`unpatch`) or as a context manager::

        with resize_ad.patch():
            y = model(x)   # every F.interpolate / nn.Upsample inside runs on resize_ad
    """
    F.interpolate = _patched_interpolate
    return _Patch()


def unpatch() -> None:
    """Restore the original ``torch.nn.functional.interpolate``. Idempotent."""
    F.interpolate = _ORIGINAL
