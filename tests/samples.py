"""The one sample-input generator shared by every test (torchvision test_ops / OpInfo style).

modes x ranks x align_corners x (size | scale_factor, with and without recompute_scale_factor)
x (up | down | uneven | identity) x memory layouts. Each Sample knows how to build its input for
any dtype and device, so parity, gradcheck and CUDA tests walk the same cases.
"""
from __future__ import annotations

import dataclasses
import itertools
from typing import Iterator, Optional

import torch

from resize_ad.capabilities import MODE_CAPS

# Input ranks (dims) per mode, from the capability table.
NATIVE_MODE_RANKS = {m: tuple(r + 2 for r in c.ranks) for m, c in MODE_CAPS.items() if c.native}
# resize_ad's filter modes: 3-D, 4-D and 5-D input, antialias on or off. An alias (same
# capabilities under another name, e.g. "lanczos3" for "lanczos") is tested as such elsewhere,
# not walked twice.
FILTER_MODE_RANKS = {}
for _m, _c in MODE_CAPS.items():
    if not _c.native and all(_c.family != MODE_CAPS[o].family for o in FILTER_MODE_RANKS):
        FILTER_MODE_RANKS[_m] = tuple(r + 2 for r in _c.ranks)
# Modes without align_corners (None only). "cubic" takes it: its table is bicubic's.
NO_ALIGN = tuple(m for m, c in MODE_CAPS.items() if c.align_corners != "grid")
# Antialias as native torch has it: 2-D bilinear / bicubic (and 2-D lanczos, antialias only, since
# torch 2.13: see filter_samples).
NATIVE_AA = {"bilinear": 4, "bicubic": 4}

# Spatial input extents per rank; small enough for gradgradcheck in float64.
_IN = {3: (9,), 4: (7, 8), 5: (5, 6, 4)}

# (name, size-or-scale spec) applied per spatial dim.
_SIZE_SPECS = [
    ("up", dict(size_mult=2.0)),
    ("down", dict(size_mult=0.5)),
    ("uneven", dict(size_list=(11, 3, 6))),
    ("same", dict(size_mult=1.0)),
    ("scale-up", dict(scale=(2.0, 1.5, 3.0))),
    ("scale-down", dict(scale=(0.6, 0.45, 0.75))),
    ("scale-recompute", dict(scale=(1.7, 0.55, 2.3), recompute=True)),
    ("scale-odd", dict(scale=(1.05, 2.04, 0.99))),
]

LAYOUTS = ("contiguous", "channels_last", "noncontig", "expanded")


@dataclasses.dataclass
class Sample:
    mode: str
    rank: int
    in_spatial: tuple
    kwargs: dict
    layout: str = "contiguous"
    batch: int = 2
    channels: int = 3

    @property
    def id(self) -> str:
        kw = ",".join(f"{k}={v}" for k, v in self.kwargs.items() if k != "mode")
        return f"{self.mode}-{self.rank}d-{self.layout}-{kw}"

    def make(self, dtype=torch.float64, device="cpu", requires_grad=False, seed=0) -> torch.Tensor:
        g = torch.Generator().manual_seed(seed)
        shape = (self.batch, self.channels) + tuple(self.in_spatial)
        if self.layout == "expanded":
            base = torch.randn((1, self.channels) + tuple(self.in_spatial), generator=g, dtype=torch.float64)
            x = base.to(dtype=dtype, device=device).expand(shape)
        elif self.layout == "noncontig":
            # a strided slice (stride 2), and for 2-D/3-D also transposed in memory
            wide = list(shape)
            if self.rank >= 4:
                wide[-1], wide[-2] = wide[-2], wide[-1]
            wide[-1] *= 2
            base = torch.randn(wide, generator=g, dtype=torch.float64).to(dtype=dtype, device=device)
            x = base[..., ::2]
            if self.rank >= 4:
                x = x.transpose(-1, -2)
        elif self.layout == "hwc":
            # One image stored channels-last as an (H, W, C) array is: viewed as (C, H, W) and
            # unsqueezed, it is dense channels_last, but its batch stride (C) makes torch suggest
            # the contiguous layout, which native's result takes.
            base = torch.randn(tuple(self.in_spatial) + (self.channels,), generator=g, dtype=torch.float64)
            x = base.to(dtype=dtype, device=device).movedim(-1, 0)[None]
        else:
            x = torch.randn(shape, generator=g, dtype=torch.float64).to(dtype=dtype, device=device)
            if self.layout == "channels_last":
                fmt = torch.channels_last if self.rank == 4 else torch.channels_last_3d
                x = x.contiguous(memory_format=fmt)
        if requires_grad:
            x = x.detach().requires_grad_(True)
        return x


