"""The CUDA executors without a GPU: resize_ad._emulate_cuda (csrc/cpu/cuda_emulation.cpp) runs
every CUDA kernel's functor (csrc/common/cuda_functors.h) on the CPU over exactly the grid and
block its launch function computes, with the tables built by the table-builder functors, and
counts the stores. On every sample of the shared generator, forward and backward: the result
equals the CPU executors', every output element (and every table row) is written exactly once,
and every table the functors built equals the host's table of the same rows."""
import pytest
import torch

from resize_ad._testing import executor
from helpers import assert_close, op_args as _op_args
from samples import aa_samples, filter_samples, sample_inputs

# The emulation's counts (cuda_emulation.cpp, enum Stat).
STATS = ("launches", "not_once", "twice", "stray", "tables_checked", "table_mismatch",
         "bound_too_small", "bad_config")

SAMPLES = (list(sample_inputs(layouts=("contiguous", "channels_last", "noncontig")))
           + list(aa_samples(layouts=("contiguous", "channels_last")))
           + list(filter_samples(layouts=("contiguous",))))


def _emulate(x, size, args, backward, caps=()):
    mode, ac, scales, aa = args
    y, stats = torch.ops.resize_ad._emulate_cuda(x, size, mode, ac, scales, aa, backward, list(caps))
    return y, dict(zip(STATS, stats.tolist()))


def _check_stats(st):
    bad = {k: v for k, v in st.items() if k not in ("launches", "tables_checked") and v != 0}
    assert not bad, f"emulated CUDA launches: {bad} (of {st})"


def _compare(x, size, args, caps=(), dtype=None):
    """Emulated CUDA vs the CPU op, forward and backward."""
    g = torch.randn([x.shape[0], x.shape[1]] + size, dtype=torch.float64,
                    generator=torch.Generator().manual_seed(1)).to(x.dtype)
    y_ref = torch.ops.resize_ad.resize(x, size, *args)
    g_ref = torch.ops.resize_ad.resize_backward(g, list(x.shape), *args)
    y, st = _emulate(x, size, args, False, caps)
    _check_stats(st)
    assert y.shape == y_ref.shape and y.stride() == y_ref.stride() and y.dtype == y_ref.dtype
    assert_close(y, y_ref, dtype or x.dtype)
    gx, st = _emulate(g, list(x.shape), args, True, caps)
    _check_stats(st)
    assert gx.shape == g_ref.shape and gx.stride() == g_ref.stride()
    assert_close(gx, g_ref, dtype or x.dtype)
    # only a resize whose every axis keeps its size can be a plain copy (no launch)
    assert st["launches"] > 0 or list(x.shape[2:]) == size
    return st


@pytest.mark.parametrize("name", ["separable", "product_gather"])
@pytest.mark.parametrize("s", SAMPLES, ids=lambda s: s.id)
def test_emulated_cuda_matches_cpu(s, name):
    x = s.make(torch.float64)
    size, args = _op_args(s, x)
    with executor(name):
        _compare(x, size, args)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("s", [s for s in sample_inputs(layouts=("contiguous", "channels_last"))
                               if s.rank == 4 and "scale_factor" not in s.kwargs], ids=lambda s: s.id)
def test_emulated_cuda_half_types(s, dtype):
    """The accumulation-type variants of the passes (scratch in float32 between passes)."""
    x = s.make(dtype)
    size, args = _op_args(s, x)
    with executor("separable"):
        _compare(x, size, args)


# Shapes past the lowered grid caps: every functor runs its grid-stride loop.
CAPPED = [
    ((2, 3, 40, 50), [61, 23], "bilinear", False, None),
    ((1, 300, 9, 7), [14, 5], "bicubic", True, None),
    ((2, 5, 33, 20), [8, 45], "bilinear", False, None),
    ((1, 2, 700), [333], "linear", False, None),
    ((1, 2, 9, 10, 11), [17, 4, 23], "trilinear", False, None),
    ((2, 3, 30, 31), [7, 90], "area", False, None),
    ((1, 3, 64, 48), [20, 16], "bilinear", False, True),
    ((2, 2, 40, 30), [80, 60], "nearest", False, None),
]


