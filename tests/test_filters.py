"""Antialias in any rank and the filter modes, against three kinds of reference.

- PIL: ``Image.resize`` on mode "F" (float32) images. Resample.c computes its coefficients in
  double (precompute_coeffs), resamples in double and stores float32; ``reducing_gap`` is None by
  default, so no ``reduce()`` shortcut is taken. BOX, BILINEAR, HAMMING, BICUBIC, LANCZOS are our
  box, bilinear, hamming, bicubic, lanczos with antialias=True; 1-D and 3-D references are built
  from PIL's 2-D resize (an axis whose size does not change is copied by PIL).
- native torch: bilinear / bicubic / lanczos antialias on 4-D input, and 1-D / 3-D references
  built from them separably (native antialias copies an axis whose size does not change, so a
  (N, C, 1, W) input is a 1-D resize).
- an independent dense reference: per-axis O x I weight matrices built here in numpy from the
  published kernel definitions (not from csrc/common/filters.h), applied separably.

Measured errors against each reference are recorded in docs/filters.md.
"""
from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch.autograd import gradcheck, gradgradcheck

import resize_ad
import test_parity as _parity
from helpers import assert_close, native, ours
from samples import LAYOUTS, filter_samples, sample_inputs

Image = pytest.importorskip("PIL.Image")

FILTERS = ("cubic", "box", "hamming", "lanczos", "lanczos5", "mitchell", "gaussian")
NO_ALIGN_FILTERS = tuple(m for m in FILTERS if m != "cubic") + ("lanczos3",)


# ---------------------------------------------------------------------------------------------
# Independent kernel definitions (numpy), from the sources named in docs/filters.md.
# ---------------------------------------------------------------------------------------------

def _box(x):
    # PIL Resample.c box_filter: 1 on the half-open interval (-0.5, 0.5]
    return np.where((x > -0.5) & (x <= 0.5), 1.0, 0.0)


def _triangle(x):
    return np.maximum(0.0, 1.0 - np.abs(x))


def _keys(a):
    # R. Keys, Cubic convolution interpolation (1981): a = -0.5 for antialias (PIL, torch)
    def f(x):
        x = np.abs(x)
        inner = (a + 2) * x ** 3 - (a + 3) * x ** 2 + 1
        outer = a * x ** 3 - 5 * a * x ** 2 + 8 * a * x - 4 * a
        return np.where(x < 1, inner, np.where(x < 2, outer, 0.0))
    return f


def _hamming(x):
    # PIL hamming_filter: sinc windowed by 0.54 + 0.46 cos(pi x) on |x| < 1; PIL writes the
    # constants as C floats (0.54f, 0.46f, ~2e-8 off), so their sum is not 1, and returns exactly 1
    # at x = 0.
    a0, a1 = float(np.float32(0.54)), float(np.float32(0.46))
    w = np.where(np.abs(x) < 1, np.sinc(x) * (a0 + a1 * np.cos(np.pi * x)), 0.0)
    return np.where(x == 0, 1.0, w)


def _lanczos(a):
    # sinc(x) sinc(x / a) on |x| < a (np.sinc is the normalised sinc sin(pi x) / (pi x))
    return lambda x: np.where(np.abs(x) < a, np.sinc(x) * np.sinc(x / a), 0.0)


def _mitchell(B=1 / 3, C=1 / 3):
    # D. P. Mitchell and A. N. Netravali, Reconstruction filters in computer graphics (1988), eq. 8
    def f(x):
        x = np.abs(x)
        near = ((12 - 9 * B - 6 * C) * x ** 3 + (-18 + 12 * B + 6 * C) * x ** 2 + (6 - 2 * B)) / 6
        far = ((-B - 6 * C) * x ** 3 + (6 * B + 30 * C) * x ** 2 + (-12 * B - 48 * C) * x + (8 * B + 24 * C)) / 6
        return np.where(x < 1, near, np.where(x < 2, far, 0.0))
    return f


