"""Swapping resize_ad into an existing model: the Upsample layer, patch(), torch.export, and the
U-Net training example."""
import copy
import importlib
import importlib.util
import io
import os
import pickle

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode

import resize_ad

NATIVE_INTERPOLATE = F.interpolate  # captured before any test patches
_patch_mod = importlib.import_module("resize_ad.patch")
_HAS_NATIVE_LANCZOS = hasattr(torch._C._nn, "_upsample_lanczos2d_aa")
_NATIVE_OPS = ("upsample", "adaptive_avg_pool", "adaptive_max_pool", "lanczos")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(autouse=True)
def _always_unpatch():
    assert F.interpolate is NATIVE_INTERPOLATE, "a previous test left F.interpolate patched"
    yield
    resize_ad.unpatch()


class OpLog(TorchDispatchMode):
    """Names of the aten / custom ops that run inside the block."""

    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(func.overloadpacket.__name__)
        return func(*args, **(kwargs or {}))

    def native(self):
        return sorted({op for op in self.ops if any(n in op for n in _NATIVE_OPS)})


def _run_fwd_bwd_bwd(fn, x):
    """Forward, backward and double backward of fn at x, all inside the caller's OpLog."""
    x = x.detach().requires_grad_(True)
    y = fn(x)
    g = torch.randn(y.shape, generator=torch.Generator().manual_seed(0), dtype=y.dtype).requires_grad_(True)
    (gx,) = torch.autograd.grad(y, x, g, create_graph=True)
    (gg,) = torch.autograd.grad(gx.pow(2).sum(), g)
    return y, gx, gg


# ================================================================== Upsample

UPSAMPLE_ARGS = [
    dict(scale_factor=2),
    dict(scale_factor=2.0, mode="nearest"),
    dict(size=(5, 7), mode="bilinear"),
    dict(size=6, mode="bicubic", align_corners=True),
    dict(scale_factor=(1.5, 0.5), mode="bilinear", align_corners=False),
    dict(scale_factor=0.6, mode="area"),
    dict(scale_factor=1.7, mode="nearest-exact", recompute_scale_factor=True),
    dict(size=9, mode="bilinear", align_corners=True),  # UpsamplingBilinear2d's configuration
]


@pytest.mark.parametrize("kw", UPSAMPLE_ARGS, ids=str)
def test_upsample_matches_nn_upsample(kw):
    ours, ref = resize_ad.Upsample(**kw), nn.Upsample(**kw)
    for attr in ("name", "size", "scale_factor", "mode", "align_corners", "recompute_scale_factor"):
        assert getattr(ours, attr) == getattr(ref, attr), attr
    assert ours.antialias is False
    x = torch.randn(2, 3, 8, 10, dtype=torch.float64, requires_grad=True)
    y, yr = ours(x), ref(x)
    torch.testing.assert_close(y, yr)
    g = torch.randn_like(y)
    torch.testing.assert_close(torch.autograd.grad(y, x, g)[0], torch.autograd.grad(yr, x, g)[0])
    if kw.get("align_corners") is None:
        assert repr(ours) == repr(ref)


def test_upsample_rank_and_layout():
    for shape, mode in [((2, 3, 9), "linear"), ((2, 3, 5, 6, 4), "trilinear"), ((2, 3, 5, 6, 4), "nearest")]:
        x = torch.randn(shape, dtype=torch.float64)
        torch.testing.assert_close(resize_ad.Upsample(scale_factor=2, mode=mode)(x),
                                   nn.Upsample(scale_factor=2, mode=mode)(x))
    x = torch.randn(2, 4, 8, 8).contiguous(memory_format=torch.channels_last)
    y = resize_ad.Upsample(scale_factor=2, mode="bilinear")(x)
    assert y.is_contiguous(memory_format=torch.channels_last)


