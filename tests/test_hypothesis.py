"""Property-based parity with native F.interpolate (hypothesis).

Random valid (and some invalid) configurations: mode, rank, spatial sizes 1..20, size or scale
factors (non-integer ones included), align_corners, recompute_scale_factor, antialias where
native has it, float64/float32, memory layout. Forward and backward must match native within
helpers.TOL; where native's backward is not its forward's adjoint (samples.py), the adjoint
identity against native's forward is checked instead. When native rejects a drawn call,
resize_ad must reject it with the same exception type.

Deterministic and bounded: derandomize=True (a fixed sequence of examples), no example
database, 200 examples.
"""
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import resize_ad
from helpers import TOL, assert_adjoint, assert_close, native, ours
from samples import Sample, native_backward_not_adjoint

MODE_RANKS = {
    "nearest": (3, 4, 5),
    "nearest-exact": (3, 4, 5),
    "area": (3, 4, 5),
    "linear": (3,),
    "bilinear": (4,),
    "bicubic": (4,),
    "trilinear": (5,),
    "lanczos": (4,),  # native: antialias=True, align_corners=False, 4-D only
}
ALIGN = ("linear", "bilinear", "bicubic", "trilinear")
NATIVE_AA = ("bilinear", "bicubic", "lanczos")

# scale factors: integers, simple fractions, and arbitrary non-integers
_scales = st.one_of(
    st.sampled_from([0.5, 1.0, 2.0, 3.0, 0.25, 1.5, 0.75, 4.0]),
    st.floats(min_value=0.3, max_value=3.5, allow_nan=False, allow_infinity=False).map(lambda v: round(v, 3)),
)


@st.composite
def configs(draw):
    mode = draw(st.sampled_from(sorted(MODE_RANKS)))
    rank = draw(st.sampled_from(MODE_RANKS[mode]))
    nd = rank - 2
    in_spatial = tuple(draw(st.integers(1, 20 if nd < 3 else 9)) for _ in range(nd))
    kw = {"mode": mode}
    if draw(st.booleans()):
        sizes = tuple(draw(st.integers(1, 20 if nd < 3 else 9)) for _ in range(nd))
        kw["size"] = sizes if nd > 1 or draw(st.booleans()) else sizes[0]
    else:
        sf = tuple(draw(_scales) for _ in range(nd))
        kw["scale_factor"] = sf if nd > 1 or draw(st.booleans()) else sf[0]
        rec = draw(st.sampled_from([None, True, False]))
        if rec is not None:
            kw["recompute_scale_factor"] = rec
    if mode == "lanczos":
        kw["antialias"] = True
        if draw(st.booleans()):
            kw["align_corners"] = False
    else:
        if mode in ALIGN:
            ac = draw(st.sampled_from([None, False, True]))
            if ac is not None:
                kw["align_corners"] = ac
        if mode in NATIVE_AA and draw(st.booleans()):
            kw["antialias"] = True
    layouts = ["contiguous", "noncontig", "expanded"] + (["channels_last"] if rank > 3 else [])
    layout = draw(st.sampled_from(layouts))
    s = Sample(mode, rank, in_spatial, kw, layout, batch=draw(st.integers(1, 2)), channels=draw(st.integers(1, 3)))
    dtype = draw(st.sampled_from([torch.float64, torch.float32]))
    return s, dtype, draw(st.integers(0, 2**16))


def _swap_hw(kw):
    kw = dict(kw)
    for k in ("size", "scale_factor"):
        if isinstance(kw.get(k), tuple):
            kw[k] = kw[k][::-1]
    return kw


def native_forward(x, kw):
    """native F.interpolate, except for its CPU antialias bug: with an output width of 1 every
    output row gets the first row's value (e.g. [0, 1] -> size (3, 1) gives [0, 0, 0]). There
    the reference is native on the transposed problem, which it computes correctly."""
    y = native(x, **kw)
    if kw.get("antialias") and x.dim() == 4 and y.shape[-1] == 1 and y.shape[-2] > 1:
        y = y.detach().copy_(native(x.transpose(-1, -2), **_swap_hw(kw)).transpose(-1, -2))  # layout kept
    return y