def _gaussian(radius=1.5):
    # TF sampling_kernels.h GaussianKernelFunc: sigma = radius / 3 = 0.5, zero from |x| = radius
    sigma = radius / 3
    return lambda x: np.where(np.abs(x) < radius, np.exp(-x * x / (2 * sigma * sigma)), 0.0)


# kernel name -> (function, support radius, the |x| where the function jumps)
KERNELS = {
    "box": (_box, 0.5, (0.5,)),
    "linear": (_triangle, 1.0, ()),
    "cubic": (_keys(-0.5), 2.0, ()),
    "hamming": (_hamming, 1.0, ()),
    "lanczos": (_lanczos(3), 3.0, ()),
    "lanczos5": (_lanczos(5), 5.0, ()),
    "mitchell": (_mitchell(), 2.0, ()),
    "gaussian": (_gaussian(), 1.5, (1.5,)),
}
# the kernel a mode uses in its PIL-style window (cubic: only with antialias)
KERNEL_OF = {"linear": "linear", "bilinear": "linear", "trilinear": "linear", "bicubic": "cubic",
             "cubic": "cubic", "box": "box", "hamming": "hamming", "lanczos": "lanczos", "lanczos3": "lanczos",
             "lanczos5": "lanczos5", "mitchell": "mitchell", "gaussian": "gaussian"}
MODE_1D = {"bilinear": "linear", "trilinear": "linear", "bicubic": "cubic"}


def test_reference_kernels_match_published_forms():
    """The reference kernels against the forms TF writes out (sampling_kernels.h), and Keys a = -0.5
    against PIL's bicubic_filter."""
    x = np.linspace(-2.5, 2.5, 1001)
    ax = np.abs(x)
    tf_mitchell = np.where(ax >= 2, 0.0, np.where(ax >= 1, (((-7 / 18) * ax + 2) * ax - 10 / 3) * ax + 16 / 9,
                                                  ((7 / 6) * ax - 2) * ax * ax + 8 / 9))
    np.testing.assert_allclose(_mitchell()(x), tf_mitchell, atol=1e-14)
    np.testing.assert_allclose(_gaussian()(x), np.where(ax < 1.5, np.exp(-2 * x * x), 0.0), atol=1e-15)
    tf_lanczos5 = np.where(ax > 5, 0.0, 5 * np.sin(np.pi * x) * np.sin(np.pi * x / 5) / (np.pi ** 2 * np.maximum(x * x, 1e-300)))
    tf_lanczos5[ax == 0] = 1.0
    np.testing.assert_allclose(_lanczos(5)(x), tf_lanczos5, atol=1e-14)
    pil_bicubic = np.where(ax < 1, (1.5 * ax - 2.5) * ax * ax + 1, np.where(ax < 2, (((ax - 5) * ax + 8) * ax - 4) * -0.5, 0.0))
    np.testing.assert_allclose(_keys(-0.5)(x), pil_bicubic, atol=1e-14)


# ---------------------------------------------------------------------------------------------
# Dense per-axis reference.
# ---------------------------------------------------------------------------------------------

def _axis_params(s, d):
    """(I, O, scale) of spatial axis d of sample s: scale = I / O for a size (or with
    recompute_scale_factor), 1 / scale_factor otherwise (torch's compute_scales_value)."""
    I = s.in_spatial[d]
    kw = s.kwargs
    if "size" in kw:
        return I, kw["size"][d], I / kw["size"][d]
    sf = kw["scale_factor"]
    sf = sf[d] if isinstance(sf, tuple) else sf
    O = math.floor(I * sf)
    return I, O, (I / O if kw.get("recompute_scale_factor") else 1.0 / sf)


