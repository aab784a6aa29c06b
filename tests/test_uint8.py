"""uint8 images, forward only, against native torch's uint8 kernels.

Native resizes uint8 with nearest / nearest-exact (any rank) and 4-D bilinear, bicubic and
lanczos (the last two antialias-only for lanczos). resize_ad reproduces native CPU's int16
fixed-point arithmetic, so the tests ask for max |diff| <= 1 and, in fact, for exact equality;
the fraction of differing elements is printed with ``pytest -s``.
"""
import os
import random

import pytest
import torch
import torch.nn.functional as F

import resize_ad
from samples import LAYOUTS, sample_inputs

U8_MODES = {"nearest": (3, 4, 5), "nearest-exact": (3, 4, 5), "bilinear": (4,), "bicubic": (4,)}
_HAS_NATIVE_LANCZOS = hasattr(torch._C._nn, "_upsample_lanczos2d_aa")

_STATS = {"elements": 0, "differ": 0, "max": 0}


def _to_u8(x: torch.Tensor, binary: bool) -> torch.Tensor:
    """A uint8 copy of x with x's shape, strides and layout."""
    v = ((x > 0).to(torch.float64) * 255) if binary else (x.double() * 60 + 128).clamp(0, 255).round()
    return v.to(torch.uint8)


def _compare(x, **kw):
    ref = F.interpolate(x, **kw)
    y = resize_ad.interpolate(x, **kw)
    assert y.dtype == torch.uint8 and y.shape == ref.shape
    assert y.is_contiguous() == ref.is_contiguous()
    assert y.is_contiguous(memory_format=torch.channels_last) == ref.is_contiguous(memory_format=torch.channels_last)
    d = (y.int() - ref.int()).abs()
    _STATS["elements"] += d.numel()
    _STATS["differ"] += int((d > 0).sum())
    _STATS["max"] = max(_STATS["max"], int(d.max()) if d.numel() else 0)
    assert int(d.max()) <= 1
    assert int((d > 0).sum()) == 0, f"{int((d > 0).sum())} of {d.numel()} elements differ by 1"
    return y


SAMPLES = [s for s in sample_inputs(U8_MODES, layouts=LAYOUTS + ("hwc",))]
AA_SAMPLES = [s for s in sample_inputs({"bilinear": (4,), "bicubic": (4,)}, antialias=True,
                                       layouts=LAYOUTS + ("hwc",))]


# Binary (0 / 255) images drive bicubic's overshoot into saturation; nearest copies elements,
# so noise is enough there.
CASES = [(s, False) for s in SAMPLES + AA_SAMPLES] + [
    (s, True) for s in SAMPLES + AA_SAMPLES if not s.mode.startswith("nearest")]


@pytest.mark.parametrize("s,binary", CASES, ids=lambda v: v.id if hasattr(v, "id") else ("binary" if v else "noise"))
def test_parity(s, binary):
    _compare(_to_u8(s.make(torch.float64), binary), **s.kwargs)


def _random_case(rng):
    mode = rng.choice(["bilinear", "bicubic", "nearest", "nearest-exact"] + (["lanczos"] if _HAS_NATIVE_LANCZOS else []))
    rank = 4 if mode in ("bilinear", "bicubic", "lanczos") else rng.choice([3, 4, 5])
    hi = 9 if rank == 5 else 40
    sp = [rng.randint(2, hi) for _ in range(rank - 2)]
    x = torch.randint(0, 256, (rng.randint(1, 2), rng.randint(1, 6), *sp), dtype=torch.uint8,
                      generator=torch.Generator().manual_seed(rng.randint(0, 2**31)))
    if rng.random() < 0.3:
        x = (x > 127).to(torch.uint8) * 255  # saturating overshoot for bicubic / lanczos
    if rank >= 4 and rng.random() < 0.4:
        x = x.contiguous(memory_format=torch.channels_last if rank == 4 else torch.channels_last_3d)
    kw = {"mode": mode}
    if mode.startswith("nearest"):
        # Only sizes: with an explicit scale_factor whose output is input or 2 * input, native's
        # nearest picks a different index rule by layout and size (as for float input).
        kw["size"] = [rng.randint(2, 2 * hi) for _ in sp]
    else:
        # Output width >= 2: native's uint8 kernels give wrong values for width-1 outputs in
        # some layouts (see test_width_one_against_float).
        if rng.random() < 0.5:
            kw["size"] = [rng.randint(2, 90) for _ in sp]
        else:
            f = [rng.choice([0.1, 0.25, 0.37, 0.5, 1.0, 1.5, 2.0, 3.3, rng.uniform(0.1, 4)]) for _ in sp]
            if any(int(a * b) < 2 for a, b in zip(sp, f)):
                f = [2.0 for _ in sp]
            kw["scale_factor"] = f
            kw["recompute_scale_factor"] = rng.random() < 0.3
        kw["antialias"] = mode == "lanczos" or rng.random() < 0.5
        if mode != "lanczos" and rng.random() < 0.4:
            kw["align_corners"] = rng.random() < 0.5
    return x, kw


