"""The three executors (csrc/common/plan.h) on every sample: the separable passes, the line
sweep and the product gather (the CUDA kernels' element function, run on the CPU as a
reference) each run forced through resize_ad._testing.executor, forward and backward, against
native and against each other."""
import pytest
import torch

import resize_ad
from resize_ad._testing import EXECUTORS, executor
from helpers import assert_close, native, op_args as _op_args
from samples import aa_samples, filter_samples, native_backward_not_adjoint, sample_inputs

NATIVE = list(sample_inputs()) + list(aa_samples())
ALL = NATIVE + list(filter_samples(layouts=("contiguous", "channels_last")))


def _run(name, x, size, args, g):
    with executor(name):
        y = torch.ops.resize_ad.resize(x, size, *args)
        gx = torch.ops.resize_ad.resize_backward(g, list(x.shape), *args)
    return y, gx


@pytest.mark.parametrize("name", EXECUTORS)
@pytest.mark.parametrize("s", [s for s in NATIVE if s.layout in ("contiguous", "channels_last", "noncontig")],
                         ids=lambda s: s.id)
def test_executor_vs_native(s, name):
    """float64, forward and backward, through resize_ad.interpolate."""
    x = s.make(torch.float64, requires_grad=True)
    with executor(name):
        y = resize_ad.interpolate(x, **s.kwargs)
        g = torch.randn(y.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
        (gx,) = torch.autograd.grad(y, x, g)
    ref = native(x, **s.kwargs)
    assert y.stride() == ref.stride()
    assert_close(y, ref)
    if not native_backward_not_adjoint(s, x):
        (gr,) = torch.autograd.grad(ref, x, g)
        assert_close(gx, gr, atol=4e-10)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.bfloat16], ids=str)
@pytest.mark.parametrize("name", ["line_sweep", "product_gather"])
@pytest.mark.parametrize("s", ALL, ids=lambda s: s.id)
def test_executors_agree(s, name, dtype):
    """Each executor applies the same tables as the separable passes: equal up to rounding."""
    x = s.make(dtype)
    size, args = _op_args(s, x)
    g = torch.randn([x.shape[0], x.shape[1]] + size, dtype=torch.float64).to(dtype)
    y0, g0 = _run("separable", x, size, args, g)
    y1, g1 = _run(name, x, size, args, g)
    assert y1.stride() == y0.stride() and g1.stride() == g0.stride()
    assert_close(y1, y0, dtype)
    assert_close(g1, g0, dtype)


@pytest.mark.parametrize("name", EXECUTORS)
@pytest.mark.parametrize("s", [s for s in ALL if s.layout == "contiguous"], ids=lambda s: s.id)
def test_executors_nonfinite(s, name):
    """inf / NaN reach exactly the outputs the separable passes let them reach."""
    x = s.make(torch.float64)
    x.view(-1)[::7] = float("inf")
    x.view(-1)[3::11] = float("nan")
    size, args = _op_args(s, x)
    g = torch.randn([x.shape[0], x.shape[1]] + size, dtype=torch.float64)
    y0, _ = _run("separable", x, size, args, g)
    y1, _ = _run(name, x, size, args, g)
    assert torch.equal(torch.isnan(y1), torch.isnan(y0)) and torch.equal(torch.isinf(y1), torch.isinf(y0))
    finite = torch.isfinite(y0)
    assert_close(y1[finite], y0[finite], torch.float64)


def test_executor_seam_restores_and_refuses():
    with executor("line_sweep"):
        with executor("product_gather"):
            pass
        # the inner block restored the outer choice
        from resize_ad import _testing
        assert _testing._current == "line_sweep"
    assert _testing._current == "auto"
    with pytest.raises(ValueError, match="unknown executor"):
        with executor("fused"):
            pass
