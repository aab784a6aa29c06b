"""Every executor on shapes the parity samples are too small for: long lines split in segments,
many channels, ragged transposed tables, 3-D, half types, and inf / NaN that padding taps must
not spread."""
import pytest
import torch

from resize_ad._testing import EXECUTORS, executor, huge_pages, pass_chunk_bytes, stream_threshold
from helpers import TOL, assert_close, native, ours

ENGINES = list(EXECUTORS)

CASES = [
    # (shape, channels_last, kwargs)
    ((1, 1, 6000), False, dict(mode="linear", size=(9001,))),
    ((1, 2, 6000), False, dict(mode="linear", size=(2500,), align_corners=True)),
    ((2, 3, 41, 700), False, dict(mode="bilinear", size=(23, 1531))),
    ((1, 2, 37, 53), False, dict(mode="bicubic", size=(70, 33))),
    ((2, 67, 13, 17), True, dict(mode="bilinear", size=(29, 31))),
    ((2, 3, 40, 44), True, dict(mode="bicubic", size=(17, 90), antialias=True)),
    ((1, 5, 64, 80), False, dict(mode="bilinear", size=(17, 23), antialias=True)),
    ((2, 9, 33, 35), True, dict(mode="nearest", size=(67, 18))),
    ((2, 4, 30, 31), False, dict(mode="nearest-exact", size=(11, 64))),
    ((2, 8, 30, 31), False, dict(mode="area", size=(7, 9))),
    ((1, 3, 9, 10, 11), False, dict(mode="trilinear", size=(17, 5, 23))),
    ((1, 19, 9, 10, 11), True, dict(mode="trilinear", size=(4, 21, 12), align_corners=True)),
    ((1, 2, 9, 10, 11), False, dict(mode="nearest", size=(18, 20, 5))),
]


def _id(c):
    shape, cl, kw = c
    return f"{kw['mode']}-{'x'.join(map(str, shape))}{'-cl' if cl else ''}-{kw.get('size')}"


def _make(shape, cl, dtype, requires_grad=False):
    x = torch.randn(shape, generator=torch.Generator().manual_seed(0), dtype=torch.float64).to(dtype)
    if cl:
        x = x.contiguous(memory_format=torch.channels_last if len(shape) == 4 else torch.channels_last_3d)
    return x.requires_grad_(requires_grad)


