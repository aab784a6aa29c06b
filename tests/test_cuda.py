"""CUDA: parity with native CUDA, CPU-vs-CUDA agreement, determinism, CUDA graph capture, a
second device. Skipped without a GPU (tests/test_cuda_emulated.py runs the same kernels' code on
the CPU)."""
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


@pytest.mark.parametrize("s", ALL, ids=lambda s: s.id)
@pytest.mark.parametrize("name", ["separable", "product_gather"])
def test_executors_match_native_cuda(s, name):
    """Each CUDA executor forced (the cost model picks one per call), forward and backward."""
    from resize_ad._testing import executor
    x = s.make(torch.float32, "cuda", requires_grad=True)
    with executor(name):
        y = ours(x, **s.kwargs)
        g = torch.randn(y.shape, device="cuda")
        (gx,) = torch.autograd.grad(y, x, g)
    assert_close(y, _reference(s, x.detach()), torch.float32)
    if native_backward_not_adjoint(s, x):
        return
    xr = x.detach().clone().requires_grad_(True)
    (gr,) = torch.autograd.grad(native(xr, **s.kwargs), xr, g)
    assert_close(gx, gr, torch.float32, atol=TOL[torch.float32]["atol"] * 4)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("s", ALL, ids=lambda s: s.id)
def test_half_backward_matches_native_cuda(s, dtype):
    """Half types: ours accumulates in float32 and rounds once; native's backward accumulates
    with atomics in the half type, so the reference is native's float32 backward of the same
    values, and the tolerance the half type's."""
    x = s.make(dtype, "cuda", requires_grad=True)
    y = ours(x, **s.kwargs)
    g = torch.randn(y.shape, device="cuda").to(dtype)
    (gx,) = torch.autograd.grad(y, x, g)
    assert gx.dtype == dtype
    xr = x.detach().float().requires_grad_(True)
    (gr,) = torch.autograd.grad(native(xr, **s.kwargs), xr, g.float())
    if native_backward_not_adjoint(s, x):
        return
    assert_close(gx.float(), gr, dtype)


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
    # the same kernels run outside deterministic mode: bit for bit the same gradient
    again = torch.autograd.grad(resize_ad.interpolate(x, size=size, mode=mode, **kw), x, g)[0]
    assert torch.equal(runs[0], again)


def test_deterministic_mode_where_native_refuses():
    """Native's CUDA bilinear backward accumulates with atomics: under deterministic mode it
    raises (or falls back to a deterministic path); ours is a gather and runs unchanged."""
    x = torch.randn(2, 3, 40, 50, device="cuda", requires_grad=True)
    g = torch.randn(2, 3, 97, 31, device="cuda")
    prev = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)
    try:
        (ours_g,) = torch.autograd.grad(resize_ad.interpolate(x, size=(97, 31), mode="bilinear"), x, g)
        try:
            (nat_g,) = torch.autograd.grad(F.interpolate(x, size=(97, 31), mode="bilinear"), x, g)
        except RuntimeError as e:
            assert "deterministic" in str(e)
            nat_g = None
    finally:
        torch.use_deterministic_algorithms(prev)
    if nat_g is None:
        (nat_g,) = torch.autograd.grad(F.interpolate(x, size=(97, 31), mode="bilinear"), x, g)
    assert_close(ours_g, nat_g, torch.float32, atol=TOL[torch.float32]["atol"] * 4)


GRAPH_CASES = [
    ((2, 3, 31, 45), dict(size=(64, 20), mode="bilinear"), False),
    ((2, 5, 17, 19), dict(size=(40, 9), mode="bicubic", align_corners=True), True),
    ((1, 3, 64, 48), dict(size=(20, 17), mode="bilinear", antialias=True), False),
    ((2, 3, 30, 31), dict(size=(7, 90), mode="area"), True),
    ((2, 2, 9, 10, 11), dict(size=(17, 4, 23), mode="trilinear"), False),
    ((1, 4, 20, 21), dict(size=(41, 8), mode="nearest"), True),
]


