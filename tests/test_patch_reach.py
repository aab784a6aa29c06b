"""patch() reaches every caller of aten's upsample ops: code that bound F.interpolate by name
before patch() (torchvision transforms), TorchScript, direct aten calls, and aten's autograd.

The evidence that resize_ad's kernel ran, and no native one, is the override's own counter
(resize_ad._C._aten_override_counts(): calls routed to resize_ad, calls passed to native)."""
import importlib
import sys
import warnings

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode

# Imported BEFORE any patch(): its transforms hold the original interpolate by name.
torchvision = pytest.importorskip("torchvision")
import torchvision.transforms as T  # noqa: E402
import torchvision.transforms.v2 as T2  # noqa: E402

import resize_ad  # noqa: E402
from resize_ad import _C  # noqa: E402

from helpers import TOL  # noqa: E402

NATIVE_INTERPOLATE = F.interpolate  # what by-name importers hold


@pytest.fixture(autouse=True)
def _always_unpatch():
    assert not resize_ad.is_patched()
    yield
    resize_ad.unpatch()


class Count:
    """Calls the aten override routed to resize_ad / passed to native inside the block."""

    def __enter__(self):
        self._r0, self._p0 = _C._aten_override_counts()
        return self

    def __exit__(self, *exc):
        r, p = _C._aten_override_counts()
        self.routed, self.passed = r - self._r0, p - self._p0
        return False


class OpNames(TorchDispatchMode):
    """Names of the ops dispatched inside the block (resize_ad's own ops included), and the
    dtypes of the images aten's upsample ops were given."""

    def __init__(self):
        super().__init__()
        self.names = []
        self.upsampled = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func.overloadpacket.__name__
        self.names.append(name)
        if "upsample" in name and args and isinstance(args[0], torch.Tensor):
            self.upsampled.append(args[0].dtype)
        return func(*args, **(kwargs or {}))


def _overridden(op="upsample_bilinear2d") -> bool:
    dump = torch._C._dispatch_dump(f"aten::{op}")
    active_cpu = [line for line in dump.splitlines() if line.startswith("CPU:")]
    return any("aten_override.cpp" in line for line in active_cpu)


def _images(dtype):
    g = torch.Generator().manual_seed(0)
    x = torch.rand(2, 3, 37, 45, generator=g)
    return (x * 255).round().to(torch.uint8) if dtype == torch.uint8 else x.to(dtype)


MODES = [T.InterpolationMode.BILINEAR, T.InterpolationMode.BICUBIC,
         T.InterpolationMode.NEAREST, T.InterpolationMode.NEAREST_EXACT]


@pytest.mark.parametrize("api", ["v1", "v2"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.uint8], ids=str)
@pytest.mark.parametrize("antialias", [True, False])
@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
@pytest.mark.parametrize("size", [(20, 61), (74, 30)], ids=str)
def test_torchvision_resize_runs_resize_ad(api, dtype, antialias, mode, size):
    tf = (T if api == "v1" else T2).Resize(size, interpolation=mode, antialias=antialias)
    x = _images(dtype)
    ref = tf(x)
    with resize_ad.patch(), Count() as c, OpNames() as ops:
        y = tf(x)
    assert (c.routed, c.passed) == (1, 0)
    assert y.dtype == ref.dtype and y.shape == ref.shape
    assert len(ops.upsampled) == 1
    if dtype == torch.float32:
        torch.testing.assert_close(y, ref, **TOL[torch.float32])
    elif ops.upsampled[0] != torch.uint8 and mode.value in ("bilinear", "bicubic"):
        # Resized in float32 and rounded back (v1; v2's bilinear where torch's CPU kernels are
        # below AVX2 on x86): a float32 rounding difference next to a .5 boundary moves a value
        # by one.
        d = (y.int() - ref.int()).abs()
        assert d.max() <= 1 and (d > 0).float().mean() < 1e-2
    else:  # uint8 given to aten, or nearest copies: resize_ad's uint8 is native's bit for bit
        assert torch.equal(y, ref)
    # unpatch() restores native: the counter stops and results are native's, exactly
    with Count() as c:
        again = tf(x)
    assert (c.routed, c.passed) == (0, 0) and torch.equal(again, ref)


def test_unpatch_deregisters_the_kernels():
    assert not _overridden()
    resize_ad.patch()
    assert all(_overridden(op) for op in ("upsample_bilinear2d", "upsample_bilinear2d_backward",
                                          "upsample_nearest3d", "_upsample_bicubic2d_aa"))
    resize_ad.unpatch()
    assert not _overridden() and not _overridden("upsample_nearest3d_backward")


def test_patch_warns_nothing():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        resize_ad.patch()
        resize_ad.unpatch()
        resize_ad.patch()
    assert [str(m.message) for m in w] == []


def _by_name(x, **kw):
    return NATIVE_INTERPOLATE(x, **kw)


