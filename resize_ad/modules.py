"""nn.Module wrappers."""
from typing import Optional, Sequence, Union

from torch import Tensor, nn

from .functional import interpolate

__all__ = ["Upsample"]


class Upsample(nn.Module):
    r"""See :func:`resize_ad.interpolate`; constructor and behaviour of :class:`torch.nn.Upsample`,
    plus ``antialias`` and the extra filter modes."""

    __constants__ = ["size", "scale_factor", "mode", "align_corners", "name", "recompute_scale_factor", "antialias"]

    def __init__(
        self,
        size: Optional[Union[int, Sequence[int]]] = None,
        scale_factor: Optional[Union[float, Sequence[float]]] = None,
        mode: str = "nearest",
        align_corners: Optional[bool] = None,
        recompute_scale_factor: Optional[bool] = None,
        antialias: bool = False,
    ) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(factor) for factor in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor
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
        if "recompute_scale_factor" not in state:
            state["recompute_scale_factor"] = True
        state.setdefault("antialias", False)
        super().__setstate__(state)

    def extra_repr(self) -> str:
        if self.scale_factor is not None:
            info = "scale_factor=" + repr(self.scale_factor)
        else:
            info = "size=" + repr(self.size)
        info += ", mode=" + repr(self.mode)
        if self.align_corners is not None:
            info += ", align_corners=" + repr(self.align_corners)
        if self.antialias:
            info += ", antialias=True"
        return info