def _run(engine, x, kw, g):
    x = x.detach().requires_grad_(True)
    with executor(engine):
        y = ours(x, **kw)
        if g is None:
            return y, None
        (gx,) = torch.autograd.grad(y, x, g)
    return y, gx


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_engines_float64_vs_native(case):
    """float64 (the tables in double, as native's) against native, forward and backward."""
    shape, cl, kw = case
    x = _make(shape, cl, torch.float64, requires_grad=True)
    ref = native(x, **kw)
    g = torch.randn(ref.shape, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    (gr,) = torch.autograd.grad(ref, x, g)
    for engine in ENGINES:
        y, gx = _run(engine, x, kw, g)
        assert_close(y, ref)
        assert y.is_contiguous(memory_format=torch.channels_last) == ref.is_contiguous(memory_format=torch.channels_last)
        assert_close(gx, gr, atol=TOL[torch.float64]["atol"] * 4)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
@pytest.mark.parametrize("case", CASES, ids=_id)
def test_engines_agree_low_precision(case, dtype):
    """float32 / bfloat16: the executors agree with each other (parity with native at these sizes
    is the tables' business: tests/test_parity.py)."""
    shape, cl, kw = case
    x = _make(shape, cl, dtype)
    y0 = ours(x, **kw)
    g = torch.randn(y0.shape, generator=torch.Generator().manual_seed(1), dtype=torch.float64).to(dtype)
    (y1, g1), *others = (_run(e, x, kw, g) for e in ENGINES)
    for y2, g2 in others:
        assert_close(y2, y1, dtype)
        assert_close(g2, g1, dtype)


@pytest.mark.parametrize("engine", ENGINES)
def test_engines_agree(engine):
    """Every executor applies the same tables as the separable passes: equal up to float32
    rounding."""
    x = _make((2, 6, 45, 300), False, torch.float32)
    for kw in (dict(mode="bilinear", size=(91, 150)), dict(mode="bicubic", size=(20, 601)),
               dict(mode="bilinear", size=(15, 99), antialias=True)):
        with executor(engine):
            y = ours(x, **kw)
        with executor("separable"):
            torch.testing.assert_close(y, ours(x, **kw), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("mode,size", [("nearest", (3, 5)), ("area", (3, 5)), ("bilinear", (5, 30)),
                                       ("nearest-exact", (4, 40))])
def test_nonfinite_stay_local(mode, size, engine):
    """An inf / NaN reaches exactly the outputs whose window holds it (no 0 * inf from padding),
    forward and backward (grad of unread inputs is 0, as native's)."""
    with executor(engine):
        _nonfinite_stay_local(mode, size)


def _nonfinite_stay_local(mode, size):
    x = torch.rand(1, 2, 8, 20, dtype=torch.float64)
    x[0, 0, 3, 7] = float("inf")
    x[0, 1, 5, 2] = float("nan")
    y, ref = ours(x, size=size, mode=mode), native(x, size=size, mode=mode)
    assert torch.equal(y.isnan(), ref.isnan()) and torch.equal(y.isinf(), ref.isinf())
    fin = ref.isfinite()
    torch.testing.assert_close(y[fin], ref[fin])

    xg = torch.rand(1, 2, 8, 20, dtype=torch.float64, requires_grad=True)
    g = torch.rand(native(xg, size=size, mode=mode).shape, dtype=torch.float64)
    g[0, 0, 1, 1] = float("inf")
    (gx,) = torch.autograd.grad(ours(xg, size=size, mode=mode), xg, g)
    (gr,) = torch.autograd.grad(native(xg, size=size, mode=mode), xg, g)
    assert torch.equal(gx.isinf(), gr.isinf()) and torch.equal(gx.isnan(), gr.isnan())
    fin = gr.isfinite()
    torch.testing.assert_close(gx[fin], gr[fin])


def test_threads_agree():
    """Lines split in segments across threads give the same result as one thread."""
    x = _make((1, 1, 3, 20000), False, torch.float32)
    n = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        a = ours(x, size=(5, 33333), mode="bilinear")
        torch.set_num_threads(max(2, n))
        b = ours(x, size=(5, 33333), mode="bilinear")
    finally:
        torch.set_num_threads(n)
    assert torch.equal(a, b)


def test_blended_blocks_segments_agree():
    """A few wide lines of pairs (bilinear by about 3.3 and 3) split in segments across threads,
    whose segments start between blocks of eight (blended_blocks' outputs before the first block):
    the same result, bit for bit, as one thread's whole lines."""
    x = torch.rand(1, 2, 10, 3000, generator=torch.Generator().manual_seed(0)).requires_grad_()
    for size in ((3, 1001), (3, 900)):
        g = torch.rand(1, 2, *size, generator=torch.Generator().manual_seed(1))
        _agree_over_threads(x, dict(size=size, mode="bilinear"), g, (1, 2))


def _agree_over_threads(x, kw, g, counts):
    """ours(x, **kw) and its gradient for g with each thread count in turn: asserts they are the
    same, bit for bit, and returns them."""
    n = torch.get_num_threads()
    res = []
    try:
        for threads in counts:
            torch.set_num_threads(threads)
            y = ours(x, **kw)
            (gx,) = torch.autograd.grad(y, x, g)
            res.append((y, gx))
    finally:
        torch.set_num_threads(n)
    for y, gx in res[1:]:
        assert torch.equal(y, res[0][0]) and torch.equal(gx, res[0][1])
    return res


# With several threads, a call whose planes the threads cannot share out evenly (fewer planes
# than threads, three on two) runs the line sweep where one thread runs the separable passes
# (plan.cpp split_plane), in the passes' order: the same values, bit for bit, with 1, 2 and 3
# threads, forward and backward (the x4 upscale is one the sweep would otherwise take through
# its ring of rows, in another order).
PLANES = [
    ((1, 1, 224, 224), dict(size=(256, 256), mode="bilinear")),
    ((1, 3, 224, 224), dict(size=(256, 256), mode="bicubic")),
    ((1, 1, 224, 224), dict(size=(256, 256), mode="bicubic")),
    ((1, 1, 64, 64), dict(size=(256, 256), mode="bilinear")),
    ((1, 2, 180, 150), dict(size=(200, 250), mode="bicubic", align_corners=True)),
    ((1, 1, 128, 128), dict(size=(256, 256), mode="bilinear", antialias=True)),
    # the passes resample the last axis first (it grows less): they keep the call
    ((1, 1, 100, 200), dict(size=(300, 220), mode="bicubic")),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16], ids=str)
@pytest.mark.parametrize("shape,kw", PLANES, ids=lambda v: str(v))
def test_planes_threads_agree(shape, kw, dtype):
    x = torch.randn(shape, generator=torch.Generator().manual_seed(3)).to(dtype).requires_grad_()
    g = torch.randn(native(x.detach().float(), **kw).shape, generator=torch.Generator().manual_seed(4)).to(dtype)
    res = _agree_over_threads(x, kw, g, (1, 2, 3))
    wide = torch.float32 if dtype == torch.bfloat16 else dtype
    assert_close(res[0][0], native(x.detach().to(wide), **kw).to(dtype), dtype)


# With several threads, the separable passes run one task per thread over its own share of the
# planes, every pass (plan.cpp plane_shares: the shares even, or many planes each, and
# shares_pay: enough work, a small result); the values must be those of one thread, bit for
# bit: NCHW and channels_last, 2-D and 3-D, forward and backward, plane counts each thread
# count shares out and others it does not.
SHARES = [
    ((1, 4, 80, 100), False, dict(size=(121, 73), mode="bicubic")),
    ((2, 3, 120, 160), False, dict(size=(70, 250), mode="bilinear")),
    ((12, 1, 120, 120), False, dict(size=(60, 60), mode="area")),
    ((3, 5, 60, 60), False, dict(size=(90, 90), mode="bilinear", antialias=True)),
    ((6, 3, 62, 58), True, dict(size=(128, 32), mode="bicubic")),
    ((2, 3, 16, 18, 20), False, dict(size=(10, 34, 24), mode="trilinear")),
]


@pytest.mark.parametrize("shape,cl,kw", SHARES, ids=lambda v: str(v))
def test_plane_shares_agree(shape, cl, kw):
    x = _make(shape, cl, torch.float32, requires_grad=True)
    g = torch.randn(native(x.detach(), **kw).shape, generator=torch.Generator().manual_seed(2))
    with executor("separable"):
        res = _agree_over_threads(x, kw, g, (1, 2, 3, 4, 1))
    assert_close(res[0][0], native(x.detach(), **kw), torch.float32)


@pytest.mark.parametrize("shape,kw", [((4, 3, 60, 80), dict(size=(34, 122), mode="bilinear")),
                                      ((6, 1, 100, 100), dict(size=(40, 40), mode="bicubic", antialias=True))],
                         ids=str)
def test_plane_shares_agree_uint8(shape, kw):
    x = torch.randint(0, 256, shape, dtype=torch.uint8, generator=torch.Generator().manual_seed(3))
    n = torch.get_num_threads()
    try:
        ys = []
        for threads in (1, 2, 3, 4):
            torch.set_num_threads(threads)
            ys.append(ours(x, **kw))
    finally:
        torch.set_num_threads(n)
    assert all(torch.equal(y, ys[0]) for y in ys[1:])
    assert torch.equal(ys[0], native(x, **kw))


# The separable passes a chunk of planes at a time (csrc/common/plan.cpp chunk_planes, run_chunked):
# budgets that make chunks of one plane and of a few planes that do not divide the planes, with 1
# and 2 threads (the workers then take chunks in turn, each its own scratch); the values must be
# those of the whole passes, bit for bit, forward and backward. float32, bfloat16 and float16
# (scratch in float), float64, fixed-point uint8 (uint8 scratch), channels_last (chunks of whole
# images) and 3-D.
CHUNKED_PASSES = [
    ((3, 5, 20, 24), False, torch.float32, dict(scale_factor=2, mode="bilinear")),
    ((2, 7, 17, 23), False, torch.float64, dict(size=(30, 41), mode="bicubic", align_corners=True)),
    ((2, 3, 9, 10, 11), False, torch.float32, dict(scale_factor=2, mode="trilinear")),
    ((1, 5, 40, 50), False, torch.bfloat16, dict(size=(17, 19), mode="bilinear", antialias=True)),
    ((3, 5, 32, 32), False, torch.float16, dict(size=(7, 9), mode="area")),
    ((2, 6, 30, 30), False, torch.float32, dict(size=(17, 45), mode="nearest-exact")),
    ((5, 3, 20, 20), True, torch.float32, dict(scale_factor=2, mode="bicubic")),
]
WHOLE = 1 << 50  # larger than any scratch here: the passes whole


@pytest.mark.parametrize("budget", [64, 3000], ids=lambda b: f"budget{b}")
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape,cl,dtype,kw", CHUNKED_PASSES, ids=lambda v: str(v))
def test_chunked_passes_equal_whole(shape, cl, dtype, kw, threads, budget):
    x = _make(shape, cl, dtype, requires_grad=True)
    g = torch.randn(native(x.detach().double(), **kw).shape, generator=torch.Generator().manual_seed(4)).to(dtype)
    n = torch.get_num_threads()
    res = []
    try:
        torch.set_num_threads(threads)
        for b in (WHOLE, budget):
            with executor("separable"), pass_chunk_bytes(b):
                y = ours(x, **kw)
                (gx,) = torch.autograd.grad(y, x, g)
            res.append((y, gx))
    finally:
        torch.set_num_threads(n)
    (y0, g0), (y1, g1) = res
    assert y1.stride() == y0.stride() and torch.equal(y1, y0) and torch.equal(g1, g0)
    assert_close(y0.double(), native(x.detach().double(), **kw), dtype)


@pytest.mark.parametrize("threads", [1, 2])
def test_chunked_passes_equal_whole_uint8(threads):
    x = torch.randint(0, 256, (2, 3, 64, 80), dtype=torch.uint8, generator=torch.Generator().manual_seed(5))
    kw = dict(size=(30, 33), mode="bilinear", antialias=True)
    n = torch.get_num_threads()
    try:
        torch.set_num_threads(threads)
        ys = []
        for b in (WHOLE, 500):
            with pass_chunk_bytes(b):
                ys.append(ours(x, **kw))
    finally:
        torch.set_num_threads(n)
    assert torch.equal(ys[1], ys[0]) and torch.equal(ys[0], native(x, **kw))


# uint8 copies of channels_last positions under 16 bytes (fixed_point.cpp U8Form::Shuffle): the
# output line in blocks of 16 bytes, each one or two byte shuffles, or, where its positions lie
# too far apart in the input, copied a position's piece at a time. Downscales mix both kinds of
# block; every channel count from 2 to 15, bit for bit against native.
@pytest.mark.parametrize("c", range(2, 16))
@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
def test_uint8_copies_of_short_positions(c, mode):
    x = torch.randint(0, 256, (2, c, 211, 132), dtype=torch.uint8, generator=torch.Generator().manual_seed(c))
    x = x.contiguous(memory_format=torch.channels_last)
    for size in [(114, 68), (70, 41), (9, 5), (250, 150), (211, 131)]:
        assert torch.equal(ours(x, size=size, mode=mode), native(x, size=size, mode=mode)), size


def test_pass_chunk_bytes_seam_restores_and_refuses():
    from resize_ad import _testing
    with pass_chunk_bytes(100):
        with pass_chunk_bytes(200):
            assert _testing._pass_chunk_bytes == 200
        assert _testing._pass_chunk_bytes == 100
    assert _testing._pass_chunk_bytes == 0
    with pytest.raises(ValueError, match="positive byte count"):
        with pass_chunk_bytes(0):
            pass


# Outputs from this size on stream in the tests that say so, on every machine (the machine's own
# threshold is 8 to 24 MiB: resize_cpu.cpp stream_threshold).
STREAM_AT = 8 << 20


# The line sweep deals its lines out in chunks: each thread owns an interleaved set and takes
# what the others leave (csrc/cpu/parallel.h). Which thread computes which line, and where the
# ring of rows and the repeated-line copies restart, vary with the thread count and from call to
# call; the values must not.
CHUNKED = [
    ((4, 16, 64, 64), False, dict(scale_factor=2, mode="bilinear")),  # the ring
    ((2, 3, 256, 256), True, dict(scale_factor=2, mode="bicubic")),  # folded RGB, ring
    ((2, 4, 100, 90), True, dict(size=(131, 117), mode="bicubic")),  # folded RGBA, ragged pixels
    ((1, 4, 2, 3001), True, dict(size=(3, 5003), mode="bicubic")),  # one line's segments
    ((4, 16, 128, 128), False, dict(scale_factor=2, mode="nearest")),  # staged, streamed
    ((4, 16, 128, 128), True, dict(scale_factor=2, mode="nearest")),  # streamed copies
    ((4, 32, 96, 96), False, dict(size=(23, 41), mode="area")),
    ((2, 8, 40, 50, 60), False, dict(size=(17, 81, 33), mode="trilinear")),
]


@pytest.mark.parametrize("shape,cl,kw", CHUNKED, ids=lambda v: str(v))
@stream_threshold(STREAM_AT)
def test_chunks_agree(shape, cl, kw):
    x = _make(shape, cl, torch.float32).requires_grad_()
    g = torch.randn(native(x.detach(), **kw).shape)
    _agree_over_threads(x, kw, g, (1, 2, 3, 1, 3))


def test_threads_are_torchs(tmp_path):
    """The kernels run on torch's intra-op pool: a process that resizes has no threads besides
    torch's own (measured against the same work on native ops), and torch.set_num_threads is
    respected."""
    import subprocess
    import sys
    code = (
        "import os, torch, resize_ad\n"
        "torch.set_num_threads(4)\n"
        "x = torch.randn(8, 16, 64, 64)\n"
        "torch.nn.functional.interpolate(x, scale_factor=2, mode='bilinear')\n"
        "n_native = len(os.listdir('/proc/self/task'))\n"
        "for _ in range(3):\n"
        "    resize_ad.interpolate(x, scale_factor=2, mode='bilinear')\n"
        "    resize_ad.interpolate(x, size=(17, 300), mode='bicubic', antialias=True)\n"
        "print(n_native, len(os.listdir('/proc/self/task')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    n_native, n_ours = map(int, out.stdout.split())
    assert n_ours == n_native


# Nearest outputs of 8 MiB and more (STREAM_AT) of one channel per line position leave the line sweep
# through a per-thread stage and non-temporal stores (resize_cpu.cpp stream_threshold): the same
# values as native, in every layout, with whole lines (nseg == 1) and with lines split in
# segments (few long lines), and with the repeated lines of the upscale copied from the stage.
# Copies and two-tap rows of several channels (channels_last nearest, bilinear and trilinear;
# 9 channels: pixels not 16-byte aligned) and the ring's blends (channels_last RGB and RGBA
# upscales, rows whose ends are not cache-line aligned among them) store non-temporally
# themselves (Sweep::stream_rows), their repeated lines computed again; the other weighted cases
# take the ordinary stores at the same sizes.
STREAMED = [
    ((4, 16, 128, 128), dict(scale_factor=2, mode="bilinear"), torch.float32, None),
    ((4, 16, 128, 128), dict(scale_factor=2, mode="bilinear"), torch.float32, torch.channels_last),
    ((4, 16, 128, 128), dict(scale_factor=2, mode="nearest"), torch.float32, None),
    ((4, 16, 128, 128), dict(scale_factor=2, mode="nearest"), torch.float32, torch.channels_last),
    ((8, 16, 128, 128), dict(scale_factor=2, mode="nearest-exact"), torch.bfloat16, None),
    ((1, 2, 3, 8, 200000), dict(size=(5, 8, 400000), mode="nearest"), torch.float32, None),
    ((8, 16, 128, 128), dict(scale_factor=2, mode="bilinear"), torch.bfloat16, None),
    ((1, 1, 3, 700001), dict(size=(7, 1400003), mode="nearest"), torch.float32, None),
    ((1, 1, 3, 700001), dict(size=(6, 1400002), mode="bilinear"), torch.float32, None),
    ((1, 2, 3, 8, 200000), dict(size=(5, 8, 400000), mode="trilinear"), torch.float32, None),
    ((2, 16, 32, 32, 32), dict(scale_factor=2, mode="trilinear"), torch.float32, torch.channels_last_3d),
    ((4, 16, 128, 128), dict(size=(256, 257), mode="bilinear"), torch.float32, torch.channels_last),
    ((2, 3, 512, 700), dict(scale_factor=2, mode="bilinear"), torch.float32, torch.channels_last),
    ((1, 4, 512, 512), dict(scale_factor=2, mode="bicubic"), torch.float32, torch.channels_last),
    ((1, 3, 700, 701), dict(size=(1400, 1403), mode="bicubic"), torch.float32, torch.channels_last),
    ((1, 3, 700, 701), dict(size=(1400, 1403), mode="bilinear", align_corners=True), torch.float64,
     torch.channels_last),
    ((1, 3, 512, 512), dict(scale_factor=2, mode="bicubic"), torch.float32, None),
    ((1, 3, 512, 512), dict(scale_factor=2, mode="nearest"), torch.float32, torch.channels_last),
    ((2, 9, 300, 301), dict(size=(601, 602), mode="nearest"), torch.float32, torch.channels_last),
    ((2, 16, 128, 128), dict(scale_factor=2, mode="nearest-exact"), torch.float64, torch.channels_last),
]


@pytest.mark.parametrize("shape,kw,dtype,fmt", STREAMED, ids=lambda v: str(v))
@stream_threshold(STREAM_AT)
def test_streamed_outputs(shape, kw, dtype, fmt):
    g = torch.Generator().manual_seed(5)
    x = torch.randn(shape, generator=g).to(dtype)
    if fmt is not None:
        x = x.contiguous(memory_format=fmt)
    ref = native(x, **kw)
    # Outputs stream only into pages already mapped (resize_cpu.cpp mapped): the first call's
    # block may be fresh from mmap, the later ones reuse freed memory.
    for _ in range(3):
        y = ours(x, **kw)
        assert y.numel() * y.element_size() >= 8 << 20
        assert y.is_contiguous(memory_format=fmt or torch.contiguous_format)
        if kw["mode"].startswith("nearest") and dtype != torch.bfloat16:
            assert torch.equal(y, ref)
        elif dtype == torch.bfloat16:  # native rounds its bfloat16 intermediates: against float32
            assert_close(y, native(x.float(), **kw).to(dtype), dtype)
        else:
            assert_close(y, ref, dtype)
    for name in EXECUTORS:  # every executor, the same values
        with executor(name):
            assert_close(ours(x, **kw), y, dtype)


# channels_last with fewer than eight channels: the line sweep folds the channels into the line
# along the last axis (resize_cpu.cpp make_sweep) and gathers along it with a tap stride of C.
# One axis at a time (the separable passes) the sums are the contiguous layout's, term by term:
# the same values exactly, forward and backward, including ragged rows (antialias, transposed
# tables), long lines split in segments at any channel, and 3-D. The line sweep may order a
# folded line's sums otherwise (the ring of rows, chosen by the cost of its gathers): equal to
# rounding, and to native's.
FOLDED = [
    ((2, 64, 80), dict(scale_factor=2, mode="bilinear")),
    ((33, 47), dict(size=(65, 93), mode="bicubic", align_corners=True)),
    ((64, 80), dict(size=(25, 31), mode="bilinear")),
    ((64, 80), dict(size=(21, 17), mode="bicubic", antialias=True)),
    ((40, 44), dict(size=(17, 90), mode="bilinear", antialias=True)),
    ((30, 31), dict(size=(67, 18), mode="nearest")),
    ((30, 31), dict(size=(11, 64), mode="nearest-exact")),
    ((32, 36), dict(size=(8, 9), mode="area")),
    ((30, 31), dict(size=(7, 9), mode="area")),
    ((3, 5000), dict(size=(4, 9001), mode="bilinear")),
    ((3, 5000), dict(size=(2, 1999), mode="bicubic", antialias=True)),
    ((9, 10, 11), dict(size=(17, 5, 23), mode="trilinear")),
    ((9, 10, 11), dict(size=(4, 21, 12), mode="nearest")),
    # x2 upscales of RGB and RGBA: pairs of pixels whose taps step a pixel per pair
    # (line_sweep.h steady_pairs), and a long line split in segments that start inside a pixel.
    ((20, 40), dict(scale_factor=2, mode="bicubic")),
    ((3, 2499), dict(size=(4, 4998), mode="bilinear")),
    # nearest RGB and RGBA lines copied in whole vectors (line_sweep.h pixel_copy: eight RGB
    # pixels per three stores), long lines split in segments that end inside a group.
    ((3, 2500), dict(size=(5, 3001), mode="nearest")),
    # slight up- and downscales: runs of pixels whose taps step one pixel each (line_sweep.h
    # unit_runs_of), whole vectors along each run; long lines split in segments inside runs.
    ((3, 1000), dict(size=(4, 876), mode="bilinear")),
    ((3, 875), dict(size=(4, 1000), mode="bicubic")),
    ((40, 64), dict(size=(36, 57), mode="bilinear", align_corners=True)),
]


# channels_last RGB slight resizes by unit runs (line_sweep.h unit_runs_of), with lines short
# enough to stay whole: the first four's runs follow one another without a gap (one loop over
# Line::unit_vecs), the align_corners one's do not (a loop per run).
UNIT_RUNS = [
    ((20, 56), dict(size=(24, 64), mode="bilinear")),
    ((24, 64), dict(size=(20, 56), mode="bilinear")),
    ((20, 56), dict(size=(24, 64), mode="bicubic")),
    ((24, 64), dict(size=(20, 56), mode="bicubic")),
    ((40, 64), dict(size=(36, 57), mode="bilinear", align_corners=True)),
]


@pytest.mark.parametrize("spatial,kw", UNIT_RUNS, ids=lambda v: str(v))
def test_unit_runs_write_every_output(spatial, kw):
    """Every output of a line of unit runs is written: before each call the block the result
    will take is filled with NaN (a result of the same size, freed), so an output left
    unwritten shows, rather than the previous call's value there."""
    x = torch.randn((1, 3) + spatial, generator=torch.Generator().manual_seed(5))
    x = x.contiguous(memory_format=torch.channels_last)
    expected = native(x, **kw)
    for name in EXECUTORS:
        torch.full_like(expected, float("nan"))  # freed at once: the next result's block
        y, _ = _run(name, x, kw, None)
        assert not torch.isnan(y).any(), name
        assert_close(y, expected, torch.float32)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16], ids=str)