def test_random_cases():
    # RESIZE_AD_UINT8_CASES=6000 pytest tests/test_uint8.py -s -k "random or stats": a longer fuzz
    rng = random.Random(7)
    for _ in range(int(os.environ.get("RESIZE_AD_UINT8_CASES", "400"))):
        x, kw = _random_case(rng)
        _compare(x, **kw)


def test_stats_report():
    """Runs last in this file: prints what the parity tests above measured (pytest -s)."""
    if _STATS["elements"]:
        frac = _STATS["differ"] / _STATS["elements"]
        print(f"\nuint8 parity: {_STATS['elements']} elements compared, {_STATS['differ']} differ "
              f"({frac:.2e}), max |diff| {_STATS['max']}")
        assert _STATS["max"] <= 1


@pytest.mark.skipif(not _HAS_NATIVE_LANCZOS, reason="this torch has no native lanczos mode")
@pytest.mark.parametrize("size", [(7, 9), (33, 41), (16, 3)])
def test_lanczos(size):
    g = torch.Generator().manual_seed(0)
    x = torch.randint(0, 256, (2, 3, 16, 20), dtype=torch.uint8, generator=g)
    _compare(x, size=size, mode="lanczos", antialias=True)
    _compare((x > 127).to(torch.uint8).mul(255).contiguous(memory_format=torch.channels_last),
             size=size, mode="lanczos", antialias=True)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("antialias", [False, True])
def test_width_one_against_float(mode, antialias):
    """Width-1 input or output. Native torch 2.14 gets these wrong on the CPU: its uint8 kernels
    (C = 1 or C > 4) and, with antialias and a width-1 output, its float kernels too. The
    reference is therefore the same resize done one axis at a time by native float64 calls
    that avoid width 1 (a separable resize is the composition of its axis passes); resize_ad's
    uint8 result must be that, rounded once per pass."""
    g = torch.Generator().manual_seed(0)
    for shape, size in [((1, 6, 20, 15), (60, 1)), ((1, 1, 32, 1), (30, 11)), ((2, 3, 20, 1), (9, 1))]:
        x = torch.randint(0, 256, shape, dtype=torch.uint8, generator=g)
        y = resize_ad.interpolate(x, size=size, mode=mode, antialias=antialias)
        # Each axis pass as a native float64 call on the transposed image: the resized axis is
        # then the last one and no width is 1. W pass first, as the uint8 kernels do.
        t = F.interpolate(x.double().transpose(-1, -2), size=(size[1], shape[2]), mode=mode,
                          antialias=antialias)
        if mode == "bicubic":
            t = t.round().clamp(0, 255)  # the uint8 intermediate saturates bicubic's overshoot
        ref = F.interpolate(t, size=(size[1], size[0]), mode=mode, antialias=antialias)
        ref = ref.transpose(-1, -2).clamp(0, 255)
        assert float((y.double() - ref).abs().max()) <= 1.0