def reference_matrix(kernel, I, O, scale, antialias):
    """O x I weights of one axis: output o is centred at scale * (o + 0.5) in input coordinates,
    input j sits at j + 0.5, its weight is kernel((j + 0.5 - centre) / stretch) with stretch
    max(scale, 1) under antialias (1 otherwise), and each row is normalised to sum 1. An axis
    whose size does not change is copied (PIL, native antialias).

    Returns (W, candidates). Where a tap lies within rounding distance of a jump of the kernel
    (box at |x| = 0.5, gaussian at |x| = 1.5), the side a floating-point computation lands on
    is a rounding accident (x = 1.5 exactly, or 1.4999999999999998, decides whether gaussian's
    tap weighs 0 or exp(-4.5)): candidates[o] then lists every valid row o, each such tap taking
    either one-sided value, the row at the x computed here first.
    """
    if I == O:
        return np.eye(I), {}
    f, _, jumps = KERNELS[kernel]
    stretch = max(scale, 1.0) if antialias else 1.0
    x = (np.arange(I)[None, :] + 0.5 - scale * (np.arange(O)[:, None] + 0.5)) / stretch
    W = f(x)
    candidates = {}
    for o in range(O):
        ties = [(c, e) for c in range(I) for e in jumps if abs(abs(x[o, c]) - e) < 1e-9]
        if not ties:
            continue
        # the two one-sided values at the jump: just inside and just outside |x| = e
        options = [(c, sorted({float(f(np.array(math.copysign(np.nextafter(e, side), x[o, c]))))
                               for side in (0.0, np.inf)})) for c, e in ties]
        rows = [W[o] / W[o].sum()]
        for values in itertools.product(*(v for _, v in options)):
            row = W[o].copy()
            for (c, _), v in zip(options, values):
                row[c] = v
            if row.sum() != 0:  # a row without any tap is no valid resolution
                rows.append(row / row.sum())
        candidates[o] = rows
    return W / W.sum(axis=1, keepdims=True), candidates


def our_axis_matrix(mode, I, out_kw, antialias, align_corners=None):
    """Our O x I matrix of one axis: the 1-D op applied to the identity (channels = inputs)."""
    eye = torch.eye(I, dtype=torch.float64).reshape(1, I, I)
    y = resize_ad.interpolate(eye, mode=MODE_1D.get(mode, mode), antialias=antialias,
                              align_corners=align_corners, **out_kw)
    return y[0].T.numpy()


def _axis_out_kw(s, d):
    kw = s.kwargs
    if "size" in kw:
        return {"size": kw["size"][d]}
    sf = kw["scale_factor"]
    out = {"scale_factor": sf[d] if isinstance(sf, tuple) else sf}
    if kw.get("recompute_scale_factor"):
        out["recompute_scale_factor"] = True
    return out


def resolved_reference(s, d):
    """Reference matrix of axis d of sample s, each tie row resolved to the valid candidate ours
    chose (test_axis_tables checks that ours is one of them)."""
    I, O, scale = _axis_params(s, d)
    aa = bool(s.kwargs.get("antialias"))
    W, candidates = reference_matrix(KERNEL_OF[s.mode], I, O, scale, aa)
    if candidates:
        mine = our_axis_matrix(s.mode, I, _axis_out_kw(s, d), aa)
        for o, rows in candidates.items():
            W[o] = min(rows, key=lambda r: np.abs(r - mine[o]).max())
    return W


def apply_separable(x, mats):
    y = x
    for d, W in enumerate(mats):
        y = np.moveaxis(np.tensordot(W, np.moveaxis(y, 2 + d, 0), axes=1), 0, 2 + d)
    return y


# The PIL-style window with and without antialias: every filter mode except cubic without antialias
# (which is bicubic's A = -0.75 interpolation, checked against native below), and the native modes'
# antialias in every rank.
REF_SAMPLES = [
    s for s in itertools.chain(
        filter_samples(),
        sample_inputs({"linear": (3,), "bilinear": (4,), "trilinear": (5,), "bicubic": (4,)},
                      layouts=("contiguous",), antialias=True))
    if not s.kwargs.get("align_corners") and (s.mode != "cubic" or s.kwargs.get("antialias"))
]
REF_SAMPLES += list(filter_samples(modes={"lanczos5": (4,), "gaussian": (5,), "mitchell": (3,)},
                                   layouts=("channels_last", "noncontig"), specs=None))