@pytest.mark.parametrize("channels", [2, 3, 4, 5, 7])
@pytest.mark.parametrize("spatial,kw", FOLDED, ids=lambda v: str(v))
def test_folded_channels_equal_contiguous(spatial, kw, channels, dtype):
    if len(spatial) == 3 and spatial[0] == 2:  # a batch of 2 images of 64 x 80
        shape = (2, channels) + spatial[1:]
    else:
        shape = (1, channels) + spatial
    x = torch.randn(shape, generator=torch.Generator().manual_seed(3), dtype=torch.float64).to(dtype)
    fmt = torch.channels_last if x.dim() == 4 else torch.channels_last_3d
    xc = x.contiguous(memory_format=fmt)
    g = torch.randn(native(x.float(), **kw).shape, generator=torch.Generator().manual_seed(4)).to(dtype)
    y, gx = _run("separable", x, kw, g)
    yc, gxc = _run("separable", xc, kw, g.contiguous(memory_format=fmt))
    assert torch.equal(yc, y) and torch.equal(gxc, gx)
    for name in EXECUTORS:
        ys, gs = _run(name, xc, kw, g.contiguous(memory_format=fmt))
        assert_close(ys, yc, dtype)
        assert_close(gs, gxc, dtype)
    if dtype != torch.bfloat16:  # and native's values (bfloat16: test_engines_agree_low_precision)
        assert_close(yc, native(xc, **kw), dtype)