def test_round_half_up_and_saturate():
    # bicubic overshoot saturates at 0 and 255; exact halves round up, as native's fixed point.
    x = torch.tensor([[[[0, 0, 255, 255, 0, 0]]]], dtype=torch.uint8).expand(1, 1, 4, 6).contiguous()
    y = resize_ad.interpolate(x, size=(4, 13), mode="bicubic")
    assert int(y.min()) == 0 and int(y.max()) == 255
    assert torch.equal(y, F.interpolate(x, size=(4, 13), mode="bicubic"))
    x = torch.tensor([[[[0, 1, 2, 3]]]], dtype=torch.uint8).expand(1, 1, 2, 4).contiguous()
    y = resize_ad.interpolate(x, size=(2, 8), mode="bilinear", align_corners=True)
    assert torch.equal(y, F.interpolate(x, size=(2, 8), mode="bilinear", align_corners=True))


def test_empty_batch_and_identity():
    x = torch.zeros(0, 3, 5, 6, dtype=torch.uint8)
    assert resize_ad.interpolate(x, size=(7, 8), mode="bilinear").shape == (0, 3, 7, 8)
    x = torch.randint(0, 256, (1, 3, 5, 6), dtype=torch.uint8)
    for mode in ("bilinear", "bicubic", "nearest", "nearest-exact"):
        assert torch.equal(resize_ad.interpolate(x, size=(5, 6), mode=mode), x)
        # same size with a scale that is not 1: native copies uint8 too
        _compare(x, scale_factor=(1.1, 1.05), mode=mode)


BAD = [
    (torch.int32, 4, "nearest", {}),
    (torch.int8, 4, "nearest-exact", {}),
    (torch.int64, 4, "bilinear", {}),
    (torch.int16, 5, "nearest", {}),
    (torch.bool, 4, "nearest", {}),
    (torch.uint8, 3, "linear", {}),
    (torch.uint8, 5, "trilinear", {}),
    (torch.uint8, 4, "area", {}),
    (torch.uint8, 3, "area", {}),
]


@pytest.mark.parametrize("dtype,rank,mode,kw", BAD, ids=lambda v: str(v))
def test_unsupported_raise_like_native(dtype, rank, mode, kw):
    x = torch.zeros((1, 2) + (4,) * (rank - 2), dtype=dtype)
    with pytest.raises(NotImplementedError):
        F.interpolate(x, size=(3,) * (rank - 2), mode=mode, **kw)
    with pytest.raises(NotImplementedError):
        resize_ad.interpolate(x, size=(3,) * (rank - 2), mode=mode, **kw)


@pytest.mark.parametrize("mode", ["box", "hamming", "mitchell", "gaussian", "cubic", "area"])
def test_extra_modes_reject_uint8(mode):
    x = torch.zeros(1, 2, 4, 4, dtype=torch.uint8)
    with pytest.raises(NotImplementedError):
        resize_ad.interpolate(x, size=(3, 3), mode=mode)
    if mode != "cubic":  # the op itself, past the Python checks ("cubic" is the op's bicubic)
        with pytest.raises(NotImplementedError):
            torch.ops.resize_ad.resize(x, [3, 3], mode, False, None, False)


def test_ops_reject_integer_dtypes():
    with pytest.raises(NotImplementedError):
        torch.ops.resize_ad.resize(torch.zeros(1, 1, 4, 4, dtype=torch.int32), [3, 3], "nearest", False, None, False)
    with pytest.raises(NotImplementedError):  # no gradient of an integer tensor
        torch.ops.resize_ad.resize_backward(torch.zeros(1, 1, 3, 3, dtype=torch.uint8), [1, 1, 4, 4],
                                            "bilinear", False, None, False)


def test_no_grad_on_integers():
    x = torch.randint(0, 256, (1, 3, 6, 6), dtype=torch.uint8)
    with pytest.raises(RuntimeError):
        x.requires_grad_(True)
    with torch.enable_grad():
        y = resize_ad.interpolate(x, size=(9, 9), mode="bilinear")
    assert y.dtype == torch.uint8 and not y.requires_grad