@pytest.mark.parametrize("s", REF_SAMPLES, ids=lambda s: s.id)
def test_reference(s):
    x = s.make(torch.float64)
    mats = [resolved_reference(s, d) for d in range(s.rank - 2)]
    ref = torch.from_numpy(apply_separable(x.numpy(), mats))
    y = ours(x, **s.kwargs)
    assert y.shape == ref.shape
    torch.testing.assert_close(y, ref, atol=1e-12, rtol=0)
    y32 = ours(x.float(), **s.kwargs)
    torch.testing.assert_close(y32.double(), ref, **_F32_TOL[KERNEL_OF[s.mode]])


# float32: the filters only PIL / TF define build their tables in double, so only accumulation
# rounding is left; linear, cubic and lanczos follow native's float32 table arithmetic.
_F32_TOL = {k: dict(atol=2e-6, rtol=0) for k in KERNELS}
_F32_TOL.update({k: dict(atol=1e-5, rtol=0) for k in ("linear", "cubic", "lanczos")})

_AXIS_SIZES = [1, 2, 3, 5, 8, 13, 21, 34]
_AXIS_OUTS = [1, 2, 3, 4, 6, 7, 12, 20, 33, 55]
_AXIS_SCALES = [(9, 0.6), (8, 1.5), (7, 2.04), (10, 0.45), (6, 1.05), (12, 0.25), (5, 3.0), (13, 0.7)]


# linear / cubic without antialias are native's 2- and 4-tap interpolation (not a window)
AXIS_MODES = [(m, aa) for m in ("box", "hamming", "lanczos", "lanczos5", "mitchell", "gaussian") for aa in (True, False)]
AXIS_MODES += [("linear", True), ("cubic", True)]


@pytest.mark.parametrize("mode,antialias", AXIS_MODES, ids=lambda v: v if isinstance(v, str) else ("aa" if v else "noaa"))
def test_axis_tables(mode, antialias):
    """Every row of our 1-D table against the dense reference, over a grid of sizes and scales;
    where a tap sits on a kernel jump ours must be one of the valid rows."""
    cases = [(I, O, {"size": O}, I / O) for I in _AXIS_SIZES for O in _AXIS_OUTS]
    cases += [(I, math.floor(I * sf), {"scale_factor": sf}, 1.0 / sf) for I, sf in _AXIS_SCALES]
    ties = 0
    for I, O, out_kw, scale in cases:
        W, candidates = reference_matrix(KERNEL_OF[mode], I, O, scale, antialias)
        mine = our_axis_matrix(mode, I, out_kw, antialias)
        assert mine.shape == W.shape
        for o in range(O):
            rows = candidates.get(o, [W[o]])
            err = min(np.abs(r - mine[o]).max() for r in rows)
            assert err < 1e-12, f"{mode} I={I} O={O} {out_kw} row {o}: {mine[o]} vs {rows}"
            ties += o in candidates
    if mode in ("box", "gaussian"):
        assert ties > 0  # the grid does put taps on the jumps


# ---------------------------------------------------------------------------------------------
# PIL.
# ---------------------------------------------------------------------------------------------