# Folded RGB / RGBA downscales that read a fraction of each blended span resample the input
# lines directly, blending each tap's pixel where it is read (line_sweep.h blended_pairs); the
# line sweep of the planes (NCHW) blends the span first, then gathers. RGBA lines of two taps
# take both from one eight-float span per pixel (pairs_of): blended (halvings), from scratch
# (slight downscales) or from the input line itself (rows kept). The same sums in the same
# order: equal bit for bit, with and without the zero slot (800 -> 224 trims a zero tap from
# every seventh row; 397 -> 112 from none).
BLENDED_PAIRS = [
    ((1, 30, 400), dict(size=(11, 112), mode="bilinear")),
    ((2, 60, 800), dict(size=(22, 224), mode="bilinear")),
    ((1, 31, 397), dict(size=(9, 112), mode="bilinear")),
    ((1, 40, 300), dict(size=(13, 50), mode="bilinear", align_corners=True)),
    ((1, 64, 66), dict(size=(32, 33), mode="area")),
    ((1, 30, 400), dict(size=(11, 350), mode="bilinear")),
    ((1, 20, 400), dict(size=(20, 224), mode="bilinear")),
    # Whole lines of pairs (resize_cpu.cpp own_lines): an RGBA halving, lines of one input row
    # between lines of two, and four taps along both axes.
    ((1, 64, 64), dict(size=(32, 32), mode="area")),
    ((1, 70, 64), dict(size=(30, 32), mode="bilinear")),
    ((2, 40, 400), dict(size=(17, 56), mode="bicubic")),
    # RGB halvings (line_sweep.h rgb_halving): lines of three and four rows, both kinds in one
    # plane with a tail of pixels after the last block of eight, and long lines.
    ((1, 30, 64), dict(size=(10, 32), mode="area")),
    ((1, 40, 64), dict(size=(10, 32), mode="area")),
    ((2, 30, 70), dict(size=(13, 35), mode="area")),
    ((1, 9, 1030), dict(size=(4, 515), mode="bilinear")),
    # An input larger than the caches keep (Sweep::prefetch: each pair's taps loaded).
    ((1, 520, 1030), dict(size=(260, 515), mode="bilinear")),
    # Four taps one pixel apart (bicubic): a halving (the first and last pixels ragged), and a
    # downscale whose pixels step two and three pixels.
    ((1, 40, 64), dict(size=(20, 32), mode="bicubic")),
    ((2, 60, 80), dict(size=(22, 30), mode="bicubic")),
    # RGBA halvings of four taps (line_sweep.h halving_quads, AVX-512): antialiased bilinear,
    # and one output line of bicubic split in segments (2 threads) inside the run.
    ((1, 20, 130), dict(size=(10, 65), mode="bilinear", antialias=True)),
    ((1, 2, 300), dict(size=(1, 150), mode="bicubic")),
    # Ragged pixels (a zero tap trimmed from every 19th pixel: too few for the zero slot),
    # rewritten after the blended line (blended_ragged): spans and single pixels between them,
    # and pixels of one load per tap.
    ((1, 30, 270), dict(size=(20, 190), mode="bilinear")),
    ((1, 30, 490), dict(size=(20, 190), mode="bilinear")),
    # RGB and RGBA quads (line_sweep.h rgb_quads, rgba_quads, AVX-512), staged: four taps with
    # the zero slot (5/3, every third pixel's zero taps trimmed), read in place (an unchanged
    # height), odd pixel counts after the last quad, two taps; one output line in segments.
    ((2, 30, 640), dict(size=(17, 384), mode="bicubic")),
    ((1, 12, 640), dict(size=(12, 384), mode="bicubic")),
    ((1, 30, 513), dict(size=(20, 301), mode="bicubic")),
    ((1, 30, 500), dict(size=(20, 301), mode="bilinear")),
    ((1, 2, 1000), dict(size=(1, 390), mode="bicubic")),
]


@pytest.mark.parametrize("channels", [3, 4])
@pytest.mark.parametrize("spatial,kw", BLENDED_PAIRS, ids=lambda v: str(v))
def test_blended_pairs_equal_planes(spatial, kw, channels):
    shape = (spatial[0], channels) + spatial[1:]
    x = torch.randn(shape, generator=torch.Generator().manual_seed(5))
    xc = x.contiguous(memory_format=torch.channels_last)
    with executor("line_sweep"):
        y, yc = ours(x, **kw), ours(xc, **kw)
    assert yc.is_contiguous(memory_format=torch.channels_last)
    assert torch.equal(yc, y)
    assert_close(yc, native(xc, **kw), torch.float32)


@pytest.mark.parametrize("channels", [3, 4])
@pytest.mark.parametrize("spatial,size", [((6, 800), (3, 224)), ((5, 800), (5, 224)), ((4, 400), (4, 350))],
                         ids=str)
def test_blended_pairs_padding_reads_zero(spatial, size, channels):
    """800 -> 224 trims the zero tap of every seventh pixel, padded with the zero slot: where pixel
    pairs take both taps from one span (pairs_of), the padded tap's lanes are the neighbour's
    values and must read 0, so that an inf next to such a pixel stays out of it (no 0 * inf), as
    in the planes' line sweep."""
    x = torch.rand((1, channels) + spatial, generator=torch.Generator().manual_seed(8))
    x[torch.rand(x.shape, generator=torch.Generator().manual_seed(9)) < 0.05] = float("inf")
    xc = x.contiguous(memory_format=torch.channels_last)
    with executor("line_sweep"):
        y, yc = ours(x, size=size, mode="bilinear"), ours(xc, size=size, mode="bilinear")
    assert yc.isinf().any() and not y.isnan().any()
    assert torch.equal(yc.isnan(), y.isnan()) and torch.equal(yc, y)


@pytest.mark.parametrize("channels", [3, 4])
@pytest.mark.parametrize("width,out", [(270, 190), (490, 190), (500, 420)])
@pytest.mark.parametrize("rows", [20, 1])
def test_blended_ragged_pixels(rows, width, out, channels):
    """Bilinear 270 and 490 -> 190 trim the zero tap of every 19th pixel (a tap on an input
    position), 500 -> 420 of every 21st. Such a pixel keeps a padding tap of weight 0 where its
    second tap would be (so that RGB unit runs pass it: 500 -> 420, staged), or the blended
    kernels read one (blended_pairs); an inf there would give inf + 0 * inf = NaN. The pixel is
    rewritten after the line from its one tap (fix_ragged, blended_ragged): inf or a number, as
    the product gather has it. Every second column of rows 14 and 15 (which both output heights
    read) is inf, so that ragged pixels and their padding land on some. One output row: the line
    in segments (sweep_segment)."""
    x = torch.rand((1, channels, 30, width), generator=torch.Generator().manual_seed(3))
    x[..., 14, ::2] = float("inf")
    x[..., 15, 1::2] = float("-inf")
    x[..., 16, ::4] = float("nan")
    xc = x.contiguous(memory_format=torch.channels_last)
    kw = dict(size=(rows, out), mode="bilinear")
    g = torch.rand((1, channels, rows, out), generator=torch.Generator().manual_seed(4))
    y = _sweep_equals_product_gather(xc, kw, g.contiguous(memory_format=torch.channels_last))
    assert y.isinf().any() and y.isnan().any()
    assert (y.isnan() <= native(x, **kw).isnan()).all()