# Every overridden op through a by-name caller, float64, forward / backward / double backward.
CASES = [
    ((2, 3, 9), dict(scale_factor=1.7, mode="nearest")),
    ((2, 3, 9), dict(size=13, mode="nearest-exact")),
    ((2, 3, 9), dict(scale_factor=2.3, mode="linear", align_corners=True)),
    ((2, 3, 7, 9), dict(scale_factor=(2.1, 0.7), mode="nearest")),
    ((2, 3, 7, 9), dict(size=(5, 12), mode="nearest-exact")),
    ((2, 3, 7, 9), dict(scale_factor=1.6, mode="bilinear")),
    ((2, 3, 7, 9), dict(size=(11, 4), mode="bicubic", align_corners=True)),
    ((2, 3, 17, 19), dict(size=(6, 8), mode="bilinear", antialias=True)),
    ((2, 3, 17, 19), dict(size=(6, 8), mode="bicubic", antialias=True)),
    ((1, 2, 4, 5, 6), dict(scale_factor=(2.0, 1.5, 0.5), mode="nearest")),
    ((1, 2, 4, 5, 6), dict(size=(3, 7, 6), mode="nearest-exact")),
    ((1, 2, 4, 5, 6), dict(scale_factor=1.5, mode="trilinear")),
]
if hasattr(torch._C._nn, "_upsample_lanczos2d_aa"):
    CASES.append(((2, 3, 17, 19), dict(size=(6, 8), mode="lanczos", antialias=True)))


def _fwd_bwd_bwd(x, kw):
    x = x.detach().requires_grad_(True)
    y = _by_name(x, **kw)
    g = torch.randn(y.shape, generator=torch.Generator().manual_seed(1), dtype=y.dtype).requires_grad_(True)
    (gx,) = torch.autograd.grad(y, x, g, create_graph=True)
    (gg,) = torch.autograd.grad(gx.pow(2).sum(), g)
    return y, gx, gg