def _spec_kwargs(spec: dict, rank: int, in_spatial: tuple) -> dict:
    nd = rank - 2
    if "size_mult" in spec:
        return {"size": tuple(max(1, int(round(s * spec["size_mult"]))) for s in in_spatial)}
    if "size_list" in spec:
        return {"size": tuple(spec["size_list"][:nd])}
    kw = {"scale_factor": tuple(spec["scale"][:nd]) if nd > 1 else spec["scale"][0]}
    if spec.get("recompute"):
        kw["recompute_scale_factor"] = True
    return kw


def sample_inputs(modes: Optional[dict] = None, layouts=LAYOUTS, antialias=False,
                  specs=None) -> Iterator[Sample]:
    """Every native mode x rank x align_corners x size spec x layout (x antialias)."""
    modes = modes or NATIVE_MODE_RANKS
    for mode, ranks in modes.items():
        for rank in ranks:
            in_spatial = _IN[rank]
            acs = (None,) if mode in NO_ALIGN else (False, True)
            for ac, (name, spec), layout in itertools.product(acs, specs or _SIZE_SPECS, layouts):
                if layout == "channels_last" and rank == 3:
                    continue
                kw = {"mode": mode, **_spec_kwargs(spec, rank, in_spatial)}
                if ac is not None:
                    kw["align_corners"] = ac
                if antialias:
                    kw["antialias"] = True
                yield Sample(mode, rank, in_spatial, kw, layout)


def aa_samples(layouts=LAYOUTS) -> Iterator[Sample]:
    """Native antialias cases: 2-D bilinear/bicubic, up and down."""
    return sample_inputs({m: (r,) for m, r in NATIVE_AA.items()}, layouts=layouts, antialias=True)


def filter_samples(modes=None, antialias=(False, True), layouts=("contiguous",), specs=None) -> Iterator[Sample]:
    """resize_ad's filter modes (FILTER_MODE_RANKS, or e.g. {"lanczos": (4,)}) x rank x
    align_corners (cubic only) x size spec x layout x antialias."""
    for aa in antialias:
        yield from sample_inputs(modes or FILTER_MODE_RANKS, layouts=layouts, antialias=aa, specs=specs)


def native_backward_not_adjoint(s: Sample, x=None) -> bool:
    """Cases where native's backward is not the adjoint of native's forward; ours always is,
    and the tests check it by the adjoint identity against native's forward instead.

    - nearest on the CPU: the backward (UpSample.h nearest_idx) copies an axis with output ==
      input and halves one with output == 2 * input whatever the scale; the forward does so
      only in its channels-last kernel (2-D: channels_last with C > 3, or out_h + out_w <= 128;
      3-D: channels_last_3d with C > 3), elsewhere it floors o * scale, so with an explicit
      scale that is not exactly input/output the two disagree (x decides the kernel);
    - antialias: the separable forward copies an axis whose size does not change, the backward
      applies the scale's filter to it anyway.
    """
    if "scale_factor" not in s.kwargs or s.kwargs.get("recompute_scale_factor"):
        return False
    sf = s.kwargs["scale_factor"]
    sfs = list(sf) if isinstance(sf, tuple) else [sf] * (s.rank - 2)
    outs = [int(i * f) for i, f in zip(s.in_spatial, sfs)]
    if s.mode == "nearest" and (x is None or x.device.type == "cpu"):
        from resize_ad.functional import _nearest_scales
        used = _nearest_scales(x if x is not None else s.make(), outs, sfs)
        for i, f, o, u in zip(s.in_spatial, sfs, outs, used):
            if o in (i, 2 * i) and 1.0 / f != i / o and u != 0.0:
                return True
    if s.kwargs.get("antialias"):
        return any(o == i and f != 1.0 for i, f, o in zip(s.in_spatial, sfs, outs))
    return False
