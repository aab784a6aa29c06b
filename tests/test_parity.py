"""Parity with torch's native kernels: forward, backward, double backward, memory format."""
import pytest
import torch

from helpers import TOL, assert_adjoint, assert_close, native, ours
from samples import aa_samples, native_backward_not_adjoint, sample_inputs

ALL = list(sample_inputs())
AA = list(aa_samples())
FLOATS = [torch.float64, torch.float32, torch.float16, torch.bfloat16]


def _native_supports(s, dtype, device):
    # native CPU antialias has no float16/bfloat16 kernels (pytorch #175489)
    return not (s.kwargs.get("antialias") and device == "cpu" and dtype in (torch.float16, torch.bfloat16))


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("s", ALL + AA, ids=lambda s: s.id)
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
@pytest.mark.parametrize("s", ALL + AA, ids=lambda s: s.id)
def test_backward(s, dtype, device):
    x = s.make(dtype, device, requires_grad=True)
    y = ours(x, **s.kwargs)
    g = torch.randn(y.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(1)).to(dtype=dtype, device=device)
    (gx,) = torch.autograd.grad(y, x, g)
    if native_backward_not_adjoint(s):
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
    if native_backward_not_adjoint(s):
        # ours equals our forward (the exact derivative of a linear backward)
        assert_close(results[0], ours(v, **s.kwargs), dtype)
        return
    assert_close(results[0], results[1], dtype)
