"""Parity with torch's native kernels: forward, backward, double backward, memory format."""
import pytest
import torch

from helpers import TOL, assert_adjoint, assert_close, native, ours
from samples import aa_samples, native_backward_not_adjoint, sample_inputs

ALL = list(sample_inputs())
AA = list(aa_samples())
# One channels_last image whose result native allocates contiguous (samples.py "hwc").
HWC = list(sample_inputs(layouts=("hwc",))) + list(aa_samples(layouts=("hwc",)))
FLOATS = [torch.float64, torch.float32, torch.float16, torch.bfloat16]


def _native_supports(s, dtype, device):
    # native CPU antialias has no float16/bfloat16 kernels (pytorch #175489)
    return not (s.kwargs.get("antialias") and device == "cpu" and dtype in (torch.float16, torch.bfloat16))


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("s", ALL + AA + HWC, ids=lambda s: s.id)
def test_forward(s, dtype, device):
    x = s.make(dtype, device)
    y = ours(x, **s.kwargs)
    if _native_supports(s, dtype, device):
        ref = native(x, **s.kwargs)
    else:  # reference: native in float32, rounded once to the half type
        ref = native(x.float(), **s.kwargs).to(dtype)
    assert y.shape == ref.shape and y.dtype == ref.dtype
    assert y.is_contiguous(memory_format=torch.channels_last) == ref.is_contiguous(memory_format=torch.channels_last)
    assert y.is_contiguous() == ref.is_contiguous()
    assert_close(y, ref, dtype)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
@pytest.mark.parametrize("s", ALL + AA + HWC, ids=lambda s: s.id)
def test_backward(s, dtype, device):
    x = s.make(dtype, device, requires_grad=True)
    y = ours(x, **s.kwargs)
    g = torch.randn(y.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(1)).to(dtype=dtype, device=device)
    (gx,) = torch.autograd.grad(y, x, g)
    if native_backward_not_adjoint(s, x):
        # native's backward is not its forward's adjoint here; ours must be
        xr = torch.randn(x.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(2)).to(dtype=dtype, device=device)
        assert_adjoint(native(xr, **s.kwargs), g, xr, gx, dtype)
        return
    xn = x.detach().clone().requires_grad_(True)
    (gr,) = torch.autograd.grad(native(xn, **s.kwargs), xn, g)
    assert gx.shape == gr.shape
    assert_close(gx, gr, dtype, atol=TOL[dtype]["atol"] * 4)


@pytest.mark.parametrize("s", [s for s in ALL + AA if s.layout in ("contiguous", "channels_last")], ids=lambda s: s.id)
def test_double_backward(s, device):
    """d/dg <backward(g), v> = forward(v), against native's own double backward."""
    dtype = torch.float64
    x = s.make(dtype, device, requires_grad=True)
    v = torch.randn(x.shape, dtype=dtype, device=device)
    results = []
    for f in (ours, native):
        y = f(x, **s.kwargs)
        g = torch.ones_like(y).mul_(0.5).requires_grad_(True)
        (gx,) = torch.autograd.grad(y, x, g, create_graph=True)
        (gg,) = torch.autograd.grad(gx, g, v)
        results.append(gg)
    if native_backward_not_adjoint(s, x):
        # ours equals our forward (the exact derivative of a linear backward)
        assert_close(results[0], ours(v, **s.kwargs), dtype)
        return
    assert_close(results[0], results[1], dtype)


@pytest.mark.parametrize("shape,fmt,sf", [
    ((1, 1, 70, 70), None, (1.01, 2.03)),                   # generic kernel: floor(o * scale)
    ((2, 3, 70, 66), torch.channels_last, (1.01, 1.0)),     # channels_last but C <= 3: generic
    ((1, 4, 70, 70), torch.channels_last, (1.01, 2.01)),    # channels-last kernel: nearest_idx
    ((2, 5, 12, 9), None, (1.05, 2.04)),                    # small output: nearest_idx
    ((1, 4, 9, 10, 7), torch.channels_last_3d, (1.05, 2.04, 1.1)),
    ((1, 3, 9, 10, 7), torch.channels_last_3d, (1.05, 2.04, 1.1)),
    ((1, 2, 35), None, (2.01,)),
])
def test_nearest_follows_native_kernel_choice(shape, fmt, sf, device):
    """Native picks nearest's index rule by kernel (layout, channels, output size): ours follows
    it in the forward, and its backward is the forward's adjoint."""
    x = torch.randn(shape, dtype=torch.float32, device=device)
    if fmt is not None:
        x = x.contiguous(memory_format=fmt)
    kw = dict(scale_factor=sf, mode="nearest")
    y = ours(x, **kw)
    assert torch.equal(y, native(x, **kw))
    # the adjoint identity in float64 (same layout, so the same kernel choice)
    xr = x.detach().double().requires_grad_(True)
    g = torch.randn(y.shape, dtype=torch.float64, device=device)
    (gx,) = torch.autograd.grad(ours(xr, **kw), xr, g)
    xp = torch.randn_like(xr)
    assert xp.stride() == xr.stride()
    torch.testing.assert_close((native(xp, **kw) * g).sum(), (xp * gx).sum())
