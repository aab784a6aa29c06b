"""resize_ad: differentiable resize for PyTorch on its own CPU and CUDA kernels.

Every mode of ``torch.nn.functional.interpolate`` plus antialias in any rank and extra filters,
differentiable to any order, with a deterministic backward.
"""
import os as _os

import torch as _torch


def _load_library():
    try:
        from . import _C  # noqa: F401  (runs the TORCH_LIBRARY registrations)
    except ImportError as e:
        try:
            from . import _build_info as _bi
            built = f"built against torch {_bi.TORCH_VERSION} (CUDA {_bi.CUDA_VERSION})"
        except ImportError:
            built = "not built"
        raise ImportError(
            f"resize_ad: could not load the compiled extension resize_ad._C ({e}). The extension is "
            f"{built}; the running torch is {_torch.__version__} (CUDA {_torch.version.cuda}). "
            "Rebuild it against this torch from the repository root with "
            "`pip install --no-build-isolation -e .` (set CUDA_HOME to the CUDA toolkit root for "
            "the CUDA kernels, or RESIZE_AD_CPU_ONLY=1 to skip them)."
        ) from e


_load_library()

from . import autograd as _autograd  # noqa: E402,F401  (autograd, fake and vmap registrations)
from .capabilities import FILTER_MODES, MODES  # noqa: E402
from .functional import interpolate  # noqa: E402
from .geometry import SCALE_TRANSLATE_METHODS, scale_and_translate  # noqa: E402
from .modules import Upsample  # noqa: E402
from .patch import is_patched, patch, unpatch  # noqa: E402


def has_cuda_kernels() -> bool:
    """True when this build holds the CUDA kernels."""
    return _torch._C._dispatch_has_kernel_for_dispatch_key("resize_ad::resize", "CUDA")


__version__ = "0.1.0"
__all__ = ["interpolate", "Upsample", "patch", "unpatch", "is_patched", "MODES", "FILTER_MODES", "has_cuda_kernels",
           "scale_and_translate", "SCALE_TRANSLATE_METHODS"]
