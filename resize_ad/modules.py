"""nn.Module wrappers."""
from typing import Optional, Sequence, Union

from torch import Tensor, nn

from .functional import interpolate

__all__ = ["Upsample"]


class Upsample(nn.Upsample):
    r"""Drop-in :class:`torch.nn.Upsample` on resize_ad's kernels (see :func:`resize_ad.interpolate`).

    Same constructor, attributes, behaviour and ``repr`` as ``nn.Upsample`` (it is a subclass,
    so ``isinstance(m, nn.Upsample)`` holds), plus ``antialias`` and the extra filter modes
    (:data:`resize_ad.FILTER_MODES`). Differentiable to any order; no parameters or buffers.

    Args:
        size (int or Tuple[int, ...], optional): output spatial size.
        scale_factor (float or Tuple[float, ...], optional): multiplier for the spatial size.
        mode (str): one of :data:`resize_ad.MODES`. Default: ``'nearest'``
        align_corners (bool, optional): as in ``nn.Upsample``.
        recompute_scale_factor (bool, optional): as in ``nn.Upsample``.
        antialias (bool): antialias filter when downsampling. Default: ``False``

    Example::

        >>> up = resize_ad.Upsample(scale_factor=2, mode="bilinear")
        >>> up(torch.randn(1, 3, 8, 8)).shape
        torch.Size([1, 3, 16, 16])
    """

    __constants__ = nn.Upsample.__constants__ + ["antialias"]

    def __init__(
        self,
        size: Optional[Union[int, Sequence[int]]] = None,
        scale_factor: Optional[Union[float, Sequence[float]]] = None,
        mode: str = "nearest",
        align_corners: Optional[bool] = None,
        recompute_scale_factor: Optional[bool] = None,
        antialias: bool = False,
    ) -> None:
        super().__init__(size, scale_factor, mode, align_corners, recompute_scale_factor)
        self.antialias = antialias

    def forward(self, input: Tensor) -> Tensor:
        return interpolate(
            input,
            self.size,
            self.scale_factor,
            self.mode,
            self.align_corners,
            recompute_scale_factor=self.recompute_scale_factor,
            antialias=self.antialias,
        )

    def __setstate__(self, state):
        state.setdefault("antialias", False)
        super().__setstate__(state)

    def extra_repr(self) -> str:
        info = super().extra_repr()
        if self.align_corners is not None:
            info += ", align_corners=" + repr(self.align_corners)
        if self.antialias:
            info += ", antialias=True"
        return info