PIL_FILTERS = {"box": "BOX", "bilinear": "BILINEAR", "hamming": "HAMMING", "bicubic": "BICUBIC", "lanczos": "LANCZOS"}
OUR_MODE = {("bilinear", 1): "linear", ("bilinear", 3): "trilinear", ("bicubic", 1): "cubic", ("bicubic", 3): "cubic"}
# (box's tie rows, where a tap sits on the edge of the box, are in (12,) -> (37,), (12, 13) -> (37, 6),
# (25, 7) -> (10, 7), (21, 22) -> (39, 39) and (9, 5, 6) -> (4, 10, 6): there ours must land where PIL does)
PIL_CASES = {
    1: [((20,), (40,)), ((20,), (7,)), ((23,), (31,)), ((9,), (14,)), ((31,), (13,)), ((12,), (37,)), ((16,), (3,))],
    2: [((16, 20), (32, 40)), ((16, 20), (8, 10)), ((17, 23), (5, 31)), ((30, 31), (7, 13)), ((9, 9), (9, 14)),
        ((12, 13), (37, 6)), ((25, 7), (10, 7)), ((21, 22), (39, 39))],
    3: [((6, 7, 8), (12, 5, 3)), ((9, 5, 6), (4, 10, 6)), ((5, 6, 5), (7, 3, 13))],
}


def _pil_2d(a, out_hw, name):
    im = Image.fromarray(np.ascontiguousarray(a, dtype=np.float32), mode="F")
    return np.asarray(im.resize((out_hw[1], out_hw[0]), getattr(Image.Resampling, name)), dtype=np.float64)


def pil_resize(a, out, name):
    """PIL's resize of a float32 array with 1, 2 or 3 axes (separable through 2-D images; PIL
    copies an axis whose size does not change)."""
    if a.ndim == 1:
        return _pil_2d(a[None], (1,) + tuple(out), name)[0]
    if a.ndim == 2:
        return _pil_2d(a, out, name)
    hw = np.stack([_pil_2d(a[i], out[1:], name) for i in range(a.shape[0])])
    return np.stack([_pil_2d(hw[:, h, :], (out[0], out[2]), name) for h in range(out[1])], axis=1)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
@pytest.mark.parametrize("case", [(nd, c) for nd, cs in PIL_CASES.items() for c in cs], ids=str)
@pytest.mark.parametrize("pil", list(PIL_FILTERS))
def test_pil(pil, case, dtype):
    nd, (in_sp, out_sp) = case
    mode = OUR_MODE.get((pil, nd), pil)
    a = np.random.default_rng(sum(in_sp) + 7 * sum(out_sp)).random(in_sp, dtype=np.float32)
    ref = torch.from_numpy(pil_resize(a, out_sp, PIL_FILTERS[pil]))
    y = ours(torch.from_numpy(a).to(dtype)[None, None], size=out_sp, mode=mode, antialias=True)[0, 0]
    # PIL stores float32 (after each pass): float64 input leaves that rounding; float32 adds
    # native's float32 table arithmetic for bilinear / bicubic / lanczos
    tol = dict(atol=1e-6, rtol=0) if dtype == torch.float64 else _F32_TOL[KERNEL_OF[mode]]
    torch.testing.assert_close(y.double(), ref, **tol)


# ---------------------------------------------------------------------------------------------
# Native torch: 2-D lanczos (torch >= 2.13), and 1-D / 3-D built separably from native 2-D.
# ---------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _has_native_lanczos(device="cpu"):
    try:  # torch >= 2.13 on the CPU
        F.interpolate(torch.zeros(1, 1, 4, 4, device=device), size=(2, 2), mode="lanczos", antialias=True)
        return True
    except (NotImplementedError, ValueError, RuntimeError):
        return False


def _need_native_lanczos(device="cpu"):
    if not _has_native_lanczos(device):
        pytest.skip(f"no native lanczos on {device} in torch {torch.__version__}")


LANCZOS_NATIVE = list(filter_samples({"lanczos": (4,)}, antialias=(True,), layouts=LAYOUTS))


@pytest.mark.parametrize("dtype", _parity.FLOATS, ids=str)
@pytest.mark.parametrize("s", LANCZOS_NATIVE, ids=lambda s: s.id)
def test_native_lanczos_forward(s, dtype, device):
    _need_native_lanczos(device)
    _parity.test_forward(s, dtype, device)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
