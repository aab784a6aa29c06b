"""CUDA: parity with native CUDA, CPU-vs-CUDA agreement, determinism. Skipped without a GPU."""
import pytest
import torch
import torch.nn.functional as F

import resize_ad
from helpers import TOL, assert_close, native, ours
from samples import aa_samples, native_backward_not_adjoint, sample_inputs

pytestmark = pytest.mark.skipif(
    not (torch.cuda.is_available() and resize_ad.has_cuda_kernels()), reason="needs a CUDA device and the CUDA build"
)

ALL = list(sample_inputs()) + list(aa_samples())


def _reference(s, x):
    """Native CUDA (its nearest always floors o * scale; resize_ad follows each device's rule)."""
    return native(x, **s.kwargs)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("s", ALL, ids=lambda s: s.id)
def test_forward_matches_native_cuda(s, dtype):
    x = s.make(dtype, "cuda")
    y = ours(x, **s.kwargs)
    ref = _reference(s, x)
    assert y.shape == ref.shape and y.dtype == ref.dtype and y.device == x.device
    assert y.is_contiguous(memory_format=torch.channels_last) == ref.is_contiguous(memory_format=torch.channels_last)
    assert_close(y, ref, dtype)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
@pytest.mark.parametrize("s", ALL, ids=lambda s: s.id)
def test_backward_matches_native_cuda(s, dtype):
    x = s.make(dtype, "cuda", requires_grad=True)
    y = ours(x, **s.kwargs)
    g = torch.randn(y.shape, dtype=dtype, device="cuda")
    (gx,) = torch.autograd.grad(y, x, g)
    xr = x.detach().clone().requires_grad_(True)
    yr = native(xr, **s.kwargs)
    (gr,) = torch.autograd.grad(yr, xr, g)
    if native_backward_not_adjoint(s, x):
        # ours is the adjoint of its forward: check <F x', g> == <x', B g>
        xp = torch.randn_like(x)
        torch.testing.assert_close((_reference(s, xp).double() * g.double()).sum(), (xp.double() * gx.double()).sum(), **TOL[dtype])
        return
    assert_close(gx, gr, dtype, atol=TOL[dtype]["atol"] * 4)


@pytest.mark.parametrize("s", [s for s in ALL if s.layout in ("contiguous", "channels_last")], ids=lambda s: s.id)
def test_cpu_and_cuda_agree(s):
    x = s.make(torch.float64, "cpu", requires_grad=True)
    xc = x.detach().cuda().requires_grad_(True)
    y, yc = ours(x, **s.kwargs), ours(xc, **s.kwargs)
    assert_close(yc.cpu(), y, torch.float64)
    g = torch.randn_like(y)
    (gx,) = torch.autograd.grad(y, x, g)
    (gxc,) = torch.autograd.grad(yc, xc, g.cuda())
    assert_close(gxc.cpu(), gx, torch.float64)


@pytest.mark.parametrize("mode,kw", [("bilinear", {}), ("bicubic", {}), ("bilinear", {"antialias": True}),
                                     ("nearest", {}), ("area", {})])
def test_backward_bitwise_deterministic(mode, kw):
    x = torch.randn(4, 8, 61, 77, device="cuda", requires_grad=True)
    size = (150, 33)
    g = torch.randn(4, 8, *size, device="cuda")
    prev = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)
    try:
        runs = [torch.autograd.grad(resize_ad.interpolate(x, size=size, mode=mode, **kw), x, g)[0] for _ in range(3)]
    finally:
        torch.use_deterministic_algorithms(prev)
    assert all(torch.equal(runs[0], r) for r in runs[1:])


def test_half_backward_accumulates_in_float32():
    # a 16x downscale backward sums 16 overlapping contributions per input pixel
    x = torch.randn(1, 4, 512, 512, device="cuda", dtype=torch.float16, requires_grad=True)
    y = resize_ad.interpolate(x, size=(32, 32), mode="bilinear", antialias=True)
    g = torch.randn_like(y)
    (gx,) = torch.autograd.grad(y, x, g)
    x64 = x.detach().double().requires_grad_(True)
    (g64,) = torch.autograd.grad(resize_ad.interpolate(x64, size=(32, 32), mode="bilinear", antialias=True), x64, g.double())
    torch.testing.assert_close(gx.double(), g64, atol=2e-3, rtol=2e-3)


def test_empty_batch_and_other_device():
    x = torch.randn(0, 3, 8, 8, device="cuda")
    assert ours(x, size=(4, 5), mode="bilinear").shape == (0, 3, 4, 5)
    if torch.cuda.device_count() > 1:
        x = torch.randn(2, 3, 8, 8, device="cuda:1")
        y = ours(x, size=(5, 11), mode="bicubic")
        assert y.device == x.device
        assert_close(y, native(x, size=(5, 11), mode="bicubic"), torch.float32)


def test_compile_cuda():
    torch._dynamo.reset()
    f = torch.compile(lambda t: resize_ad.interpolate(t, scale_factor=2, mode="bilinear"), fullgraph=True)
    x = torch.randn(2, 3, 16, 16, device="cuda")
    assert_close(f(x), native(x, scale_factor=2, mode="bilinear"), torch.float32)