@pytest.mark.parametrize("mode", ["bicubic", "bilinear"])
@pytest.mark.parametrize("spatial,size,align_corners", [
    ((6, 47), (6, 93), True), ((20, 20), (31, 29), False), ((30, 30), (17, 19), False),
    ((5, 12), (5, 40), True), ((64, 64), (80, 72), False)], ids=str)
def test_rgba_ragged_pixels_equal_rgb(spatial, size, align_corners, mode):
    """The border pixels whose taps clamp onto one pixel (ragged rows, recomputed after the vector
    sweep: fix_ragged) take a 128-bit multiply-add per tap on RGBA lines and scalar ones on RGB:
    RGBA's first three channels equal RGB's bit for bit, inf and NaN at the borders included."""
    x = torch.randn((2, 4) + spatial, generator=torch.Generator().manual_seed(4))
    x[..., 0] = float("inf")
    x[..., 1, -1] = float("nan")
    x[..., 2, 1] = float("-inf")
    kw = dict(size=size, mode=mode, align_corners=align_corners)
    rgba = ours(x.contiguous(memory_format=torch.channels_last), **kw)[:, :3].contiguous()
    rgb = ours(x[:, :3].contiguous(memory_format=torch.channels_last), **kw).contiguous()
    assert rgb.isnan().any()
    assert torch.equal(rgba.view(torch.int32), rgb.view(torch.int32))


# Halvings of planes (two taps per output along the rows) resample the input lines directly,
# blending each block's loads in registers (line_sweep.h blended_blocks); the separable passes
# blend the rows into scratch first, then take the same taps. The same sums in the same order:
# equal bit for bit, lines of whole blocks and with a tail (and segments with two threads); the
# heights shrink by other factors too, so that the rows' weights are not all 1/2 (products by
# 1/2 are exact, and any order of their sums would agree).
HALVINGS = [
    ((2, 3, 40, 64), dict(size=(17, 32), mode="bilinear")),
    ((2, 3, 40, 64), dict(size=(20, 32), mode="bilinear")),
    ((1, 2, 30, 100), dict(size=(13, 50), mode="area")),
    ((1, 1, 64, 1030), dict(size=(25, 515), mode="bilinear")),
    ((1, 2, 9, 64), dict(size=(4, 32), mode="bilinear")),
    # Lines of three and of four rows, both kinds in one plane, and lines of one row (a
    # downscale by 7 / 3 lands every third output row on an input row) between lines of two.
    ((1, 2, 30, 64), dict(size=(10, 32), mode="area")),
    ((1, 2, 40, 64), dict(size=(10, 32), mode="area")),
    ((2, 2, 30, 64), dict(size=(13, 32), mode="area")),
    ((1, 2, 70, 64), dict(size=(30, 32), mode="bilinear")),
    # An input larger than the caches keep (Sweep::prefetch) whose rows of 4 KiB run_sweep would
    # not prefetch: its lines in own_lines' loop.
    ((1, 1, 1040, 1030), dict(size=(520, 515), mode="bilinear")),
    # Such an input whose lines share no rows and take no halving blocks (kStagedAhead: the next
    # line's rows prefetched as this line's are blended), rows of 1000 floats (a tail of eight).
    ((1, 2, 600, 1000), dict(size=(224, 400), mode="bilinear")),
    # Staged lines (blended into scratch, then gathered) in own_lines' loop too where some
    # pixels are ragged (fixed by gather_dispatch), and lines of a length no multiple of eight.
    ((1, 1, 256, 256), dict(size=(224, 224), mode="bicubic")),
    ((1, 2, 100, 37), dict(size=(40, 29), mode="bicubic")),
]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape,kw", HALVINGS, ids=lambda v: str(v))
def test_blended_halving_equals_passes(shape, kw, threads):
    x = torch.randn(shape, generator=torch.Generator().manual_seed(6))
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        with executor("line_sweep"):
            y = ours(x, **kw)
        with executor("separable"):
            ys = ours(x, **kw)
    finally:
        torch.set_num_threads(previous)
    assert torch.equal(y, ys)
    assert_close(y, native(x, **kw), torch.float32)


# Upscales along the leading axes take the ring of rows (resize_cpu.cpp Sweep::ring): each input
# line resampled along the last axis once, into a per-thread slot, and every output line a blend
# of slots. The order of the sums depends on the tables alone: the same values with one thread
# and with several (lines split in segments, each with its own slots), and native's.
RING = [
    ((1, 1, 6, 600), dict(size=(13, 1200), mode="bilinear")),
    ((1, 2, 7, 900), dict(size=(15, 1800), mode="bicubic")),
    ((1, 3, 5, 7, 700), dict(size=(9, 13, 1400), mode="trilinear")),
    ((2, 4, 20, 30), dict(scale_factor=2, mode="bilinear", align_corners=True)),
    ((1, 1, 40, 50), dict(size=(90, 70), mode="bilinear", antialias=True)),
]


def _sweep_threads_agree(x, kw, g):
    """The line sweep's result and gradient with 1 thread, asserted equal bit for bit to those
    with several."""
    n = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        y1, g1 = _run("line_sweep", x, kw, g)
        torch.set_num_threads(max(2, n))
        y2, g2 = _run("line_sweep", x, kw, g)
    finally:
        torch.set_num_threads(n)
    assert torch.equal(y1, y2) and torch.equal(g1, g2)
    return y1, g1


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16], ids=str)
@pytest.mark.parametrize("shape,kw", RING, ids=lambda v: str(v))
def test_ring_threads_agree(shape, kw, dtype):
    x = torch.randn(shape, generator=torch.Generator().manual_seed(6), dtype=torch.float64).to(dtype)
    g = torch.randn(native(x.float(), **kw).shape, generator=torch.Generator().manual_seed(7)).to(dtype)
    y1, g1 = _sweep_threads_agree(x, kw, g)
    # native in the dtype (bfloat16: in float32, native rounds its bfloat16 intermediates)
    wide = torch.float32 if dtype == torch.bfloat16 else dtype
    xg = x.to(wide).requires_grad_()
    ref = native(xg, **kw)
    (gr,) = torch.autograd.grad(ref, xg, g.to(wide))
    assert_close(y1, ref.detach().to(dtype), dtype)
    assert_close(g1, gr.to(dtype), dtype)


# Each thread keeps its ring of rows from one of its chunks to the next (line_sweep.h run_sweep):
# a chunk that follows the thread's last one resamples only the input lines it adds. Sweeps of
# many chunks per thread (channels_last RGB and RGBA upscales of 224² to 256², 256 lines) have
# the values of one thread's single chunk, forward and backward.
@pytest.mark.parametrize("channels", [3, 4])
@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_ring_chunks_agree(channels, mode):
    x = torch.randn((1, channels, 224, 224), generator=torch.Generator().manual_seed(6))
    x = x.contiguous(memory_format=torch.channels_last)
    kw = dict(size=(256, 256), mode=mode)
    g = torch.randn((1, channels, 256, 256), generator=torch.Generator().manual_seed(7))
    g = g.contiguous(memory_format=torch.channels_last)
    y1, g1 = _sweep_threads_agree(x, kw, g)
    assert_close(y1, native(x, **kw), torch.float32)