@pytest.mark.parametrize("name", ["auto", "separable", "product_gather"])
@pytest.mark.parametrize("shape,kw,cl", GRAPH_CASES, ids=lambda v: str(v))
def test_cuda_graph_capture_and_replay(shape, kw, cl, name):
    """Forward and backward captured in one CUDA graph replay what eager computes on new data:
    the tables are built on the device inside the graph, from no host buffer."""
    from resize_ad._testing import executor
    fmt = torch.channels_last if cl else torch.contiguous_format
    with executor(name):
        static_x = torch.randn(shape, device="cuda").contiguous(memory_format=fmt).requires_grad_(True)
        out_shape = native(static_x.detach(), **kw).shape
        static_g = torch.randn(out_shape, device="cuda")
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(2):
                torch.autograd.grad(ours(static_x, **kw), static_x, static_g)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            static_y = ours(static_x, **kw)
            (static_gx,) = torch.autograd.grad(static_y, static_x, static_g)
        for _ in range(3):
            x = torch.randn(shape, device="cuda").contiguous(memory_format=fmt)
            gy = torch.randn(out_shape, device="cuda")
            with torch.no_grad():
                static_x.copy_(x)
                static_g.copy_(gy)
            junk = [torch.randn(1 << 18, device="cuda") for _ in range(8)]  # reuse freed blocks
            graph.replay()
            xr = x.requires_grad_(True)
            yr = ours(xr, **kw)
            (gr,) = torch.autograd.grad(yr, xr, gy)
            assert torch.equal(static_y, yr)
            assert torch.equal(static_gx, gr)
            del junk


U8_CASES = [
    ((1, 3, 48, 64), dict(size=(22, 29), mode="bilinear", antialias=True), True),
    ((2, 3, 37, 45), dict(size=(11, 70), mode="bicubic"), False),
    ((1, 3, 2, 3000), dict(size=(2, 25), mode="bilinear", antialias=True), False),
    ((1, 4, 20, 21), dict(size=(41, 8), mode="nearest"), True),
]


@pytest.mark.parametrize("shape,kw,cl", U8_CASES, ids=lambda v: str(v))
def test_uint8_matches_native_cpu_and_captures(shape, kw, cl):
    """uint8 on the GPU equals native's CPU uint8 kernels bit for bit (the fixed-point tables are
    built on the device), and a captured graph replays it on new data."""
    fmt = torch.channels_last if cl else torch.contiguous_format
    x = torch.randint(0, 256, shape, dtype=torch.uint8).contiguous(memory_format=fmt)
    ref = native(x, **kw)
    y = ours(x.cuda(), **kw)
    assert y.dtype == torch.uint8 and torch.equal(y.cpu(), ref)
    static_x = x.cuda()
    ours(static_x, **kw)  # warm-up: host tables cached before the capture
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_y = ours(static_x, **kw)
    x2 = torch.randint(0, 256, shape, dtype=torch.uint8).contiguous(memory_format=fmt)
    static_x.copy_(x2.cuda())
    graph.replay()
    assert torch.equal(static_y.cpu(), native(x2, **kw))


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two GPUs")
@pytest.mark.parametrize("mode,kw", [("bilinear", {}), ("bicubic", {"align_corners": True}),
                                     ("bilinear", {"antialias": True}), ("area", {}), ("nearest", {})])
def test_second_device(mode, kw):
    """Inputs on cuda:1 while cuda:0 is current: tables, outputs and kernels on the input's device."""
    assert torch.cuda.current_device() == 0
    x = torch.randn(2, 3, 20, 23, device="cuda:1", requires_grad=True)
    y = ours(x, size=(31, 9), mode=mode, **kw)
    assert y.device == x.device
    g = torch.randn_like(y)
    (gx,) = torch.autograd.grad(y, x, g)
    assert gx.device == x.device
    xr = x.detach().requires_grad_(True)
    yr = native(xr, size=(31, 9), mode=mode, **kw)
    (gr,) = torch.autograd.grad(yr, xr, g)
    assert_close(y, yr, torch.float32)
    assert_close(gx, gr, torch.float32, atol=TOL[torch.float32]["atol"] * 4)


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
