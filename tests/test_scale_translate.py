"""resize_ad.scale_and_translate: against a dense float64 NumPy reference, against JAX when it
is installed (forward and the gradients in input, scale and translation), every order of
autodiff, vmap, torch.compile, the banded ops themselves, and bad input."""
import math
import os
import sys

import numpy as np
import pytest
import torch
from torch.autograd import gradcheck, gradgradcheck

import resize_ad

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples"))

METHODS = ["linear", "cubic", "lanczos3", "lanczos5"]
_ops = torch.ops.resize_ad


# ---- the reference: dense weight matrices straight from the formula ----

def _np_filter(method, x):
    if method == "linear":
        return np.maximum(0.0, 1.0 - x)
    if method == "cubic":
        return np.where(x < 1.0, (1.5 * x - 2.5) * x * x + 1.0,
                        np.where(x < 2.0, ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0, 0.0))
    r = 3.0 if method == "lanczos3" else 5.0
    with np.errstate(divide="ignore", invalid="ignore"):
        v = r * np.sin(np.pi * x) * np.sin(np.pi * x / r) / (np.pi ** 2 * x * x)
    return np.where(x > r, 0.0, np.where(x > 1e-3, v, 1.0))


def _np_matrix(in_len, out_len, scale, translation, method, antialias):
    """[out_len, in_len]: row o holds the weights output o gives each input index."""
    sample = (np.arange(out_len) + 0.5 - translation) / scale - 0.5
    kscale = max(1.0 / scale, 1.0) if antialias else 1.0
    dist = np.abs(sample[:, None] - np.arange(in_len)[None, :]) / kscale
    w = _np_filter(method, dist)
    total = w.sum(axis=1, keepdims=True)
    w = np.where(np.abs(total) > 1000 * np.finfo(np.float32).eps,
                 w / np.where(total != 0, total, 1), 0.0)
    inside = (sample >= -0.5) & (sample <= in_len - 0.5)
    return np.where(inside[:, None], w, 0.0)


def _np_scale_and_translate(x, shape, dims, scale, translation, method, antialias):
    y = np.asarray(x, dtype=np.float64)
    for d, s, t in zip(dims, scale, translation):
        m = _np_matrix(y.shape[d], shape[d], s, t, method, antialias)
        y = np.moveaxis(np.tensordot(m, np.moveaxis(y, d, 0), axes=(1, 0)), 0, d)
    return y


def _configs(n, seed):
    """Random configurations: 1-3 spatial dims anywhere in the tensor, up and down, shifts,
    every method, antialias on and off."""
    rng = np.random.default_rng(seed)
    for trial in range(n):
        nd = int(rng.integers(1, 4))
        rank = nd + int(rng.integers(0, 2)) + 1
        dims = sorted(rng.choice(rank, nd, replace=False).tolist())
        in_shape = [int(rng.integers(1, 4)) for _ in range(rank)]
        out_shape = list(in_shape)
        for d in dims:
            in_shape[d] = int(rng.integers(3, 12))
            out_shape[d] = int(rng.integers(2, 14))
        scale = rng.uniform(0.3, 2.5, nd)
        translation = rng.uniform(-2.5, 2.5, nd)
        method = METHODS[trial % 4]
        antialias = bool(rng.integers(0, 2))
        yield in_shape, out_shape, dims, scale, translation, method, antialias, rng


def test_matches_numpy_reference():
    worst = 0.0
    for in_shape, out_shape, dims, s, t, method, aa, rng in _configs(48, 1):
        x = rng.standard_normal(in_shape)
        ref = _np_scale_and_translate(x, out_shape, dims, s, t, method, aa)
        y = resize_ad.scale_and_translate(torch.tensor(x), out_shape, dims, torch.tensor(s),
                                          torch.tensor(t), method, aa)
        assert list(y.shape) == out_shape
        worst = max(worst, float(np.abs(y.numpy() - ref).max()))
    assert worst < 1e-12, worst


def test_numpy_reference_edges():
    # An identity warp reproduces the input; a shift of one pixel moves it; samples outside
    # [-0.5, in - 0.5] give exact zeros; a huge downscale reads the whole axis.
    x = torch.randn(2, 9, dtype=torch.float64)
    for method in METHODS:
        y = resize_ad.scale_and_translate(x, (2, 9), (1,), [1.0], [0.0], method)
        torch.testing.assert_close(y, x, rtol=0, atol=1e-12)
        y = resize_ad.scale_and_translate(x, (2, 9), (1,), [1.0], [1.0], method)
        torch.testing.assert_close(y[:, 1:], x[:, :-1], rtol=0, atol=1e-12)
        assert y[:, 0].abs().max() == 0  # sample -1 is outside
        for s, t, o in [(0.01, 0.0, 3), (7.5, -20.0, 40), (0.37, 1.3, 5)]:
            ref = _np_scale_and_translate(x.numpy(), (2, o), (1,), [s], [t], method, True)
            y = resize_ad.scale_and_translate(x, (2, o), (-1,), [s], [t], method)
            np.testing.assert_allclose(y.numpy(), ref, rtol=0, atol=1e-12)