@pytest.mark.parametrize("shape,kw", CASES, ids=str)
def test_by_name_forward_backward_double_backward(shape, kw):
    x = torch.randn(shape, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    ref = _fwd_bwd_bwd(x, kw)
    with resize_ad.patch(), Count() as c:
        out = _fwd_bwd_bwd(x, kw)
    # forward, its backward op, and (double backward) the forward op again
    assert (c.routed, c.passed) == (3, 0)
    for a, b in zip(out, ref):
        torch.testing.assert_close(a, b, **TOL[torch.float64])


# native CPU's nearest: floor(o * scale) or UpSample.h nearest_idx, by layout and size; with
# out == 2 * in but scale != 2 the two disagree, so a wrong rule shows as a different element.
NEAREST = [
    ((1, 3, 5, 6), None, (2.1, 2.1)),          # small output: channels-last kernel (nearest_idx)
    ((1, 3, 50, 60), None, (2.1, 2.1)),        # large output, contiguous: floor
    ((1, 4, 50, 60), "cl", (2.1, 2.1)),        # channels_last, C > 3: nearest_idx
    ((1, 3, 50, 60), "cl", (2.1, 1.0 / 0.9)),  # channels_last, C == 3, large: floor
    ((1, 4, 5, 6, 7), "cl3d", (2.1, 1.1, 2.1)),
    ((1, 4, 5, 6, 7), None, (2.1, 1.1, 2.1)),
    ((2, 3, 40), None, (2.1,)),
]


@pytest.mark.parametrize("shape,layout,scales", NEAREST, ids=str)
def test_nearest_index_rules_are_native(shape, layout, scales):
    x = torch.randn(shape, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    if layout:
        x = x.contiguous(memory_format=torch.channels_last if layout == "cl" else torch.channels_last_3d)
    kw = dict(scale_factor=scales, mode="nearest")
    ref = _fwd_bwd_bwd(x, kw)
    with resize_ad.patch(), Count() as c:
        out = _fwd_bwd_bwd(x, kw)
    assert c.routed == 3
    assert torch.equal(out[0], ref[0])  # copies: exact
    assert out[0].stride() == ref[0].stride()
    torch.testing.assert_close(out[1], ref[1], **TOL[torch.float64])
    torch.testing.assert_close(out[2], ref[2], **TOL[torch.float64])


def test_aten_and_cpp_callers():
    x = torch.randn(2, 3, 8, 9)
    ref = torch.ops.aten.upsample_bicubic2d.default(x, [5, 13], False, None, None)
    with resize_ad.patch(), Count() as c:
        y = torch.ops.aten.upsample_bicubic2d.default(x, [5, 13], False, None, None)
        y2 = torch._C._nn.upsample_bicubic2d(x, [5, 13], False)
    assert (c.routed, c.passed) == (2, 0)
    torch.testing.assert_close(y, ref, **TOL[torch.float32])
    torch.testing.assert_close(y2, ref, **TOL[torch.float32])


def test_unsupported_inputs_go_to_native():
    xi = torch.randint(0, 255, (1, 2, 5, 6), dtype=torch.int32)
    xu = torch.randint(0, 255, (1, 2, 9), dtype=torch.uint8)
    native_errors = []
    for fn in (lambda: _by_name(xi, scale_factor=2, mode="nearest"),
               lambda: _by_name(xu, scale_factor=2, mode="linear"),
               lambda: _by_name(torch.randn(0, 2, 5, 6), size=(3, 3), mode="bilinear")):
        try:
            native_errors.append((None, fn()))
        except Exception as e:  # noqa: BLE001
            native_errors.append((type(e), str(e)))
    with resize_ad.patch(), Count() as c:
        for fn, (etype, ref) in zip(
                (lambda: _by_name(xi, scale_factor=2, mode="nearest"),
                 lambda: _by_name(xu, scale_factor=2, mode="linear"),
                 lambda: _by_name(torch.randn(0, 2, 5, 6), size=(3, 3), mode="bilinear")),
                native_errors):
            if etype is None:
                assert torch.equal(fn(), ref)
            else:
                with pytest.raises(etype) as e:
                    fn()
                assert str(e.value) == ref  # native's own error: the native kernel raised it
    assert (c.routed, c.passed) == (0, 3)


def test_area_by_name_stays_native():
    # "area" is adaptive average pooling at the aten level; that op is not overridden (it is
    # nn.AdaptiveAvgPool's too). F.interpolate looked up at call time still routes it.
    x = torch.randn(1, 2, 9, 10)
    with resize_ad.patch(), Count() as c:
        y = _by_name(x, size=(4, 3), mode="area")
        y2 = F.interpolate(x, size=(4, 3), mode="area")
    assert (c.routed, c.passed) == (0, 0)
    torch.testing.assert_close(y2, y, **TOL[torch.float32])


class _Net(nn.Module):
    def forward(self, x):
        a = F.interpolate(x, scale_factor=2.0, mode="bilinear")
        b = F.interpolate(a, size=(5, 7), mode="bicubic", align_corners=True, antialias=True)
        return F.interpolate(b, scale_factor=1.5, mode="nearest") + 1


def test_torchscript_under_patch_matches_eager_and_runs_resize_ad():
    x = torch.randn(2, 4, 6, 8)
    ref = _Net()(x)
    tv = T.Resize((11, 13), antialias=True)
    tv_ref = tv(x)
    with resize_ad.patch():
        scripted = torch.jit.script(_Net())
        scripted_again = torch.jit.script(_Net())  # a second script of the same class
        scripted_fn = torch.jit.script(_scripted_fn)
        scripted_tv = torch.jit.script(tv)
        with Count() as c:
            outs = [scripted(x), scripted_again(x), scripted_fn(x), scripted_tv(x)]
    assert (c.routed, c.passed) == (3 + 3 + 1 + 1, 0)
    for y, r in zip(outs, [ref, ref, F.interpolate(x, size=(3, 4), mode="bilinear"), tv_ref]):
        torch.testing.assert_close(y, r, **TOL[torch.float32])
    with Count() as c:  # after unpatch the same programs run native kernels
        torch.testing.assert_close(scripted(x), ref, rtol=0, atol=0)
    assert (c.routed, c.passed) == (0, 0)


def _scripted_fn(x):
    return F.interpolate(x, size=(3, 4), mode="bilinear")


def test_nested_patch_contexts():
    x = torch.randn(1, 1, 4, 4)
    with resize_ad.patch():
        with resize_ad.patch():
            assert _overridden()
        assert resize_ad.is_patched() and _overridden(), "an inner block must not undo an outer one"
        with Count() as c:
            _by_name(x, scale_factor=2, mode="bilinear")
        assert c.routed == 1
    assert not resize_ad.is_patched() and not _overridden()


def test_module_imported_after_patch(tmp_path, monkeypatch):
    (tmp_path / "late_import_resizer.py").write_text(
        "from torch.nn.functional import interpolate\n"
        "def up(x):\n"
        "    return interpolate(x, scale_factor=2, mode='bilinear')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("late_import_resizer", None)
    x = torch.randn(1, 2, 5, 6)
    ref = F.interpolate(x, scale_factor=2, mode="bilinear")
    with resize_ad.patch():
        mod = importlib.import_module("late_import_resizer")
        assert mod.interpolate is F.interpolate  # it holds the patched function
        with OpNames() as ops:
            torch.testing.assert_close(mod.up(x), ref, **TOL[torch.float32])
        assert "resize" in ops.names
    # after unpatch the held patched function is the original: native kernels, native result
    with Count() as c, OpNames() as ops:
        assert torch.equal(mod.up(x), ref)
    assert (c.routed, c.passed) == (0, 0) and "resize" not in ops.names
    sys.modules.pop("late_import_resizer", None)
