"""Reference calls and tolerances shared by the tests."""
import torch
import torch.nn.functional as F

import resize_ad

# Per dtype (atol, rtol) for parity with native. float32 is torch.testing's default; half
# types get a few output ulps since both sides round their float32 accumulation once, but
# native rounds its interpolation weights to the half type first (UpSampleKernel.cpp stores
# lambdas as scalar_t) while resize_ad keeps them in float32.
TOL = {
    torch.float64: dict(atol=1e-10, rtol=1e-9),
    torch.float32: dict(atol=1e-5, rtol=1.3e-6),
    torch.float16: dict(atol=4e-3, rtol=4e-3),
    torch.bfloat16: dict(atol=3e-2, rtol=2e-2),
}


def native(x, **kw):
    return F.interpolate(x, **kw)


def ours(x, **kw):
    return resize_ad.interpolate(x, **kw)


def assert_close(actual, expected, dtype=None, **kw):
    tol = dict(TOL[dtype or expected.dtype])
    tol.update(kw)
    torch.testing.assert_close(actual, expected, **tol)


def assert_adjoint(y, g, x, gx, dtype):
    """<y, g> == <x, gx> for y = A x and gx = A^T g, to the accuracy TOL[dtype] allows elementwise.

    If every element of y and of gx is within atol + rtol * |value| of its exact value, the two
    dot products (computed in float64) differ by at most
    sum |g| (atol + rtol |y|) + sum |x| (atol + rtol |gx|): a scalar comparison with a fixed atol
    instead would be too tight for float32 sums of hundreds of terms (and flaky)."""
    tol = TOL[dtype]
    y, g, x, gx = (v.double() for v in (y, g, x, gx))
    lhs, rhs = (y * g).sum(), (x * gx).sum()
    bound = (g.abs() * (tol["atol"] + tol["rtol"] * y.abs())).sum() + (
        x.abs() * (tol["atol"] + tol["rtol"] * gx.abs())).sum()
    assert (lhs - rhs).abs() <= bound, f"<Ax, g> = {lhs.item()!r} but <x, A^T g> = {rhs.item()!r} (bound {bound.item():.3g})"


def op_args(s, x):
    """(output size, (mode, align_corners, scales, antialias)): the op's arguments for a sample,
    as resize_ad.interpolate passes them."""
    from resize_ad.functional import _nearest_scales
    y = resize_ad.interpolate(x, **s.kwargs)
    sf = s.kwargs.get("scale_factor")
    scales = None
    if sf is not None and not s.kwargs.get("recompute_scale_factor") and s.mode != "area":
        scales = list(sf) if isinstance(sf, tuple) else [float(sf)] * (s.rank - 2)
        if s.mode == "nearest":
            scales = _nearest_scales(x, list(y.shape[2:]), scales)
    return list(y.shape[2:]), (s.mode, bool(s.kwargs.get("align_corners", False)), scales,
                               bool(s.kwargs.get("antialias", False)))