@pytest.mark.parametrize("layout", ["contiguous", "channels_last"])
@pytest.mark.parametrize("caps", [(1, 1), (2, 3), (3, 2)], ids=str)
@pytest.mark.parametrize("name", ["separable", "product_gather"])
@pytest.mark.parametrize("shape,size,mode,ac,aa", CAPPED, ids=lambda v: str(v))
def test_emulated_cuda_grid_caps(shape, size, mode, ac, aa, name, caps, layout):
    x = torch.randn(shape, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    if layout == "channels_last":
        if x.dim() == 3:
            pytest.skip("no channels_last for 3-D input")
        x = x.contiguous(memory_format=torch.channels_last if x.dim() == 4 else torch.channels_last_3d)
    args = (mode, ac, None, bool(aa))
    with executor(name):
        _compare(x, size, args, caps=caps)


@pytest.mark.parametrize("mode,in_size,out_size,scale,ac", [
    # scales that disagree with the sizes (the op allows any): the transposed tables' bound must
    # still hold where the clamped rows pile onto a border sample
    ("nearest", 10, 100, 0.5, False),
    ("nearest", 10, 7, 5.0, False),
    ("nearest-exact", 12, 40, 0.7, False),
    ("linear", 10, 100, 0.5, False),
    ("linear", 9, 50, 20.0, False),
    ("cubic", 10, 60, 0.4, False),
    ("cubic", 11, 5, 9.0, False),
    ("linear", 1, 13, 0.0, False),
    ("cubic", 2, 17, 0.0, True),
    ("linear", 5, 1, 0.0, True),
])
def test_emulated_cuda_inconsistent_scales(mode, in_size, out_size, scale, ac):
    x = torch.randn(2, 3, in_size, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    args = (mode if mode != "cubic" else "bicubic", ac, [scale] if scale > 0 else None, False)
    if mode == "cubic":  # bicubic is 2-D only: resample one axis, keep the other
        x = x.unsqueeze(-1).expand(2, 3, in_size, 2).contiguous()
        args = ("bicubic", ac, [scale, 1.0] if scale > 0 else None, False)
        size = [out_size, 2]
    else:
        size = [out_size]
    for name in ("separable", "product_gather"):
        with executor(name):
            _compare(x, size, args)


def test_emulation_counts_what_it_claims():
    """The counts are live: a product gather of a 2-D bilinear resize launches two table
    builders per axis for the backward (forward rows, then their transpose) and one gather."""
    x = torch.randn(1, 2, 6, 7, dtype=torch.float64)
    with executor("product_gather"):
        _, st = _emulate(x, [9, 4], ("bilinear", False, None, False), False)
        assert st["launches"] == 3 and st["tables_checked"] == 2
        g = torch.randn(1, 2, 9, 4, dtype=torch.float64)
        _, st = _emulate(g, [1, 2, 6, 7], ("bilinear", False, None, False), True)
        assert st["launches"] == 5 and st["tables_checked"] == 2
    with pytest.raises(RuntimeError, match="grid_caps"):
        _emulate(x, [9, 4], ("bilinear", False, None, False), False, caps=(1,))


# uint8: the fixed-point tables (int16 weights of the precision native derives from the largest
# weight) are built and quantised by the table-builder functor; the passes run in float (double
# where a pass's integer sums could pass 2^24) and round half up and saturate per pass. The CPU op
# is bit-exact with native's uint8 kernels (tests/test_uint8.py), so the emulation must equal it.
def _u8_samples():
    from test_uint8 import AA_SAMPLES, SAMPLES, _to_u8
    for s in SAMPLES + AA_SAMPLES:
        for binary in ((False, True) if not s.mode.startswith("nearest") else (False,)):
            yield pytest.param(s, binary, id=f"{s.id}-{'binary' if binary else 'noise'}")


def _compare_u8(x, size, args, caps=()):
    y_ref = torch.ops.resize_ad.resize(x, size, *args)
    y, st = _emulate(x, size, args, False, caps)
    _check_stats(st)
    assert y.dtype == torch.uint8 and y.shape == y_ref.shape and y.stride() == y_ref.stride()
    assert torch.equal(y, y_ref), f"{int((y != y_ref).sum())} of {y.numel()} elements differ"
    return st


@pytest.mark.parametrize("s,binary", list(_u8_samples()))
def test_emulated_cuda_uint8(s, binary):
    from test_uint8 import _to_u8
    x = _to_u8(s.make(torch.float64), binary)
    size, args = _op_args(s, x)
    st = _compare_u8(x, size, args)
    if list(x.shape[2:]) != size and not s.mode.startswith("nearest"):
        assert st["tables_checked"] > 0  # the fixed-point tables came from the functors


@pytest.mark.parametrize("shape,size,mode,aa", [
    ((1, 3, 2, 3000), [2, 25], "bilinear", True),    # precision 20: sums need double
    ((2, 3, 37, 45), [11, 70], "bicubic", False),
    ((1, 4, 50, 60), [17, 23], "bicubic", True),
    ((1, 3, 40, 33), [9, 61], "lanczos", True),
])
@pytest.mark.parametrize("layout", ["contiguous", "channels_last"])
@pytest.mark.parametrize("caps", [(), (2, 3)], ids=str)
def test_emulated_cuda_uint8_wide(shape, size, mode, aa, layout, caps):
    g = torch.Generator().manual_seed(4)
    x = torch.randint(0, 256, shape, dtype=torch.uint8, generator=g)
    x = ((x > 127).to(torch.uint8) * 255) if mode != "bilinear" else x
    if layout == "channels_last":
        x = x.contiguous(memory_format=torch.channels_last)
    _compare_u8(x, size, (mode, False, None, aa), caps)
