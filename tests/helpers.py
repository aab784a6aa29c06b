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