# Lines of several channels per position (channels_last) whose leading taps are few blend them
# and apply the last axis' table in one sweep where that costs less than the blended line in
# scratch (line_sweep.h fuse_pays: float32 with channels a multiple of eight, float64 with a
# multiple of four): halvings (area,
# bilinear), the backward of nearest x2 and of a bilinear halving, rows a segment of a long line
# reads, ragged rows (antialias), 3-D. The channels are independent and each path sums a
# position's taps in the same order: 16 channels (fused) give the values of the same 16 among 17
# (which stay staged), forward and backward, including an 8 MiB gradient that streams
# (Sweep::stream_rows) once its pages are mapped.
FUSED = [
    ((64, 80), dict(size=(32, 40), mode="area")),
    ((64, 80), dict(scale_factor=0.5, mode="bilinear")),
    ((32, 40), dict(scale_factor=2, mode="nearest")),
    ((32, 40), dict(scale_factor=2, mode="nearest-exact")),
    ((64, 80), dict(scale_factor=0.5, mode="bicubic")),
    ((60, 70), dict(size=(37, 23), mode="bilinear", antialias=True)),
    ((4, 3000), dict(size=(2, 1500), mode="bilinear")),
    ((9, 10, 11), dict(size=(4, 5, 6), mode="trilinear")),
    ((8, 12, 10), dict(size=(16, 24, 20), mode="nearest")),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("spatial,kw", FUSED, ids=lambda v: str(v))
def test_fused_lines_equal_staged(spatial, kw, dtype):
    fmt = torch.channels_last if len(spatial) == 2 else torch.channels_last_3d
    x = torch.randn((2, 17) + spatial, generator=torch.Generator().manual_seed(8), dtype=dtype).contiguous(
        memory_format=fmt)
    g = torch.randn(native(x, **kw).shape, generator=torch.Generator().manual_seed(9), dtype=dtype).contiguous(
        memory_format=fmt)
    y17, g17 = _run("line_sweep", x, kw, g)
    y16, g16 = _run("line_sweep", x[:, :16].contiguous(memory_format=fmt), kw,
                    g[:, :16].contiguous(memory_format=fmt))
    assert torch.equal(y16, y17[:, :16]) and torch.equal(g16, g17[:, :16])
    xg = x.detach().requires_grad_()
    ref = native(xg, **kw)
    (gr,) = torch.autograd.grad(ref, xg, g)
    assert_close(y17, ref.detach(), dtype)
    assert_close(g17, gr, dtype)


@stream_threshold(STREAM_AT)
def test_fused_streamed_gradient():
    x = torch.randn(2, 16, 256, 256, generator=torch.Generator().manual_seed(10)).contiguous(
        memory_format=torch.channels_last)
    g = torch.randn(2, 16, 128, 128, generator=torch.Generator().manual_seed(11)).contiguous(
        memory_format=torch.channels_last)
    kw = dict(scale_factor=0.5, mode="bilinear")
    x17 = torch.cat([x, x[:, :1]], 1).contiguous(memory_format=torch.channels_last)
    g17 = torch.cat([g, g[:, :1]], 1).contiguous(memory_format=torch.channels_last)
    _, ref = _run("line_sweep", x17, kw, g17)
    for _ in range(3):  # the later calls reuse freed, mapped blocks (resize_cpu.cpp mapped)
        _, gx = _run("line_sweep", x, kw, g)
        assert gx.numel() * gx.element_size() >= 8 << 20
        assert torch.equal(gx, ref[:, :16])


# Outputs of 32 MiB and more come fresh from mmap on every call (glibc maps blocks that large
# itself). With 4 KiB pages (huge pages off, or the kernel's THP disabled) the line sweep faults
# them in ahead of the lines (Sweep::pretouch), each thread within the bytes of its own chunk of
# lines, segments of one long line included; with huge pages it writes them as they come. The
# same values with 1, 2 and 3 threads, and native's.
PRETOUCHED = [
    ((1, 1, 3, 1500000), dict(size=(5, 3000001), mode="bilinear"), None),
    ((2, 16, 256, 256), dict(scale_factor=2, mode="bilinear"), torch.channels_last),
    ((2, 16, 256, 256), dict(scale_factor=2, mode="nearest"), None),
]


@pytest.mark.parametrize("huge", [False, True], ids=["4k_pages", "huge_pages"])
@pytest.mark.parametrize("shape,kw,fmt", PRETOUCHED, ids=lambda v: str(v))
def test_fresh_outputs_pretouched(shape, kw, fmt, huge):
    x = torch.randn(shape, generator=torch.Generator().manual_seed(12))
    if fmt is not None:
        x = x.contiguous(memory_format=fmt)
    ref = native(x, **kw)
    n = torch.get_num_threads()
    ys = []
    try:
        for t in (1, 2, 3):
            torch.set_num_threads(t)
            with executor("line_sweep"), huge_pages(huge):
                ys.append(ours(x, **kw))
    finally:
        torch.set_num_threads(n)
    assert ys[0].numel() * ys[0].element_size() >= 32 << 20
    assert torch.equal(ys[1], ys[0]) and torch.equal(ys[2], ys[0])
    assert_close(ys[0], ref, torch.float32)


def _thp_mode():
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            text = f.read()
    except OSError:
        return None
    return next((m for m in ("always", "madvise", "never") if f"[{m}]" in text), None)


# Results fresh from mmap (33.5 MB: an output, and a gradient) get transparent huge pages where
# the kernel leaves them to madvise: every whole 2 MiB page inside the block is huge; with the
# seam off, none is. The values are the same either way, and native's. In a new process, whose
# heap is small: glibc maps blocks that large fresh (a long-lived heap may serve them from free
# memory that an earlier block's advice still covers).
_HUGE_PAGES_CHILD = """
import json, torch, torch.nn.functional as F, resize_ad
from resize_ad._testing import huge_pages

def anon_huge_kb(t):  # AnonHugePages of the mappings overlapping t's bytes
    lo, hi = t.data_ptr(), t.data_ptr() + t.numel() * t.element_size()
    total, overlaps = 0, False
    for line in open("/proc/self/smaps"):
        head = line.split()[0]
        if "-" in head and ":" not in head:
            a, b = (int(v, 16) for v in head.split("-"))
            overlaps = a < hi and lo < b
        elif overlaps and head == "AnonHugePages:":
            total += int(line.split()[1])
    return total

gen = torch.Generator().manual_seed(3)
x = torch.randn(8, 64, 64, 64, generator=gen)
xb = torch.randn(8, 64, 128, 128, generator=gen, requires_grad=True)
kb = dict(size=(64, 64), mode="bilinear", align_corners=False)
g = torch.randn(8, 64, 64, 64, generator=gen)
runs = {
    "output": (lambda f: f(x, scale_factor=2, mode="nearest")),
    "gradient": (lambda f: torch.autograd.grad(f(xb, **kb), xb, g)[0]),
}
report = {}
for name, run in runs.items():
    ys = {}
    for huge in (True, False):
        with huge_pages(huge):
            ys[huge] = run(resize_ad.interpolate)  # both kept alive: two fresh blocks
    ref = run(F.interpolate)
    report[name] = dict(
        bytes=ys[True].numel() * ys[True].element_size(),
        on_kb=anon_huge_kb(ys[True]), off_kb=anon_huge_kb(ys[False]),
        equal=bool(torch.equal(ys[True], ys[False])),
        diff=float((ys[True] - ref).abs().max()))
print(json.dumps(report))
"""


def test_fresh_results_get_huge_pages():
    import json
    import subprocess
    import sys
    if _thp_mode() != "madvise":
        pytest.skip(f"transparent huge pages are {_thp_mode()!r} here, not left to madvise")
    out = subprocess.run([sys.executable, "-c", _HUGE_PAGES_CHILD], capture_output=True, text=True, check=True)
    report = json.loads(out.stdout)
    for name, r in report.items():
        assert r["bytes"] >= 32 << 20, name
        whole_kb = (r["bytes"] - (2 << 20)) // (2 << 20) * 2048
        assert r["on_kb"] >= whole_kb, f"{name}: {r['on_kb']} kB of huge pages, {whole_kb} kB expected"
        assert r["off_kb"] == 0, f"{name}: {r['off_kb']} kB of huge pages with the seam off"
        assert r["equal"], name
        assert r["diff"] <= 1e-6, (name, r["diff"])


# Nearest rows gathered through the load plan (line_sweep.h copy_line): blocks of eight outputs
# whose pixels lie within 8, 16 or 32 floats are loaded whole and permuted, farther ones read
# one by one. Ratios on both sides of each span, rows whose last blocks' loads are pulled back
# from the row's end, and odd row starts (the element offset of a plane).
@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
@pytest.mark.parametrize("w", [40, 61, 100, 257, 1000])
@pytest.mark.parametrize("ratio", [0.9, 1.7, 2.1, 2.5, 3.3, 3.9, 4.3, 6.0])
def test_nearest_load_plan_rows(mode, w, ratio):
    ow = max(1, int(w / ratio))
    x = torch.arange(3 * 5 * w + 1, dtype=torch.float32)[1:].view(1, 3, 5, w)
    with executor("line_sweep"):
        y = ours(x, size=(4, ow), mode=mode)
    assert torch.equal(y, native(x, size=(4, ow), mode=mode))


# Gather lines with many short rows (align_corners landing on inputs, transposed tables) pad
# them with taps that read a zero slot past the line; the float load plan leaves those taps
# out of its loads and reads them as 0. With inf and NaN in many columns, a padding tap that
# read a line value would put NaN where the product gather (no padding taps) has none.
ZERO_SLOT = [
    ((1, 3, 9, 47), dict(mode="bilinear", size=(17, 93), align_corners=True)),
    ((1, 3, 9, 47), dict(mode="bicubic", size=(17, 93), align_corners=True)),
    ((1, 3, 9, 47), dict(mode="bicubic", size=(17, 93), align_corners=True, antialias=True)),
    ((1, 3, 9, 91), dict(mode="bilinear", size=(17, 46), align_corners=True)),
    ((1, 3, 9, 64), dict(mode="bilinear", size=(17, 150))),
    ((3, 4, 1000), dict(mode="linear", size=(333,), align_corners=True)),
]
# Load plans of five to sixteen taps (antialiased downscales by less than four), with and
# without a zero slot.
WIDE_PLAN = [
    ((1, 3, 9, 512), dict(mode="bilinear", size=(17, 224), antialias=True)),
    ((1, 3, 9, 512), dict(mode="bicubic", size=(17, 224), antialias=True)),
    ((1, 3, 9, 512), dict(mode="bicubic", size=(17, 224), antialias=True, align_corners=True)),
    ((1, 3, 9, 301), dict(mode="bicubic", size=(17, 97), antialias=True)),
    ((1, 3, 9, 700), dict(mode="bilinear", size=(9, 233), antialias=True)),
]


# Halvings: each tap's eight positions every second float (the kStride2 plan: two loads and a
# shuffle per tap), in lines long enough for it and with ends that fall back to the plan's other
# forms; forward and backward.
STRIDE2 = [
    ((1, 3, 9, 512), dict(mode="bilinear", size=(5, 256))),
    ((1, 3, 9, 150), dict(mode="bicubic", size=(5, 75))),
    ((1, 3, 9, 512), dict(mode="bilinear", size=(5, 256), antialias=True)),
    ((1, 2, 8, 200), dict(mode="area", size=(4, 100))),
    ((2, 3, 130), dict(mode="nearest", size=(65,))),
    ((1, 4, 6, 64), dict(mode="bicubic", size=(3, 32), antialias=True)),
]


# Downscales of two to four taps whose blocks of eight outputs span sixteen positions or more
# (the kRows plan: the four floats from each output's first tap, transposed): by 2.5 to 4 and by
# more than four (where the plan had only gathers), with a zero slot (bicubic 800 -> 224 trims
# the zero taps of every seventh row) and without, blocks next to the line's end.
ROWS = [
    ((1, 3, 9, 800), dict(mode="bicubic", size=(5, 224))),
    ((1, 3, 9, 797), dict(mode="bicubic", size=(5, 224))),
    ((1, 3, 9, 1024), dict(mode="bicubic", size=(5, 224))),
    ((1, 3, 9, 1000), dict(mode="bilinear", size=(5, 400))),
    ((1, 3, 9, 903), dict(mode="area", size=(5, 301))),
    ((1, 3, 9, 1000), dict(mode="bilinear", size=(5, 137), align_corners=True)),
]

# Bilinear downscales by more than two whose input lines are blended as each output's pair of
# floats is loaded (line_sweep.h blended_blocks): with a zero slot (800 -> 224) and without, output
# lines that end in a part block (its outputs one at a time), pairs at the line's last two floats,
# rows up- and downscaled, 1-D and 3-D.
BLENDED_ROWS = [
    ((1, 3, 9, 800), dict(mode="bilinear", size=(5, 224))),
    ((1, 3, 9, 800), dict(mode="bilinear", size=(17, 228))),
    ((1, 2, 30, 1000), dict(mode="bilinear", size=(7, 301))),
    ((1, 2, 9, 999), dict(mode="bilinear", size=(4, 100), align_corners=True)),
    ((1, 2, 6, 512), dict(mode="bilinear", size=(11, 61))),
    ((2, 3, 5, 7, 600), dict(mode="trilinear", size=(3, 3, 170))),
]

# Lines of one tap per output blended at their taps alone (blended_picks): bilinear and bicubic by
# an odd whole factor of more than 6.5 along the last axis (every tap on an input position),
# two or more leading taps; align_corners whose taps land on positions; 3-D.
BLENDED_PICKS = [
    ((1, 2, 9, 960), dict(mode="bilinear", size=(4, 64))),
    ((1, 3, 12, 630), dict(mode="bilinear", size=(5, 90))),
    ((1, 2, 13, 990), dict(mode="bicubic", size=(5, 110))),
    ((1, 2, 9, 961), dict(mode="bilinear", size=(4, 65), align_corners=True)),
    ((1, 2, 5, 7, 630), dict(mode="trilinear", size=(3, 3, 70))),
]


# Upscales by less than two (the kShifted plan where some block's taps span two loads: tap j
# the same permute of the floats j positions on), of two and four taps, blocks whose shifted loads
# are pulled back from the line's end, 1-D lines, and x2 upscales (no such block: one-load picks).
SHIFTED = [
    ((1, 3, 9, 224), dict(mode="bicubic", size=(5, 256))),
    ((1, 3, 9, 224), dict(mode="bilinear", size=(5, 256))),
    ((1, 3, 9, 61), dict(mode="bicubic", size=(5, 91))),
    ((1, 3, 9, 100), dict(mode="bilinear", size=(5, 150))),
    ((2, 3, 203), dict(mode="linear", size=(301,))),
    ((1, 3, 9, 64), dict(mode="bicubic", size=(5, 128))),
]


def _sweep_equals_product_gather(x, kw, g):
    """Forward and backward (output gradient g) of the line sweep against the product gather,
    which has no padding taps: the same non-finite elements, the finite ones to rounding.
    Returns the line sweep's output."""
    res = {}
    for name in ("line_sweep", "product_gather"):
        with executor(name):
            xd = x.clone().requires_grad_()
            y = ours(xd, **kw)
            (gx,) = torch.autograd.grad(y, xd, g)
            res[name] = (y.detach(), gx)
    for a, b in zip(res["line_sweep"], res["product_gather"]):
        assert torch.equal(a.isnan(), b.isnan()) and torch.equal(a.isinf(), b.isinf())
        fin = b.isfinite()
        torch.testing.assert_close(a[fin], b[fin], rtol=1e-5, atol=1e-6)
    return res["line_sweep"][0]


def _nonfinite_sweep(shape, kw, memory_format=torch.contiguous_format):
    """_sweep_equals_product_gather on an input and an output gradient with inf, -inf and NaN in
    their first rows, in the given layout; the line sweep's output, non-finite only where
    native's is."""
    x = torch.rand(shape, generator=torch.Generator().manual_seed(0))
    x[..., 0, ::5] = float("inf")
    x[..., 1, 2::7] = float("-inf")
    x[..., 2, 3::9] = float("nan")
    x = x.contiguous(memory_format=memory_format)
    g = torch.rand(native(x, **kw).shape, generator=torch.Generator().manual_seed(1))
    g[..., 0, 1::5] = float("inf")
    g[..., min(1, g.shape[-2] - 1), ::6] = float("nan")  # row 1, or the only row
    y = _sweep_equals_product_gather(x, kw, g.contiguous(memory_format=memory_format))
    assert (~y.isfinite() <= ~native(x, **kw).isfinite()).all()
    return y


# Downscales of two taps whose load plans mix kinds of blocks, each block's loads blended where
# read (blended_blocks): kRows, two loads and halvings (800 -> 384), two loads (500 -> 400),
# kShifted (500 -> 480), the zero slot (800 -> 224), ragged rows without it (490 and 270 ->
# 190), area, and one output row (the line in segments).
BLENDED_BLOCKS = [
    ((1, 2, 9, 800), dict(mode="bilinear", size=(5, 384))),
    ((1, 2, 9, 500), dict(mode="bilinear", size=(5, 400))),
    ((1, 2, 9, 500), dict(mode="bilinear", size=(5, 480))),
    ((1, 2, 9, 800), dict(mode="bilinear", size=(5, 224))),
    ((1, 2, 9, 490), dict(mode="bilinear", size=(5, 190))),
    ((1, 2, 9, 270), dict(mode="bilinear", size=(5, 190))),
    ((1, 2, 9, 500), dict(mode="area", size=(5, 400))),
    ((1, 1, 9, 2100), dict(mode="bilinear", size=(1, 1000))),
]


@pytest.mark.parametrize("shape,kw", ZERO_SLOT + WIDE_PLAN + STRIDE2 + ROWS + BLENDED_ROWS + BLENDED_PICKS + SHIFTED + BLENDED_BLOCKS, ids=lambda v: str(v))
def test_load_plan_zero_slot(shape, kw):
    _nonfinite_sweep(shape, kw)


# Folded RGB and RGBA lines of one tap per output blended at their taps (blended_picks' loop of
# a pixel per vector): channels_last bilinear and bicubic by an odd whole factor along the
# width (15, 5, 3 and 9), two or four leading taps; RGB's last pixel and a line's pixels past
# its last 128-bit load one output at a time.
BLENDED_PIXEL_PICKS = [
    ((1, 3, 9, 960), dict(mode="bilinear", size=(4, 64))),
    ((1, 4, 9, 960), dict(mode="bilinear", size=(4, 64))),
    ((2, 3, 12, 250), dict(mode="bilinear", size=(5, 50))),
    ((1, 4, 12, 90), dict(mode="bilinear", size=(5, 30))),
    ((1, 3, 13, 990), dict(mode="bicubic", size=(5, 110))),
]


@pytest.mark.parametrize("shape,kw", BLENDED_PIXEL_PICKS, ids=lambda v: str(v))
def test_blended_pixel_picks(shape, kw):
    y = _nonfinite_sweep(shape, kw, torch.channels_last)
    assert y.is_contiguous(memory_format=torch.channels_last)


# RGB and RGBA bicubic downscales whose every third pixel falls on an input position (by 5/3
# and 11/3): its three zero taps trimmed, padded with the zero slot, and such a pixel still a
# span of four taps (pairs_of; quads, rgb_quads and rgba_quads), its padding taps' lanes kept at
# 0 (kPadKeep; the quads' keep masks), so that an inf beside it stays out of it; staged (640 ->
# 384, 250 -> 150) and blended where read (550 -> 150).
PADDED_SPANS = [
    ((1, c, h, w), dict(mode="bicubic", size=size))
    for c in (3, 4)
    for h, w, size in ((9, 640, (5, 384)), (9, 250, (5, 150)), (20, 550, (5, 150)))
]


@pytest.mark.parametrize("shape,kw", PADDED_SPANS, ids=lambda v: str(v))
def test_padded_spans(shape, kw):
    y = _nonfinite_sweep(shape, kw, torch.channels_last)
    assert y.isinf().any()


# Zero-slot lines read in place: where the leading axes take one input line as it is (an
# unchanged height, a 1-D resize), the line sweep reads the input line itself, which has no zero
# slot past its end; its padding taps must read 0 without a load. The element after each line
# (the next row's first, or its first pixel) is inf or NaN here, so a padding tap that loaded it
# would put NaN where the product gather (no padding taps) has a number. Bilinear 800 -> 224
# trims a zero tap from every seventh row: enough ragged rows for the zero slot; 1000 -> 120
# from every third, with taps too far apart for the load plan (gathers).
IN_PLACE = [
    ((2, 3, 5, 800), dict(mode="bilinear", size=(5, 224)), False),
    ((1, 4, 5, 800), dict(mode="bilinear", size=(5, 224)), True),
    ((1, 3, 5, 800), dict(mode="bilinear", size=(5, 224)), True),
    ((1, 3, 4, 47), dict(mode="bicubic", size=(4, 93), align_corners=True), True),
    ((3, 4, 1000), dict(mode="linear", size=(333,), align_corners=True), False),
    ((2, 5, 800), dict(mode="linear", size=(224,)), False),
    ((2, 5, 1000), dict(mode="linear", size=(120,)), False),  # every third row; taps gathered
    ((1, 3, 4, 1000), dict(mode="bilinear", size=(4, 120)), False),
]


@pytest.mark.parametrize("shape,kw,cl", IN_PLACE, ids=lambda v: str(v))
def test_zero_slot_read_in_place(shape, kw, cl):
    x = torch.rand(shape, generator=torch.Generator().manual_seed(0))
    x[..., 0] = float("inf")
    x[..., 1::2, 0] = float("nan") if x.dim() > 3 else float("inf")
    if cl:
        x = x.contiguous(memory_format=torch.channels_last)
    g = torch.rand(native(x, **kw).shape, generator=torch.Generator().manual_seed(1))
    g[..., 0] = float("nan")
    _sweep_equals_product_gather(x, kw, g)


# Short lines of the contiguous axis, which a one-axis sweep joins into one line (make_sweep
# join_lines): forward and backward (ragged transposed tables, the zero slot), copies, the load
# plan's gathers, wide windows; line counts that some join divides and prime ones no join does.
JOINED = [
    ((2, 6, 7), dict(mode="linear", size=(14,))),
    ((3, 5, 33), dict(mode="linear", size=(65,), align_corners=True)),
    ((4, 4, 12), dict(mode="linear", size=(5,))),
    ((2, 8, 30), dict(mode="linear", size=(7,), antialias=True)),
    ((1, 7, 19), dict(mode="nearest", size=(40,))),
    ((2, 6, 17), dict(mode="nearest-exact", size=(6,))),
    ((6, 8, 14), dict(mode="area", size=(7,))),
    ((2, 4, 16), dict(mode="cubic", size=(37,))),
    ((2, 4, 16), dict(mode="lanczos", size=(9,), antialias=True)),
    ((2, 3, 9, 11), dict(mode="bilinear", size=(20, 23))),
    ((4, 8, 16, 16), dict(mode="bicubic", scale_factor=2)),
    ((13, 1, 14, 14), dict(mode="area", size=(7, 7))),
]


@pytest.mark.parametrize("shape,kw", JOINED, ids=lambda v: str(v))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
def test_joined_lines_equal_single_lines(shape, kw, dtype):
    """Joined lines compute every output as its line alone does (each line or plane resized by
    itself), to the bit; and match native."""
    x = torch.randn(shape, generator=torch.Generator().manual_seed(3)).to(dtype)
    g = torch.randn(ours(x, **kw).shape, generator=torch.Generator().manual_seed(4)).to(dtype)
    for name in ("separable", "line_sweep"):
        with executor(name):
            xd = x.clone().requires_grad_()
            y = ours(xd, **kw)
            (gx,) = torch.autograd.grad(y, xd, g)
            for i in range(shape[0]):
                for c in range(shape[1]):
                    xi = x[i : i + 1, c : c + 1].clone().requires_grad_()
                    yi = ours(xi, **kw)
                    (gi,) = torch.autograd.grad(yi, xi, g[i : i + 1, c : c + 1])
                    # (a plane: its rows joined by their own count, or not at all)
                    assert torch.equal(y[i, c], yi[0, 0]) and torch.equal(gx[i, c], gi[0, 0])
    if kw["mode"] in ("linear", "nearest", "nearest-exact", "area", "bilinear", "bicubic") and \
            not (kw.get("antialias") and len(shape) == 3):
        ref = native(x.float(), **kw).to(dtype) if dtype == torch.bfloat16 else native(x, **kw)
        assert_close(y, ref, dtype)


HALF_SHAPES = [((2, 3, 17, 23), None), ((2, 3, 17, 23), torch.channels_last), ((2, 16, 20, 12), torch.channels_last),
               ((1, 64, 9, 9), torch.channels_last), ((1, 64, 9, 9), None), ((2, 5, 7, 9, 11), None),
               ((2, 16, 5, 6, 7), torch.channels_last_3d), ((3, 2, 41), None)]
HALF_MODES = {3: ("nearest", "linear", "area", "nearest-exact"),
              4: ("nearest", "bilinear", "bicubic", "area", "nearest-exact"),
              5: ("nearest", "trilinear", "area")}


@pytest.mark.parametrize("shape,fmt", [((2, 3, 17, 40), None), ((2, 16, 20, 12), torch.channels_last)], ids=str)
def test_bfloat16_keeps_denormals_and_nan(shape, fmt):
    """bfloat16 results whose float sums are denormal or NaN: rounded as c10 rounds them (a
    conversion instruction that flushes denormals must not be used on those)."""
    g = torch.Generator().manual_seed(11)
    x = (torch.randn(shape, generator=g) * 3e-38).to(torch.bfloat16)  # sums around FLT_MIN
    x.view(-1)[::53] = float("nan")
    if fmt is not None:
        x = x.contiguous(memory_format=fmt)
    for mode in ("bilinear", "bicubic", "area"):
        for kw in (dict(scale_factor=2), dict(size=(7, 9))):
            y = ours(x, mode=mode, **kw)
            ref = ours(x.float(), mode=mode, **kw)
            assert (ref.abs() < torch.finfo(torch.float32).tiny).logical_and(ref != 0).any()
            _same(y, ref.to(torch.bfloat16))


def _same(a, b):
    """Equal values (NaN where the other has NaN: inf - inf in a sum), strides included."""
    assert a.stride() == b.stride()
    torch.testing.assert_close(a, b, rtol=0, atol=0, equal_nan=True)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("shape,fmt", HALF_SHAPES, ids=str)
def test_half_types_round_the_float_result_once(shape, fmt, dtype):
    """float16 and bfloat16 are summed in float and rounded once: forward and backward equal the
    float32 results of the same values rounded to the type, bit for bit (the kernels' own
    conversions, F16C's and the vector ones, round as c10's do)."""
    g = torch.Generator().manual_seed(7)
    x = (torch.randn(shape, generator=g) * 300).to(dtype)  # float16 overflows past 65504
    x.view(-1)[::37] = float("inf")
    if fmt is not None:
        x = x.contiguous(memory_format=fmt)
    for mode in HALF_MODES[len(shape)]:
        for kw in (dict(scale_factor=2), dict(scale_factor=0.5), dict(size=tuple(int(s * 1.37) + 1 for s in shape[2:]))):
            y = ours(x, mode=mode, **kw)
            _same(y, ours(x.float(), mode=mode, **kw).to(dtype))
            xh = x.detach().clone().requires_grad_(True)
            xf = x.detach().float().requires_grad_(True)
            gy = (torch.randn(y.shape, generator=g) * 300).to(dtype)
            (gh,) = torch.autograd.grad(ours(xh, mode=mode, **kw), xh, gy)
            (gf,) = torch.autograd.grad(ours(xf, mode=mode, **kw), xf, gy.float())
            _same(gh, gf.to(dtype))