def test_compile_and_fake_kernel():
    x = torch.randint(0, 256, (2, 3, 10, 12), dtype=torch.uint8).contiguous(memory_format=torch.channels_last)

    def f(t):
        return resize_ad.interpolate(t, size=(7, 17), mode="bicubic", antialias=True)

    torch._dynamo.reset()
    y = torch.compile(f, backend="aot_eager", fullgraph=True)(x)
    ref = f(x)
    assert y.dtype == torch.uint8 and torch.equal(y, ref) and y.stride() == ref.stride()
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode() as m:
        fx = m.from_tensor(x)
        fy = torch.ops.resize_ad.resize(fx, [7, 17], "bilinear", False, None, False)
        assert fy.dtype == torch.uint8 and fy.stride() == ref.stride()
    torch.library.opcheck(torch.ops.resize_ad.resize.default, (x, [7, 17], "bilinear", False, None, True))
    torch.library.opcheck(torch.ops.resize_ad.resize.default, (x, [7, 17], "nearest", False, None, False))


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_matches_cpu():
    """The fixed-point sums are exact in float / double, so CUDA must equal CPU bit for bit."""
    rng = random.Random(11)
    for _ in range(100):
        x, kw = _random_case(rng)
        assert torch.equal(resize_ad.interpolate(x.cuda(), **kw).cpu(), resize_ad.interpolate(x, **kw))


# The CPU's uint8 pass kernels (csrc/cpu/fixed_point_kernels.h) have one form per pass shape:
# along a line of one channel (NCHW, or channels_last with C = 1), along interleaved pixels
# (channels_last C = 3 and 4), whole rows (every other pass; 32 bytes at a time from 32 bytes
# on, with an overlapping last block), a scalar form for the rest (C = 2, 5, short rows), and
# scalar pixels where a window's vector load would leave the line (its last pixels, and lines
# shorter than the padded window). Large downscales make windows of many taps (several
# 16-tap blocks); odd sizes leave tails of every vector loop.
_FORM_SIZES = [
    ((37, 53), (11, 29)),     # odd sizes, modest downscale
    ((300, 260), (7, 9)),     # ~40 taps per window: several vector blocks per output pixel
    ((1, 97), (1, 31)),       # height 1 (input and output)
    ((9, 5), (23, 3)),        # lines shorter than the padded window: scalar pixels only
    ((40, 11), (64, 47)),     # upscale; rows of 11 * C bytes (< 32 for small C)
    ((64, 600), (33, 35)),    # long lines, rows past 32 bytes by odd amounts
    ((24, 200), (10, 31)),    # windows of 9-16 taps (bilinear) and 17-32 (bicubic)
    ((24, 400), (10, 37)),    # windows of 17-32 taps (bilinear) and 33-48 (bicubic)
]


@pytest.mark.parametrize("C", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("channels_last", [False, True])
@pytest.mark.parametrize("mode,antialias", [("bilinear", False), ("bilinear", True), ("bicubic", False),
                                            ("bicubic", True)] + ([("lanczos", True)] if _HAS_NATIVE_LANCZOS else []))
def test_pass_forms(C, channels_last, mode, antialias):
    g = torch.Generator().manual_seed(C * 10 + channels_last)
    for (h, w), size in _FORM_SIZES:
        for binary in (False, True):
            x = torch.randint(0, 256, (2, C, h, w), dtype=torch.uint8, generator=g)
            if binary:
                x = (x > 127).to(torch.uint8) * 255
            if channels_last:
                x = x.contiguous(memory_format=torch.channels_last)
            _compare(x, size=size, mode=mode, antialias=antialias)


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
@pytest.mark.parametrize("C", [1, 3, 4, 6])
def test_nearest_gather_forms(mode, C):
    g = torch.Generator().manual_seed(C)
    cases = [((70,), (141,)), ((70,), (1,)), ((1,), (9,)),
             ((13, 17), (26, 34)), ((13, 17), (5, 40)), ((1, 9), (3, 1)), ((64, 48), (21, 96)),
             ((5, 6, 7), (10, 3, 14)), ((1, 4, 1), (2, 1, 3))]
    for sp, size in cases:
        x = torch.randint(0, 256, (2, C, *sp), dtype=torch.uint8, generator=g)
        _compare(x, size=size, mode=mode)
        if len(sp) >= 2:
            fmt = torch.channels_last if len(sp) == 2 else torch.channels_last_3d
            _compare(x.contiguous(memory_format=fmt), size=size, mode=mode)
        _compare(x.transpose(-1, -2) if len(sp) >= 2 else x[:, :, ::2], size=size, mode=mode)
