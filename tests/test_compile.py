"""opcheck, torch.compile (fullgraph, dynamic shapes), and no native resize op anywhere."""
import pytest
import torch
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode

import resize_ad
from samples import sample_inputs

OPCHECK = [s for s in sample_inputs(layouts=("contiguous", "channels_last"))][::7]


@pytest.mark.parametrize("s", OPCHECK, ids=lambda s: s.id)
def test_opcheck(s):
    x = s.make(torch.float64, requires_grad=True)
    y = resize_ad.interpolate(x.detach(), **s.kwargs)
    mode, ac = s.kwargs["mode"], bool(s.kwargs.get("align_corners", False))
    sf = s.kwargs.get("scale_factor")
    scales = None
    if sf is not None and not s.kwargs.get("recompute_scale_factor") and mode != "area":
        scales = list(sf) if isinstance(sf, tuple) else [sf] * (s.rank - 2)
    out_size = list(y.shape[2:])
    torch.library.opcheck(torch.ops.resize_ad.resize.default, (x, out_size, mode, ac, scales, False))
    g = torch.randn_like(y).requires_grad_(True)
    torch.library.opcheck(torch.ops.resize_ad.resize_backward.default, (g, list(x.shape), mode, ac, scales, False))


class _Net(torch.nn.Module):
    def forward(self, x):
        a = resize_ad.interpolate(x, scale_factor=2, mode="bilinear")
        b = resize_ad.interpolate(a, size=(5, 7), mode="area")
        c = resize_ad.interpolate(b, scale_factor=1.5, mode="bicubic", align_corners=True)
        return resize_ad.interpolate(c, size=(9, 9), mode="nearest-exact") + resize_ad.interpolate(
            x, size=(9, 9), mode="bilinear", antialias=True)


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
@pytest.mark.parametrize("dynamic", [False, True])
def test_compile_fullgraph(backend, dynamic):
    torch._dynamo.reset()
    net = _Net()
    x = torch.randn(2, 3, 8, 10, requires_grad=True)
    ref = net(x)
    (gref,) = torch.autograd.grad(ref.sum(), x)
    cnet = torch.compile(net, backend=backend, fullgraph=True, dynamic=dynamic)
    out = cnet(x)
    (g,) = torch.autograd.grad(out.sum(), x)
    torch.testing.assert_close(out, ref)
    torch.testing.assert_close(g, gref)
    if dynamic:  # a new shape reuses the dynamic graph
        x2 = torch.randn(3, 3, 12, 6, requires_grad=True)
        torch.testing.assert_close(cnet(x2), net(x2))


class _OpLog(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(str(func.overloadpacket.__name__) if hasattr(func, "overloadpacket") else str(func))
        return func(*args, **(kwargs or {}))


_NATIVE = ("upsample", "adaptive_avg_pool", "_upsample", "adaptive_max_pool")


@pytest.mark.parametrize("s", list(sample_inputs(layouts=("contiguous",)))[::3], ids=lambda s: s.id)
def test_no_native_resize_op(s):
    x = s.make(torch.float64, requires_grad=True)
    log = _OpLog()
    with log:
        y = resize_ad.interpolate(x, **s.kwargs)
        g = torch.ones_like(y, requires_grad=True)
        (gx,) = torch.autograd.grad(y, x, g, create_graph=True)
        (gg,) = torch.autograd.grad(gx.sum(), g)
    assert "resize" in log.ops and "resize_backward" in log.ops
    bad = [op for op in log.ops if any(n in op for n in _NATIVE)]
    assert not bad, bad
    # the log catches native ops when they do run
    log2 = _OpLog()
    with log2:
        F.interpolate(x, **s.kwargs)
    assert any(any(n in op for n in _NATIVE) for op in log2.ops)