@pytest.mark.parametrize("s", LANCZOS_NATIVE, ids=lambda s: s.id)
def test_native_lanczos_backward(s, dtype, device):
    _need_native_lanczos(device)
    _parity.test_backward(s, dtype, device)


@pytest.mark.parametrize("s", [s for s in LANCZOS_NATIVE if s.layout in ("contiguous", "channels_last")], ids=lambda s: s.id)
def test_native_lanczos_double_backward(s, device):
    _need_native_lanczos(device)
    _parity.test_double_backward(s, device)


def native_separable(x, s, mode2d):
    """Native 4-D `mode2d` applied as a 1-D (N, C, W) or 3-D (N, C, D, H, W) resize: the 3-D
    case resizes (H, W) and then D, each time with the other axis of size 1 (copied)."""
    kw = {k: v for k, v in s.kwargs.items() if k not in ("size", "scale_factor", "mode")}
    kw["mode"] = mode2d

    def axis_kw(dims):
        if "size" in s.kwargs:
            return {"size": tuple(s.kwargs["size"][d] for d in dims)}
        sf = s.kwargs["scale_factor"]
        return {"scale_factor": tuple(sf[d] if isinstance(sf, tuple) else sf for d in dims)}

    def with_unit(kwd):  # prepend a unit axis (size 1 / scale 1.0)
        key, val = next(iter(kwd.items()))
        return {key: ((1,) if key == "size" else (1.0,)) + val}

    if x.dim() == 3:
        return native(x.unsqueeze(2), **kw, **with_unit(axis_kw([0]))).squeeze(2)
    N, C, D, H, W = x.shape
    hw = native(x.reshape(N, C * D, H, W), **kw, **axis_kw([1, 2]))
    H2, W2 = hw.shape[-2:]
    t = hw.reshape(N, C, D, H2, W2).permute(0, 1, 3, 4, 2).reshape(N, C * H2 * W2, 1, D)
    t = native(t, **kw, **with_unit(axis_kw([0])))
    return t.reshape(N, C, H2, W2, -1).permute(0, 1, 4, 2, 3)


SEPARABLE = [(s, "bilinear") for s in sample_inputs({"linear": (3,), "trilinear": (5,)}, layouts=("contiguous",), antialias=True)]
SEPARABLE += [(s, "bicubic") for s in filter_samples({"cubic": (3, 5)})]
SEPARABLE += [(s, "lanczos") for s in filter_samples({"lanczos": (3, 5)}, antialias=(True,))]


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=str)
@pytest.mark.parametrize("s,mode2d", SEPARABLE, ids=lambda v: v.id if hasattr(v, "id") else v)
def test_native_separable(s, mode2d, dtype):
    if mode2d == "lanczos":
        _need_native_lanczos()
    x = s.make(dtype)
    y = ours(x, **s.kwargs)
    ref = native_separable(x, s, mode2d)
    assert y.shape == ref.shape
    assert_close(y, ref, dtype)


@pytest.mark.parametrize("s", list(filter_samples({"cubic": (4,)}, layouts=("contiguous", "channels_last"))), ids=lambda s: s.id)
def test_cubic_4d_is_bicubic(s):
    x = s.make(torch.float32)
    kw = dict(s.kwargs, mode="bicubic")
    assert torch.equal(ours(x, **s.kwargs), ours(x, **kw))
    assert_close(ours(x, **s.kwargs), native(x, **kw), torch.float32)


# ---------------------------------------------------------------------------------------------
# float16 / bfloat16 antialias on the CPU: float32 accumulation, one rounding at the end.
# ---------------------------------------------------------------------------------------------

HALF = list(filter_samples(antialias=(True,), specs=[("down", dict(size_mult=0.5)), ("uneven", dict(size_list=(11, 3, 6)))]))
HALF += list(sample_inputs({"linear": (3,), "bilinear": (4,), "trilinear": (5,), "bicubic": (4,)}, layouts=("contiguous", "channels_last"),
                           antialias=True, specs=[("scale-down", dict(scale=(0.6, 0.45, 0.75)))]))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("s", HALF, ids=lambda s: s.id)