def _native_accepts(s, x):
    try:
        return native_forward(x, s.kwargs), None
    except Exception as e:  # noqa: BLE001
        return None, e


@settings(max_examples=200, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(configs())
def test_parity_property(cfg):
    s, dtype, seed = cfg
    x = s.make(dtype, seed=seed)
    ref, err = _native_accepts(s, x)
    if err is not None:  # e.g. a scale that gives output size 0
        with pytest.raises(type(err)):
            ours(x, **s.kwargs)
        return
    y = ours(x, **s.kwargs)
    assert y.shape == ref.shape and y.dtype == ref.dtype
    assert y.is_contiguous() == ref.is_contiguous()
    assert y.is_contiguous(memory_format=torch.channels_last) == ref.is_contiguous(memory_format=torch.channels_last)
    assert_close(y, ref, dtype)

    xg = x.detach().clone().requires_grad_(True)
    g = torch.randn(y.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(seed + 1)).to(dtype)
    (gx,) = torch.autograd.grad(ours(xg, **s.kwargs), xg, g)
    if y.numel() == 0:  # area to size 0: native's backward raises, the gradient is 0
        assert not gx.any()
        return
    if native_backward_not_adjoint(s):
        xr = torch.randn(x.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(seed + 2)).to(dtype)
        assert_adjoint(native_forward(xr, s.kwargs), g, xr, gx, dtype)
        return
    (gn,) = torch.autograd.grad(native(xg, **s.kwargs), xg, g)
    assert_close(gx, gn, dtype, atol=TOL[dtype]["atol"] * 4)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "lanczos"])
def test_native_antialias_width1_bug(mode):
    """Found by test_parity_property: native's CPU antialias forward is wrong when the output
    width is 1 (its backward is right). resize_ad is right: it equals native on the transposed
    problem, and its backward equals native's backward."""
    x = torch.arange(2.0, dtype=torch.float64).reshape(1, 1, 2, 1).requires_grad_(True)
    kw = dict(size=(3, 1), mode=mode, antialias=True)
    bad = native(x, **kw)
    assert torch.equal(bad[0, 0, :, 0], bad[0, 0, :1, 0].expand(3))  # native: constant rows
    y = ours(x, **kw)
    assert_close(y, native(x.transpose(-1, -2), size=(1, 3), mode=mode, antialias=True).transpose(-1, -2))
    assert y[0, 0, 0, 0] < y[0, 0, 1, 0] < y[0, 0, 2, 0]
    g = torch.randn(y.shape, dtype=torch.float64)
    assert_close(torch.autograd.grad(y, x, g)[0], torch.autograd.grad(bad, x, g)[0])


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
def test_native_float64_nearest_index_precision(mode):
    """Found by a random parity sweep: for float64 input, native's CPU channels-last nearest
    kernel (which native also takes for 2-D outputs with out_h + out_w <= 128, and for
    channels_last inputs with C > 3) computes source indices in float, its other kernels in
    double. Where the exact source position is an integer the float one can fall just below it
    (nearest-exact 14 -> 23: output 11 is at exactly 7; float reads sample 6). resize_ad computes
    float64 indices in double everywhere, as native's 1-D kernel does: the same result in every
    layout and rank."""
    x64 = torch.float64
    differs = 0
    for i in range(2, 30):
        x = torch.arange(float(i), dtype=x64)
        for o in range(2, 60):
            ref = native(x.view(1, 1, i), size=o, mode=mode).view(-1)  # native's double kernel
            assert torch.equal(ours(x.view(1, 1, 1, i), size=(1, o), mode=mode).view(-1), ref), (i, o)
            assert torch.equal(ours(x.view(1, 1, i), size=o, mode=mode).view(-1), ref), (i, o)
            differs += not torch.equal(native(x.view(1, 1, 1, i), size=(1, o), mode=mode).view(-1), ref)
    assert differs > 0  # native's 2-D (float index) kernel disagrees with its 1-D one somewhere