def test_matches_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    worst = [0.0] * 4
    for in_shape, out_shape, dims, s, t, method, aa, rng in _configs(8, 2):
        x = rng.standard_normal(in_shape)
        g = rng.standard_normal(out_shape)

        def f(a, b, c):
            return jax.image.scale_and_translate(a, out_shape, dims, b, c, method, antialias=aa)

        # One jitted program per configuration: eager JAX compiles every primitive apart.
        both = jax.jit(lambda a, b, c: (f(a, b, c), jax.grad(
            lambda a, b, c: jnp.sum(f(a, b, c) * g), argnums=(0, 1, 2))(a, b, c)))
        yj, gj = both(jnp.array(x), jnp.array(s), jnp.array(t))
        yj = np.asarray(yj)
        xt, st, tt = (torch.tensor(v, requires_grad=True) for v in (x, s, t))
        y = resize_ad.scale_and_translate(xt, out_shape, dims, st, tt, method, aa)
        grads = torch.autograd.grad((y * torch.tensor(g)).sum(), (xt, st, tt))
        errs = [np.abs(y.detach().numpy() - yj).max()] + [
            np.abs(a.numpy() - np.asarray(b)).max() for a, b in zip(grads, gj)]
        worst = [max(w, float(e)) for w, e in zip(worst, errs)]
    assert max(worst) < 1e-8, worst


def test_matches_jax_jvp_and_hessian():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    for in_shape, out_shape, dims, s, t, method, aa, rng in _configs(2, 3):
        x = rng.standard_normal(in_shape)
        g = rng.standard_normal(out_shape)
        tx, ts, tt_ = rng.standard_normal(in_shape), rng.standard_normal(len(dims)), rng.standard_normal(len(dims))

        def f(a, b, c):
            return jax.image.scale_and_translate(a, out_shape, dims, b, c, method, antialias=aa)

        _, jj = jax.jit(lambda p, q: jax.jvp(f, p, q))(
            (jnp.array(x), jnp.array(s), jnp.array(t)),
            (jnp.array(tx), jnp.array(ts), jnp.array(tt_)))
        hj = jax.jit(jax.hessian(lambda b, c: jnp.sum(f(jnp.array(x), b, c) * g), argnums=(0, 1)))(
            jnp.array(s), jnp.array(t))

        def tf(a, b, c):
            return resize_ad.scale_and_translate(a, out_shape, dims, b, c, method, aa)

        _, jt = torch.func.jvp(tf, (torch.tensor(x), torch.tensor(s), torch.tensor(t)),
                               (torch.tensor(tx), torch.tensor(ts), torch.tensor(tt_)))
        np.testing.assert_allclose(jt.numpy(), np.asarray(jj), rtol=0, atol=1e-8)
        ht = torch.autograd.functional.hessian(
            lambda b, c: (tf(torch.tensor(x), b, c) * torch.tensor(g)).sum(),
            (torch.tensor(s), torch.tensor(t)))
        for i in range(2):
            for j in range(2):
                np.testing.assert_allclose(ht[i][j].numpy(), np.asarray(hj[i][j]), rtol=0, atol=1e-8)


# ---- autodiff of every order ----

_GRAD_CASES = [
    # (in, out, scale, translation, method, antialias): up, down with antialias, shifts.
    # Shifts keep every sample off the integers (kinks of the triangle filter) and off the
    # edges -0.5 and in - 0.5 (where outputs switch to zero).
    ((1, 5, 4), (1, 7, 6), (1.6, 1.3), (0.3, -0.37), "linear", True),
    ((1, 6, 5), (1, 4, 3), (0.55, 0.45), (0.23, 0.35), "cubic", True),
    ((1, 5, 4), (1, 5, 6), (1.15, 1.4), (-0.7, 0.25), "lanczos3", False),
    ((1, 6), (1, 5), (0.8,), (0.6,), "lanczos5", True),
]


@pytest.mark.parametrize("case", _GRAD_CASES, ids=lambda c: c[4])
def test_gradcheck_gradgradcheck(case):
    in_shape, out_shape, s, t, method, aa = case
    dims = tuple(range(1, len(in_shape)))
    torch.manual_seed(0)
    x = torch.randn(in_shape, dtype=torch.float64, requires_grad=True)
    st = torch.tensor(s, dtype=torch.float64, requires_grad=True)
    tt = torch.tensor(t, dtype=torch.float64, requires_grad=True)

    def f(a, b, c):
        return resize_ad.scale_and_translate(a, out_shape, dims, b, c, method, aa)

    assert gradcheck(f, (x, st, tt), check_forward_ad=True, check_batched_grad=True)
    assert gradgradcheck(f, (x, st, tt), check_fwd_over_rev=True)


