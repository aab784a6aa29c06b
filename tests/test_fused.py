"""The fused gather engine (csrc/common/fused.h), which the CUDA kernels run, checked on the CPU
through resize_ad::_fused_reference against the separable engine, forward and backward."""
import pytest
import torch

from helpers import assert_close
from samples import aa_samples, filter_samples, sample_inputs

ALL = list(sample_inputs()) + list(aa_samples()) + list(filter_samples(layouts=("contiguous", "channels_last")))


def _args(s, x):
    import resize_ad
    y = resize_ad.interpolate(x, **s.kwargs)
    sf = s.kwargs.get("scale_factor")
    scales = None
    if sf is not None and not s.kwargs.get("recompute_scale_factor") and s.mode != "area":
        scales = list(sf) if isinstance(sf, tuple) else [float(sf)] * (s.rank - 2)
    return y, (s.mode, bool(s.kwargs.get("align_corners", False)), scales, bool(s.kwargs.get("antialias", False)))


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.bfloat16], ids=str)
@pytest.mark.parametrize("s", ALL, ids=lambda s: s.id)
def test_fused_matches_separable(s, dtype):
    x = s.make(dtype)
    y, (mode, ac, scales, aa) = _args(s, x)
    y = torch.ops.resize_ad.resize(x, list(y.shape[2:]), mode, ac, scales, aa)
    yf = torch.ops.resize_ad._fused_reference(x, list(y.shape[2:]), mode, ac, scales, aa, False)
    assert yf.stride() == y.stride()
    assert_close(yf, y, dtype)
    g = torch.randn(y.shape, dtype=torch.float64).to(dtype)
    gx = torch.ops.resize_ad.resize_backward(g, list(x.shape), mode, ac, scales, aa)
    gf = torch.ops.resize_ad._fused_reference(g, list(x.shape), mode, ac, scales, aa, True)
    assert_close(gf, gx, dtype)


@pytest.mark.parametrize("s", [s for s in ALL if s.layout == "contiguous"], ids=lambda s: s.id)
def test_fused_nonfinite_like_separable(s):
    x = s.make(torch.float64)
    x.view(-1)[::7] = float("inf")
    x.view(-1)[3::11] = float("nan")
    y, (mode, ac, scales, aa) = _args(s, x)
    y = torch.ops.resize_ad.resize(x, list(y.shape[2:]), mode, ac, scales, aa)
    yf = torch.ops.resize_ad._fused_reference(x, list(y.shape[2:]), mode, ac, scales, aa, False)
    assert torch.equal(torch.isnan(yf), torch.isnan(y)) and torch.equal(torch.isinf(yf), torch.isinf(y))
    finite = torch.isfinite(y)
    assert_close(yf[finite], y[finite], torch.float64)