def test_half_antialias_cpu(s, dtype):
    x = s.make(dtype)
    y = ours(x, **s.kwargs)
    assert y.dtype == dtype
    # the same float32 tables and float32 intermediate as a float32 input, rounded once
    assert torch.equal(y, ours(x.float(), **s.kwargs).to(dtype))
    if s.mode in ("bilinear", "bicubic", "lanczos") and s.rank == 4:
        with pytest.raises(NotImplementedError):  # what native does on the CPU
            native(x, **s.kwargs)


# ---------------------------------------------------------------------------------------------
# Other devices: the same tables, so the same results as the CPU.
# ---------------------------------------------------------------------------------------------

DEVICE_CASES = list(filter_samples(layouts=("contiguous", "channels_last")))
DEVICE_CASES += list(sample_inputs({"linear": (3,), "trilinear": (5,)}, layouts=("contiguous", "channels_last"), antialias=True))


OTHER_DEVICES = ["cuda"] if torch.cuda.is_available() else []  # none: a single skipped test
DEVICE_PARAMS = [pytest.param(s, dt, dev, id=f"{dev}-{s.id}-{dt}") for dev in OTHER_DEVICES for s in DEVICE_CASES
                 for dt in (torch.float64, torch.float32, torch.float16, torch.bfloat16)]


@pytest.mark.parametrize("s,dtype,device", DEVICE_PARAMS)
def test_device_matches_cpu(s, dtype, device):
    x = s.make(dtype, device, requires_grad=dtype in (torch.float64, torch.float32))
    y = ours(x, **s.kwargs)
    xc = x.detach().cpu().requires_grad_(x.requires_grad)
    yc = ours(xc, **s.kwargs)
    assert y.dtype == yc.dtype and y.shape == yc.shape
    assert_close(y.cpu(), yc, dtype)
    if x.requires_grad:
        g = torch.randn(yc.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(2)).to(dtype)
        (gx,) = torch.autograd.grad(y, x, g.to(device))
        (gxc,) = torch.autograd.grad(yc, xc, g)
        assert_close(gx.cpu(), gxc, dtype)


# ---------------------------------------------------------------------------------------------
# Autodiff: backward, double backward, forward AD (the engine's transposed tables).
# ---------------------------------------------------------------------------------------------

_GRAD_SPECS = [("up", dict(size_mult=2.0)), ("down", dict(size_mult=0.5)), ("uneven", dict(size_list=(11, 3, 6))),
               ("scale-down", dict(scale=(0.6, 0.45, 0.75))), ("scale-recompute", dict(scale=(1.7, 0.55, 2.3), recompute=True))]
GRAD = list(filter_samples(specs=_GRAD_SPECS))
GRAD += list(sample_inputs({"linear": (3,), "trilinear": (5,)}, layouts=("contiguous",), antialias=True, specs=_GRAD_SPECS))
for _s in GRAD:
    _s.batch, _s.channels = 1, 2


def _fn(s):
    return lambda x: resize_ad.interpolate(x, **s.kwargs)


@pytest.mark.parametrize("s", GRAD, ids=lambda s: s.id)
def test_gradcheck(s):
    x = s.make(torch.float64, requires_grad=True)
    assert gradcheck(_fn(s), (x,), fast_mode=True)


@pytest.mark.parametrize("s", GRAD, ids=lambda s: s.id)
def test_gradgradcheck(s):
    x = s.make(torch.float64, requires_grad=True)
    assert gradgradcheck(_fn(s), (x,), fast_mode=True)


@pytest.mark.parametrize("s", GRAD, ids=lambda s: s.id)
def test_forward_ad_gradcheck(s):
    x = s.make(torch.float64, requires_grad=True)
    assert gradcheck(_fn(s), (x,), check_forward_ad=True, check_backward_ad=False, fast_mode=True)