def test_geometry_only_gradients():
    # Gradients reach scale and translation when the input does not require grad.
    x = torch.randn(1, 8, 8, dtype=torch.float64)
    st = torch.tensor([1.3, 0.7], dtype=torch.float64, requires_grad=True)
    tt = torch.tensor([0.4, -0.2], dtype=torch.float64, requires_grad=True)
    f = lambda b, c: resize_ad.scale_and_translate(x, (1, 9, 6), (1, 2), b, c, "cubic")  # noqa: E731
    assert gradcheck(f, (st, tt), check_forward_ad=True)
    assert gradgradcheck(f, (st, tt))


def test_vmap_over_input_and_translation():
    torch.manual_seed(0)
    x = torch.randn(4, 2, 7, 5, dtype=torch.float64)
    s = torch.tensor([1.4, 0.6], dtype=torch.float64)
    ts = torch.randn(4, 2, dtype=torch.float64)

    def f(a, t):
        return resize_ad.scale_and_translate(a, (2, 9, 4), (1, 2), s, t, "lanczos3")

    y = torch.func.vmap(f)(x, ts)
    loop = torch.stack([f(x[i], ts[i]) for i in range(4)])
    torch.testing.assert_close(y, loop, rtol=0, atol=1e-13)
    # per-sample gradients in translation
    gt = torch.func.vmap(torch.func.grad(lambda a, t: f(a, t).square().sum(), argnums=1))(x, ts)
    loop = torch.stack([torch.func.grad(lambda t: f(x[i], t).square().sum())(ts[i]) for i in range(4)])
    torch.testing.assert_close(gt, loop, rtol=0, atol=1e-12)


def test_vmap_over_scale():
    x = torch.randn(2, 10, dtype=torch.float64)
    scales = torch.tensor([[0.5], [1.7], [0.9]], dtype=torch.float64)
    f = lambda s: resize_ad.scale_and_translate(x, (2, 8), (1,), s, [0.25], "cubic")  # noqa: E731
    y = torch.func.vmap(f)(scales)
    torch.testing.assert_close(y, torch.stack([f(s) for s in scales]), rtol=0, atol=1e-13)


def test_compile_aot_eager():
    torch._dynamo.reset()
    x = torch.randn(2, 3, 9, 7, dtype=torch.float64, requires_grad=True)
    s = torch.tensor([1.3, 0.6], dtype=torch.float64, requires_grad=True)
    t = torch.tensor([0.5, -0.3], dtype=torch.float64, requires_grad=True)

    def f(a, b, c):
        return resize_ad.scale_and_translate(a, (2, 3, 11, 5), (2, 3), b, c, "cubic").square().sum()

    compiled = torch.compile(f, backend="aot_eager", fullgraph=True)
    out_c = compiled(x, s, t)
    grads_c = torch.autograd.grad(out_c, (x, s, t))
    out_e = f(x, s, t)
    grads_e = torch.autograd.grad(out_e, (x, s, t))
    torch.testing.assert_close(out_c, out_e, rtol=0, atol=1e-12)
    for a, b in zip(grads_c, grads_e):
        torch.testing.assert_close(a, b, rtol=0, atol=1e-11)


# ---- the banded ops on their own ----

def _random_table(out_len, in_len, taps, dtype=torch.float64):
    start = torch.sort(torch.randint(-2, in_len, (out_len,))).values
    return start, torch.randn(out_len, taps, dtype=dtype)


def test_band_ops_adjoint_and_dense():
    torch.manual_seed(0)
    x = torch.randn(3, 9, 4, dtype=torch.float64)
    start, w = _random_table(6, 9, 4)
    dense = torch.zeros(6, 9, dtype=torch.float64)
    for o in range(6):
        for k in range(4):
            if 0 <= start[o] + k < 9:
                dense[o, start[o] + k] = w[o, k]
    y = _ops.band_apply(x, start, w, 1)
    torch.testing.assert_close(y, torch.einsum("oi,bij->boj", dense, x), rtol=0, atol=1e-13)
    g = torch.randn_like(y)
    gx = _ops.band_apply_transposed(g, start, w, 1, 9)
    torch.testing.assert_close(gx, torch.einsum("oi,boj->bij", dense, g), rtol=0, atol=1e-13)
    gw = _ops.band_weight_grad(g, x, start, 1, 4)
    # <band_apply(x, w), g> is linear in w with gradient gw
    h = torch.randn_like(w)
    lhs = (_ops.band_apply(x, start, h, 1) * g).sum()
    torch.testing.assert_close(lhs, (gw * h).sum(), rtol=0, atol=1e-12)