def test_upsample_extras():
    up = resize_ad.Upsample(size=(5, 6), mode="bicubic", antialias=True)
    assert repr(up) == "Upsample(size=(5, 6), mode='bicubic', antialias=True)"
    x = torch.randn(1, 2, 16, 16, dtype=torch.float64)
    torch.testing.assert_close(up(x), F.interpolate(x, size=(5, 6), mode="bicubic", antialias=True))
    for mode in resize_ad.FILTER_MODES:
        up = resize_ad.Upsample(scale_factor=0.5, mode=mode, antialias=True)
        torch.testing.assert_close(up(x), resize_ad.interpolate(x, scale_factor=0.5, mode=mode, antialias=True))
    assert "align_corners=True" in repr(resize_ad.Upsample(scale_factor=2, mode="bilinear", align_corners=True))
    with pytest.raises(ValueError):  # nn.Upsample's errors, at forward as there
        resize_ad.Upsample(scale_factor=2, mode="nearest", align_corners=True)(x)
    with pytest.raises(NotImplementedError):
        resize_ad.Upsample(scale_factor=2, mode="no-such-mode")(x)


def test_upsample_is_parameterless_subclass():
    up = resize_ad.Upsample(scale_factor=2, mode="bilinear")
    assert isinstance(up, nn.Upsample)  # code that looks for nn.Upsample layers still finds it
    assert list(up.parameters()) == [] and list(up.buffers()) == [] and up.state_dict() == {}


def test_upsample_deepcopy_and_pickle():
    up = resize_ad.Upsample(scale_factor=(2.0, 1.5), mode="bicubic", align_corners=True, antialias=True)
    for clone in (copy.deepcopy(up), pickle.loads(pickle.dumps(up))):
        assert type(clone) is resize_ad.Upsample and clone is not up
        assert vars(clone).keys() == vars(up).keys()
        for k in ("size", "scale_factor", "mode", "align_corners", "recompute_scale_factor", "antialias"):
            assert getattr(clone, k) == getattr(up, k)
        x = torch.randn(1, 2, 6, 6)
        torch.testing.assert_close(clone(x), up(x))
    # a pickle written before antialias existed loads with antialias=False (as nn.Upsample
    # fills in recompute_scale_factor)
    state = dict(up.__dict__)
    del state["antialias"], state["recompute_scale_factor"]
    old = resize_ad.Upsample.__new__(resize_ad.Upsample)
    old.__setstate__(state)
    assert old.antialias is False and old.recompute_scale_factor is True


class _Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.up = resize_ad.Upsample(scale_factor=2, mode="bilinear")
        self.down = resize_ad.Upsample(size=(7, 9), mode="lanczos", antialias=True)

    def forward(self, x):
        return self.down(self.up(self.conv(x)))


def test_model_save_load_whole_and_state_dict(tmp_path):
    torch.manual_seed(0)
    net, x = _Net(), torch.randn(2, 3, 10, 12)
    ref = net(x)
    path = tmp_path / "net.pt"
    torch.save(net, path)
    loaded = torch.load(path, weights_only=False)
    assert type(loaded.up) is resize_ad.Upsample and loaded.down.antialias is True
    torch.testing.assert_close(loaded(x), ref)
    # state dict round trip (weights_only load: the layer adds no non-tensor state)
    torch.save(net.state_dict(), tmp_path / "sd.pt")
    fresh = _Net()
    fresh.load_state_dict(torch.load(tmp_path / "sd.pt", weights_only=True))
    torch.testing.assert_close(fresh(x), ref)
    assert set(net.state_dict()) == {"conv.weight", "conv.bias"}