@pytest.mark.parametrize("s", GRAD, ids=lambda s: s.id)
def test_adjoint(s):
    x = s.make(torch.float64)
    y = resize_ad.interpolate(x, **s.kwargs)
    g = torch.randn(y.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    (gx,) = torch.autograd.grad(resize_ad.interpolate(x.requires_grad_(), **s.kwargs), x, g)
    torch.testing.assert_close((y * g).sum(), (x.detach() * gx).sum(), atol=1e-10, rtol=1e-10)


# ---------------------------------------------------------------------------------------------
# Errors and argument rules.
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("rank", [3, 4, 5])
@pytest.mark.parametrize("mode", NO_ALIGN_FILTERS)
def test_align_corners_rejected(mode, rank):
    x = torch.randn((1, 2) + (6,) * (rank - 2))
    size = (4,) * (rank - 2)
    for aa in (False, True):
        with pytest.raises(ValueError, match="align_corners"):
            ours(x, size=size, mode=mode, align_corners=True, antialias=aa)
        assert torch.equal(ours(x, size=size, mode=mode, align_corners=False, antialias=aa),
                           ours(x, size=size, mode=mode, antialias=aa))


@pytest.mark.parametrize("rank", [3, 5])
def test_cubic_align_corners_any_rank(rank):
    """cubic takes align_corners (its table is bicubic's): checked against native separably."""
    s = next(iter(filter_samples({"cubic": (rank,)}, antialias=(False,), specs=[("up", dict(size_mult=2.0))])))
    s.kwargs["align_corners"] = True
    x = s.make(torch.float64)
    assert_close(ours(x, **s.kwargs), native_separable(x, s, "bicubic"))


@pytest.mark.parametrize("rank", [3, 5])
def test_bicubic_rank_like_native(rank):
    x = torch.randn((1, 2) + (6,) * (rank - 2))
    size = (4,) * (rank - 2)
    with pytest.raises(NotImplementedError):
        native(x, size=size, mode="bicubic")
    with pytest.raises(NotImplementedError, match="cubic"):
        ours(x, size=size, mode="bicubic")
    with pytest.raises(ValueError):  # native checks antialias first
        native(x, size=size, mode="bicubic", antialias=True)
    with pytest.raises(ValueError, match="Anti-alias"):
        ours(x, size=size, mode="bicubic", antialias=True)


@pytest.mark.parametrize("rank", [3, 4, 5])
def test_lanczos3_is_lanczos(rank):
    x = torch.randn((1, 2) + (7,) * (rank - 2))
    for aa, size in itertools.product((False, True), ((3,) * (rank - 2), (12,) * (rank - 2))):
        assert torch.equal(ours(x, size=size, mode="lanczos3", antialias=aa), ours(x, size=size, mode="lanczos", antialias=aa))


@pytest.mark.parametrize("mode", [m for m in FILTERS if m not in ("lanczos", "lanczos3")])
def test_uint8_rejected(mode):
    # uint8 goes where native takes it (4-D lanczos antialias included: tests/test_uint8.py)
    with pytest.raises(NotImplementedError, match="uint8"):
        ours(torch.zeros(1, 1, 4, 4, dtype=torch.uint8), size=(2, 2), mode=mode, antialias=True)


def test_antialias_stretch():
    """Downsampling by 4: with antialias the box averages 4 pixels, without it it picks one."""
    x = torch.arange(16, dtype=torch.float64).reshape(1, 1, 16)
    torch.testing.assert_close(ours(x, size=4, mode="box", antialias=True)[0, 0], torch.tensor([1.5, 5.5, 9.5, 13.5], dtype=torch.float64))
    torch.testing.assert_close(ours(x, size=4, mode="box")[0, 0], torch.tensor([2.0, 6.0, 10.0, 14.0], dtype=torch.float64))