def test_band_ops_opcheck():
    torch.manual_seed(0)
    x = torch.randn(2, 7, 3, dtype=torch.float64, requires_grad=True)
    start, w = _random_table(5, 7, 3)
    w.requires_grad_(True)
    g = torch.randn(2, 5, 3, dtype=torch.float64, requires_grad=True)
    torch.library.opcheck(_ops.band_apply, (x, start, w, 1))
    torch.library.opcheck(_ops.band_apply_transposed, (g, start, w, 1, 7))
    torch.library.opcheck(_ops.band_weight_grad, (g, x, start, 1, 3))


def test_band_ops_errors():
    x = torch.randn(2, 7, dtype=torch.float64)
    w = torch.randn(3, 2, dtype=torch.float64)
    with pytest.raises(RuntimeError, match="non-decreasing"):
        _ops.band_apply_transposed(torch.randn(2, 3, dtype=torch.float64),
                                   torch.tensor([2, 1, 3]), w, 1, 7)
    with pytest.raises(RuntimeError, match="int64"):
        _ops.band_apply(x, torch.tensor([0, 1, 2], dtype=torch.int32), w, 1)
    with pytest.raises(RuntimeError, match="dtype"):
        _ops.band_apply(x, torch.tensor([0, 1, 2]), w.float(), 1)
    with pytest.raises(RuntimeError, match="dim must be"):
        _ops.band_apply(x, torch.tensor([0, 1, 2]), w, 2)


# ---- dtypes, shapes ----

@pytest.mark.parametrize("dtype,tol", [(torch.float32, 1e-5), (torch.float16, 2e-2),
                                       (torch.bfloat16, 6e-2)])
def test_low_precision(dtype, tol):
    torch.manual_seed(0)
    x = torch.rand(2, 3, 12, 10, dtype=torch.float64)
    args = ((2, 3, 7, 15), (2, 3), [0.6, 1.5], [0.3, -0.8], "lanczos3")
    ref = resize_ad.scale_and_translate(x, *args)
    y = resize_ad.scale_and_translate(x.to(dtype), *args)
    assert y.dtype == dtype
    torch.testing.assert_close(y.double(), ref, rtol=0, atol=tol)
    s = torch.tensor([0.6, 1.5], dtype=torch.float32, requires_grad=True)
    xr = x.to(dtype).requires_grad_(True)
    resize_ad.scale_and_translate(xr, args[0], args[1], s, args[3], "lanczos3").float().sum().backward()
    assert xr.grad.dtype == dtype and s.grad.dtype == torch.float32
    assert torch.isfinite(s.grad).all()


def test_empty_and_non_contiguous():
    x = torch.randn(0, 5, 6, dtype=torch.float64)
    assert resize_ad.scale_and_translate(x, (0, 3, 6), (1,), [0.5], [0.0]).shape == (0, 3, 6)
    x = torch.randn(2, 8, 6, dtype=torch.float64).transpose(1, 2)  # [2, 6, 8], strided
    ref = _np_scale_and_translate(x.numpy(), (2, 4, 8), (1,), [0.7], [0.1], "cubic", True)
    y = resize_ad.scale_and_translate(x, (2, 4, 8), (1,), [0.7], [0.1], "cubic")
    np.testing.assert_allclose(y.numpy(), ref, rtol=0, atol=1e-12)


# ---- bad input ----

@pytest.mark.parametrize("kwargs,match", [
    (dict(scale=[1.0]), "one entry per spatial dim"),
    (dict(translation=[0.0, 0.0, 0.0]), "one entry per spatial dim"),
    (dict(scale=[0.0, 1.0]), "finite and > 0"),
    (dict(scale=[-1.0, 1.0]), "finite and > 0"),
    (dict(scale=[math.inf, 1.0]), "finite and > 0"),
    (dict(scale=torch.tensor([1, 2])), "floating point"),
    (dict(translation=[math.nan, 0.0]), "translation must be finite"),
    (dict(spatial_dims=(2, 5)), "out of range"),
    (dict(spatial_dims=(2, -2)), "must not repeat"),
    (dict(shape=(1, 2, 8)), "one entry per dim"),
    (dict(shape=(1, 3, 8, 8)), "must stay 2"),
    (dict(method="bogus"), "unknown method"),
    (dict(method="nearest"), "gradient in scale or translation"),
])
def test_errors(kwargs, match):
    args = dict(shape=(1, 2, 8, 8), spatial_dims=(2, 3), scale=[1.5, 1.5],
                translation=[0.0, 0.0], method="linear")
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        resize_ad.scale_and_translate(torch.randn(1, 2, 5, 5), **args)


# ---- the example ----

def test_register_shift_example_converges():
    import register_shift

    true, found = register_shift.register(steps=60, size=24)
    assert max(abs(a - b) for a, b in zip(true, found)) < 2e-2, (true, found)