def test_upsample_gradcheck():
    up = resize_ad.Upsample(scale_factor=1.5, mode="bicubic", align_corners=False)
    x = torch.randn(1, 2, 4, 5, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(up, (x,))
    assert torch.autograd.gradgradcheck(up, (x,))


# ================================================================== patch()

class _Model(nn.Module):
    """Stock torch layers and a functional call, as third-party code writes them."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 3, 3, padding=1)
        self.up = nn.Upsample(scale_factor=2, mode="bilinear")
        self.up2 = nn.UpsamplingNearest2d(scale_factor=2)
        self.up3 = nn.UpsamplingBilinear2d(size=(11, 13))

    def forward(self, x):
        x = self.up(self.conv(x))
        x = F.interpolate(x, scale_factor=0.5, mode="area")
        x = torch.nn.functional.interpolate(x, size=(9, 9), mode="bicubic", antialias=True)
        return self.up3(self.up2(x))


def test_nn_upsample_module_global_follows_patch():
    # torch/nn/modules/upsampling.py calls F.interpolate through its module global F
    upsampling = importlib.import_module("torch.nn.modules.upsampling")
    assert upsampling.F is F
    with resize_ad.patch():
        assert upsampling.F.interpolate is _patch_mod._patched_interpolate
    assert upsampling.F.interpolate is NATIVE_INTERPOLATE


@pytest.mark.filterwarnings("ignore:`nn.functional.upsample")
def test_patch_runs_no_native_op():
    torch.manual_seed(0)
    model, x = _Model().double(), torch.randn(2, 3, 8, 10, dtype=torch.float64)
    ref = _run_fwd_bwd_bwd(model, x)
    with resize_ad.patch():
        with OpLog() as log:
            out = _run_fwd_bwd_bwd(model, x)
            F.upsample(x, scale_factor=2, mode="nearest")
            F.upsample_bilinear(x, scale_factor=2)
            F.upsample_nearest(x, size=(5, 5))
    assert log.native() == [], log.native()
    assert "resize" in log.ops and "resize_backward" in log.ops
    for a, b in zip(out, ref):
        torch.testing.assert_close(a, b)
    # unpatched: the same code runs native ops again
    with OpLog() as log:
        _run_fwd_bwd_bwd(model, x)
    assert log.native() and "resize" not in log.ops


def test_patch_plain_call_idempotent_and_exact_restore():
    assert not resize_ad.is_patched()
    ctx = resize_ad.patch()
    resize_ad.patch()
    assert resize_ad.is_patched() and F.interpolate is _patch_mod._patched_interpolate
    x = torch.randn(1, 2, 6, 6)
    with OpLog() as log:
        nn.Upsample(scale_factor=2, mode="bilinear")(x)
    assert log.native() == [] and "resize" in log.ops
    resize_ad.unpatch()
    assert F.interpolate is NATIVE_INTERPOLATE and not resize_ad.is_patched()
    resize_ad.unpatch()  # idempotent
    assert F.interpolate is NATIVE_INTERPOLATE
    with OpLog() as log:
        nn.Upsample(scale_factor=2, mode="bilinear")(x)
    assert log.native() == ["upsample_bilinear2d"]
    del ctx


def test_patch_context_manager_nesting_and_exceptions():
    with resize_ad.patch() as p:
        assert resize_ad.is_patched()
        with resize_ad.patch():
            pass
        assert resize_ad.is_patched(), "an inner block must not undo an outer one"
        assert "active=True" in repr(p)
    assert F.interpolate is NATIVE_INTERPOLATE
    with pytest.raises(KeyError):
        with resize_ad.patch():
            raise KeyError("boom")
    assert F.interpolate is NATIVE_INTERPOLATE
    # a with-block inside a plain patch() leaves it patched
    resize_ad.patch()
    with resize_ad.patch():
        pass
    assert resize_ad.is_patched()


def _outcome(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e), str(e)
    return None, None


# Calls that resize_ad does not answer under the patch: they reach the original function, so
# they fail (or run) exactly as native, message included.
DELEGATED = [
    ((1, 2, 6, 6), dict(size=3, mode="no-such-mode")),
    ((1, 2, 6, 6), dict(size=3, mode="box")),            # a resize_ad-only mode
    ((1, 2, 6, 6), dict(size=3, mode="cubic")),
    ((1, 2, 6, 6), dict(size=3, mode="gaussian", antialias=True)),
    ((1, 2, 6, 6), dict(size=3, mode="lanczos")),        # native: lanczos requires antialias
    ((1, 2, 6, 6), dict(size=3, mode="lanczos", antialias=True, align_corners=True)),
    ((1, 2, 6), dict(size=3, mode="linear", antialias=True)),  # resize_ad allows, native not
    ((1, 2, 4, 4, 4), dict(size=3, mode="trilinear", antialias=True)),
    ((1, 2, 6, 6), dict(size=3, mode="nearest", antialias=True)),
    ((1, 2, 6, 6), dict(size=3, mode=None)),
]


@pytest.mark.parametrize("shape,kw", DELEGATED + [(None, dict(size=3, mode="bilinear"))], ids=str)
def test_patch_unknown_modes_error_exactly_as_native(shape, kw):
    x = torch.randn(shape) if shape is not None else [[1.0, 2.0]]  # None: not a tensor
    native = _outcome(lambda: NATIVE_INTERPOLATE(x, **kw))
    with resize_ad.patch():
        with OpLog() as log:
            patched = _outcome(lambda: F.interpolate(x, **kw))
    assert native[0] is not None, "expected native to reject this call"
    assert patched == native
    assert "resize" not in log.ops


# Bad calls with native modes: resize_ad answers them, with native's exception types.
NATIVE_MODE_ERRORS = [
    ((1, 2, 6, 6), dict(mode="bilinear")),
    ((1, 2, 6, 6), dict(size=3, scale_factor=2, mode="bilinear")),
    ((1, 2, 6, 6), dict(size=(3, 3, 3), mode="bilinear")),
    ((1, 2, 6, 6), dict(scale_factor=(2, 2, 2), mode="nearest")),
    ((1, 2, 6, 6), dict(size=3, mode="nearest", align_corners=True)),
    ((1, 2, 6, 6), dict(size=3, mode="linear")),
    ((1, 2, 6, 6), dict(size=3, mode="trilinear")),
    ((1, 2, 6), dict(size=3, mode="bicubic")),
    ((1, 2, 6, 6), dict(size=0, mode="bilinear")),
    ((1, 2, 6, 6), dict(size=3.5, mode="nearest")),
    ((1, 2, 6, 6), dict(size=3, mode="bilinear", recompute_scale_factor=True)),
    ((2, 3), dict(size=3, mode="nearest")),
    ((1, 2, 6, 6), dict(scale_factor=float("inf"), mode="nearest")),
]


@pytest.mark.parametrize("shape,kw", NATIVE_MODE_ERRORS, ids=str)
def test_patch_native_mode_errors_same_type(shape, kw):
    x = torch.randn(shape)
    native = _outcome(lambda: NATIVE_INTERPOLATE(x, **kw))
    with resize_ad.patch():
        patched = _outcome(lambda: F.interpolate(x, **kw))
    assert native[0] is not None and patched[0] is native[0], (native, patched)


def test_patch_dtypes_as_native():
    x = torch.randint(0, 256, (1, 3, 9, 11), dtype=torch.uint8)
    with resize_ad.patch():
        with OpLog() as log:
            y = F.interpolate(x, size=(14, 5), mode="bicubic", antialias=True)
            z = nn.Upsample(scale_factor=2, mode="nearest")(x)
        assert log.native() == []
        with pytest.raises(NotImplementedError):
            F.interpolate(x.int(), scale_factor=2)
        with pytest.raises(NotImplementedError):
            F.interpolate(x, scale_factor=0.5, mode="area")
    assert torch.equal(y, F.interpolate(x, size=(14, 5), mode="bicubic", antialias=True))
    assert torch.equal(z, F.interpolate(x, scale_factor=2, mode="nearest"))


@pytest.mark.skipif(not _HAS_NATIVE_LANCZOS, reason="this torch has no native lanczos mode")
def test_patch_routes_native_lanczos():
    x = torch.randn(2, 3, 16, 20, dtype=torch.float64)
    ref = F.interpolate(x, size=(7, 9), mode="lanczos", antialias=True)
    with resize_ad.patch():
        with OpLog() as log:
            y = F.interpolate(x, size=(7, 9), mode="lanczos", antialias=True)
    assert log.native() == [] and "resize" in log.ops
    torch.testing.assert_close(y, ref)


def test_patch_keeps_torch_function_overrides():
    class Sub(torch.Tensor):
        pass

    x = torch.randn(1, 2, 5, 5).as_subclass(Sub)
    with resize_ad.patch():
        with OpLog() as log:
            y = F.interpolate(x, scale_factor=2, mode="bilinear")
        assert type(y) is Sub and "resize" in log.ops
        with torch.device("cpu"):  # a TorchFunctionMode
            assert F.interpolate(torch.randn(1, 1, 3, 3), size=4, mode="bicubic").shape == (1, 1, 4, 4)


def test_patch_under_compile_fx_and_export():
    model = _Model()
    x = torch.randn(2, 3, 8, 10)
    with resize_ad.patch():
        ref = model(x)
        torch._dynamo.reset()
        out = torch.compile(model, backend="aot_eager", fullgraph=True)(x)
        torch.testing.assert_close(out, ref)
        ep = torch.export.export(model, (x,))
        gm = torch.fx.symbolic_trace(lambda t: F.interpolate(t, scale_factor=2, mode="bilinear"))
    targets = [str(n.target) for n in ep.graph.nodes if n.op == "call_function"]
    assert "resize_ad.resize.default" in targets
    assert not [t for t in targets if any(n in t for n in _NATIVE_OPS)], targets
    torch.testing.assert_close(ep.module()(x), ref)
    # the FX graph recorded the patched function: it runs resize_ad while patched, and the
    # native function after unpatch (as every holder of the patched function does)
    with resize_ad.patch(), OpLog() as log:
        y = gm(x)
    assert "resize" in log.ops and log.native() == []
    with OpLog() as log:
        torch.testing.assert_close(gm(x), y)
    assert "resize" not in log.ops and log.native() == ["upsample_bilinear2d"]


# ================================================================== torch.export

class _ExportNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.up = resize_ad.Upsample(scale_factor=2, mode="bilinear")

    def forward(self, x):
        a = resize_ad.interpolate(self.conv(x), scale_factor=0.5, mode="area")
        b = self.up(a)
        c = resize_ad.interpolate(b, size=(x.shape[-2], x.shape[-1]), mode="bicubic", antialias=True)
        return c + resize_ad.interpolate(x.mean(1, keepdim=True), size=(x.shape[-2], x.shape[-1]), mode="nearest-exact")


def _check_graph(ep):
    code = ep.graph_module.code
    assert "torch.ops.resize_ad.resize.default" in code
    assert not any(n in code for n in _NATIVE_OPS), code
    targets = [n.target for n in ep.graph.nodes if n.op == "call_function"]
    assert targets.count(torch.ops.resize_ad.resize.default) == 4


def test_export_holds_resize_ad_ops_and_matches_eager(tmp_path):
    torch.manual_seed(0)
    net, x = _ExportNet(), torch.randn(2, 3, 16, 20)
    ep = torch.export.export(net, (x,))
    _check_graph(ep)
    torch.testing.assert_close(ep.module()(x), net(x))
    _check_graph(ep.run_decompositions())  # custom ops survive decomposition
    torch.export.save(ep, tmp_path / "net.pt2")
    loaded = torch.export.load(tmp_path / "net.pt2")
    torch.testing.assert_close(loaded.module()(x), net(x))


def test_export_dynamic_shapes():
    torch.manual_seed(0)
    net = _ExportNet()
    batch, h, w = torch.export.Dim("batch", max=64), torch.export.Dim("h", min=2, max=256), torch.export.Dim("w", min=2, max=256)
    x = torch.randn(2, 3, 16, 20)
    ep = torch.export.export(net, (x,), dynamic_shapes={"x": {0: batch, 2: 2 * h, 3: 2 * w}})
    _check_graph(ep)
    for shape in [(2, 3, 16, 20), (5, 3, 24, 10), (1, 3, 4, 6)]:
        xi = torch.randn(shape)
        torch.testing.assert_close(ep.module()(xi), net(xi))


def test_export_uint8():
    class M(nn.Module):
        def forward(self, x):
            return resize_ad.interpolate(x, size=(7, 9), mode="bilinear", antialias=True)

    x = torch.randint(0, 256, (1, 3, 16, 20), dtype=torch.uint8)
    ep = torch.export.export(M(), (x,))
    y = ep.module()(x)
    assert y.dtype == torch.uint8 and torch.equal(y, F.interpolate(x, size=(7, 9), mode="bilinear", antialias=True))


# ================================================================== the example

def test_train_unet_example_reduced():
    spec = importlib.util.spec_from_file_location("train_unet", os.path.join(ROOT, "examples", "train_unet.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    r = mod.main(["--steps", "3", "--batch", "8", "--log-every", "1"])
    assert r["loss_last"] < r["loss_first"]
    assert r["grad_diff_f64"] <= 1e-12 * r["grad_scale"]
    assert r["grad_diff_f32"] <= 1e-5 * r["grad_scale"]
    assert r["grads_finite"] and r["penalty"] > 0
    assert r["penalty_grad_diff_f64"] <= 1e-12 * r["penalty_grad_scale"]
    assert r["penalty_grad_diff_f32"] <= 1e-4 * r["penalty_grad_scale"]


# resize_ad.interpolate's common call is checked and run in one C call (_C._interpolate); it
# must take exactly the calls the Python fast path (functional._fast_call) takes that need no
# autograd, with the same result (nearest's scale factors by native's kernel choice included),
# and leave every other call (NotImplemented) to the Python path and its errors.
def _fast_path_calls():
    x = torch.randn(1, 2, 9, 12)
    x1, x3 = torch.randn(2, 3, 10), torch.randn(1, 1, 4, 5, 6)
    xcl = x.contiguous(memory_format=torch.channels_last)
    calls = []
    for t in (x, xcl, x.double(), x.half(), (x * 50).to(torch.uint8), x[:, :, :0], nn.Parameter(x.clone()),
              x.clone().requires_grad_(), x1, x3, x[0]):
        calls.append((t, dict(size=5, mode="bilinear")))
    for size in (5, (5, 7), [5, 7], (5,), (5, 7, 3), (0, 7), (-1, 7), (5, True), (5.0, 7), 2**62, 2**62 - 1,
                 2**80, torch.tensor(5), (5, torch.tensor(7))):
        calls.append((x, dict(size=size, mode="bilinear")))
    for sf in (2, 2.0, 0.5, (2, 3), [1.5, 0.75], (2,), True, (2, True), 0.01, float("inf"), float("nan"),
               -2.0, 1e300, 10**400, (2, 10**400)):
        for mode in ("bilinear", "nearest", "nearest-exact", "area", "bicubic"):
            calls.append((x, dict(scale_factor=sf, mode=mode)))
    # nearest's scales: native's channels-last kernel (C > 3 channels_last, small 2-D outputs)
    # takes none where an axis is copied or doubled
    x4 = torch.randn(1, 4, 9, 12)
    for t in (x4.contiguous(memory_format=torch.channels_last), x4, torch.randn(1, 2, 70, 70),
              torch.randn(1, 4, 70, 70).contiguous(memory_format=torch.channels_last),
              torch.randn(1, 4, 5, 6, 7).contiguous(memory_format=torch.channels_last_3d), x3, x1,
              x.half(), x.bfloat16(), xcl.bfloat16()):
        for sf in (1.0, 2.0, (2.0, 1.0), (1.01, 2.01), 0.5, 2.5):
            if isinstance(sf, tuple) and t.dim() != 4:
                continue
            calls.append((t, dict(scale_factor=sf, mode="nearest")))
    calls.append((x, dict(size=5, scale_factor=2, mode="bilinear")))
    calls.append((x, dict(mode="bilinear")))
    for mode in resize_ad.MODES + ("linear", "trilinear", "bogus", 3):
        for ac in (None, True, False, 1):
            for t in (x1, x, x3):
                calls.append((t, dict(size=4, mode=mode, align_corners=ac)))
    # uint8 and antialias where the mode takes them at that rank, and where it does not
    u8 = lambda t: (t * 50).abs().to(torch.uint8)  # noqa: E731
    for mode in resize_ad.MODES:
        for t in (x1, x, x3, xcl, x1.double()):
            for aa in (False, True):
                calls.append((u8(t), dict(size=4, mode=mode, antialias=aa)))
                calls.append((t, dict(size=4, mode=mode, antialias=aa)))
                calls.append((t.clone().requires_grad_(), dict(size=(7,) * (t.dim() - 2), mode=mode, antialias=aa)))
    for sf in (1.0, 2.0, 0.5):
        calls.append((u8(x4).contiguous(memory_format=torch.channels_last), dict(scale_factor=sf, mode="nearest")))
        calls.append((u8(x), dict(scale_factor=sf, mode="nearest-exact")))
        calls.append((u8(x), dict(scale_factor=sf, mode="bilinear", antialias=True)))
    for extra in (dict(antialias=True), dict(antialias=0), dict(recompute_scale_factor=True),
                  dict(recompute_scale_factor=False)):
        calls.append((x, dict(size=4, mode="bilinear", **extra)))
    return calls


def test_c_fast_path_takes_what_the_python_one_takes():
    from resize_ad import _C
    from resize_ad.functional import _fast_call
    taken = 0
    for t, kw in _fast_path_calls():
        args = (t, kw.get("size"), kw.get("scale_factor"), kw.get("mode", "nearest"), kw.get("align_corners"),
                kw.get("recompute_scale_factor"), kw.get("antialias", False))
        try:
            want = _fast_call(*args)
        except Exception as e:  # the Python fast path raising: the C one must not have taken it
            want = e
        try:
            got = _C._interpolate(*args)
        except Exception as e:  # the op's own error (sizes it cannot allocate): the same as Python's
            assert isinstance(want, Exception) and type(e) is type(want) and str(e) == str(want), (t.shape, kw)
            continue
        if want is None or isinstance(want, Exception):
            assert got is NotImplemented, (t.shape, kw)
            continue
        assert got is not NotImplemented, (t.shape, t.dtype, kw)
        assert torch.equal(got, want) and got.stride() == want.stride(), (t.shape, kw)
        if t.requires_grad:  # a graph from the C++ autograd Functions: the same gradient
            assert got.grad_fn is not None and want.grad_fn is not None, (t.shape, kw)
            g = torch.randn_like(got)
            assert torch.equal(torch.autograd.grad(got, t, g)[0], torch.autograd.grad(want, t, g)[0]), (t.shape, kw)
        taken += 1
    assert taken > 50
    with torch.no_grad():  # a tensor that requires grad, where grad mode is off
        t = torch.randn(1, 1, 6, 6, requires_grad=True)
        assert torch.equal(_C._interpolate(t, 3, None, "bilinear", None, None, False),
                           _fast_call(t, 3, None, "bilinear", None, None, False))
    class Passthrough(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    t = torch.randn(1, 1, 6, 6)
    with Passthrough():
        assert _C._interpolate(t, 3, None, "bilinear", None, None, False) is NotImplemented
    assert torch.func.vmap(lambda v: resize_ad.interpolate(v, size=3, mode="bilinear"))(
        torch.randn(2, 1, 1, 6, 6)).shape == (2, 1, 1, 3, 3)
