"""Autodiff: gradcheck, gradgradcheck, forward AD, adjoint identity, vmap, functorch transforms."""
import pytest
import torch
from torch.autograd import gradcheck, gradgradcheck

import resize_ad
from samples import aa_samples, sample_inputs

# gradcheck is O(numel^2): contiguous and channels_last layouts of every mode / spec.
CHECK = [s for s in list(sample_inputs()) + list(aa_samples()) if s.layout in ("contiguous", "channels_last", "expanded")]
for s in CHECK:
    s.batch, s.channels = 1, 2


def _fn(s):
    return lambda x: resize_ad.interpolate(x, **s.kwargs)


@pytest.mark.parametrize("s", CHECK, ids=lambda s: s.id)
def test_gradcheck(s):
    x = s.make(torch.float64, requires_grad=True)
    assert gradcheck(_fn(s), (x,), fast_mode=True)


@pytest.mark.parametrize("s", [s for s in CHECK if s.layout == "contiguous"], ids=lambda s: s.id)
def test_gradgradcheck(s):
    x = s.make(torch.float64, requires_grad=True)
    assert gradgradcheck(_fn(s), (x,), fast_mode=True)


@pytest.mark.parametrize("s", [s for s in CHECK if s.layout == "contiguous"], ids=lambda s: s.id)
def test_forward_ad_gradcheck(s):
    x = s.make(torch.float64, requires_grad=True)
    assert gradcheck(_fn(s), (x,), check_forward_ad=True, check_backward_ad=False, fast_mode=True)


@pytest.mark.parametrize("s", [s for s in CHECK if s.layout == "contiguous"], ids=lambda s: s.id)
def test_adjoint(s):
    """<A x, g> == <x, A^T g> for the forward op and the backward op."""
    x = s.make(torch.float64)
    y = resize_ad.interpolate(x, **s.kwargs)
    g = torch.randn_like(y)
    (gx,) = torch.autograd.grad(resize_ad.interpolate(x.requires_grad_(), **s.kwargs), x, g)
    torch.testing.assert_close((y * g).sum(), (x.detach() * gx).sum(), atol=1e-10, rtol=1e-10)


def test_backward_is_deterministic():
    x = torch.randn(2, 3, 33, 47, dtype=torch.float32, requires_grad=True)
    g = torch.randn(2, 3, 80, 61)
    runs = [torch.autograd.grad(resize_ad.interpolate(x, size=(80, 61), mode="bicubic"), x, g)[0] for _ in range(3)]
    assert all(torch.equal(runs[0], r) for r in runs[1:])


def test_third_order():
    x = torch.randn(1, 1, 5, 6, dtype=torch.float64, requires_grad=True)
    y = resize_ad.interpolate(x, size=(9, 4), mode="bilinear")
    g = torch.randn_like(y, requires_grad=True)
    (gx,) = torch.autograd.grad(y, x, g, create_graph=True)
    (gg,) = torch.autograd.grad((gx ** 2).sum(), g, create_graph=True)
    (ggg,) = torch.autograd.grad(gg.sum(), g)
    # gg = A (2 A^T g)  =>  d/dg sum(gg) = 2 A A^T 1 -- compare with the dense computation
    A = torch.autograd.functional.jacobian(lambda t: resize_ad.interpolate(t, size=(9, 4), mode="bilinear"), x)
    A = A.reshape(36, 30)
    torch.testing.assert_close(ggg.reshape(-1), 2 * A @ (A.T @ torch.ones(36, dtype=torch.float64)))


@pytest.mark.parametrize("mode,shape,size", [("bilinear", (2, 3, 6, 7), (9, 4)), ("nearest", (2, 3, 5), (8,)),
                                             ("trilinear", (1, 2, 3, 4, 5), (5, 2, 7)), ("area", (2, 2, 9, 8), (4, 3)),
                                             ("bicubic", (1, 2, 6, 6), (10, 3))])
def test_vmap(mode, shape, size):
    xs = torch.randn((4,) + shape, dtype=torch.float64)
    f = lambda x: resize_ad.interpolate(x, size=size, mode=mode)  # noqa: E731
    out = torch.func.vmap(f)(xs)
    ref = torch.stack([f(x) for x in xs])
    torch.testing.assert_close(out, ref)
    # vmap of the backward (per-sample gradients) and vmap over a non-leading dim
    gs = torch.func.vmap(torch.func.grad(lambda x: (f(x) ** 2).sum()))(xs)
    ref_g = torch.stack([torch.func.grad(lambda x: (f(x) ** 2).sum())(x) for x in xs])
    torch.testing.assert_close(gs, ref_g)
    out1 = torch.func.vmap(f, in_dims=1, out_dims=1)(xs.transpose(0, 1))
    torch.testing.assert_close(out1, ref.transpose(0, 1))


def test_func_jvp_and_jacfwd():
    x = torch.randn(1, 2, 5, 4, dtype=torch.float64)
    t = torch.randn_like(x)
    f = lambda x: resize_ad.interpolate(x, scale_factor=1.5, mode="bicubic")  # noqa: E731
    y, jt = torch.func.jvp(f, (x,), (t,))
    torch.testing.assert_close(jt, f(t))
    J = torch.func.jacfwd(f)(x)
    Jr = torch.func.jacrev(f)(x)
    torch.testing.assert_close(J, Jr)


def test_forward_ad_dual():
    import torch.autograd.forward_ad as fwAD
    x = torch.randn(2, 2, 7, dtype=torch.float64)
    t = torch.randn_like(x)
    with fwAD.dual_level():
        y = resize_ad.interpolate(fwAD.make_dual(x, t), size=11, mode="linear", align_corners=True)
        tangent = fwAD.unpack_dual(y).tangent
    torch.testing.assert_close(tangent, resize_ad.interpolate(t, size=11, mode="linear", align_corners=True))


# Plain tensors that need a graph take the C++ autograd Functions (csrc/autograd.cpp); anything
# else the Python Functions (autograd.py). Both routes give the same graph to every order.
def _route(y):
    return "cpp" if "ResizeFunction" in y.grad_fn.name() else "python"


@pytest.mark.parametrize("kw", [dict(size=(5, 9), mode="bicubic"), dict(size=(11, 4), mode="bilinear", antialias=True),
                                dict(scale_factor=2, mode="nearest"), dict(size=(3, 3), mode="area")])
def test_cpp_and_python_routes_agree_to_third_order(kw):
    x = torch.randn(2, 3, 7, 6, dtype=torch.float64)
    xp = torch.nn.Parameter(x.clone())  # nn.Parameter takes the Python Functions
    xc = x.clone().requires_grad_(True)
    grads = {}
    for name, t in (("cpp", xc), ("python", xp)):
        y = resize_ad.interpolate(t, **kw)
        assert _route(y) == name
        g = torch.randn(y.shape, dtype=y.dtype, generator=torch.Generator().manual_seed(0), requires_grad=True)
        (gx,) = torch.autograd.grad(y, t, g, create_graph=True)  # a graph of the backward
        (gg,) = torch.autograd.grad((gx * gx).sum(), g, create_graph=True)  # its backward: resize
        (ggg,) = torch.autograd.grad(gg.pow(2).sum(), g)
        grads[name] = (y.detach(), gx.detach(), gg.detach(), ggg)
    for a, b in zip(grads["cpp"], grads["python"]):
        assert torch.equal(a, b)


def test_cpp_route_forward_over_reverse_matches_native():
    # A tangent that reaches the C++ Functions' backward (a forward-AD level opened after the
    # forward) goes to the Python Functions' jvp.
    import torch.autograd.forward_ad as fwAD
    x = torch.randn(1, 2, 6, 5, dtype=torch.float64, requires_grad=True)
    g, tg = torch.randn(1, 2, 9, 4, dtype=torch.float64), torch.randn(1, 2, 9, 4, dtype=torch.float64)
    out = {}
    for name, fn in (("ours", resize_ad.interpolate), ("native", torch.nn.functional.interpolate)):
        y = fn(x, size=(9, 4), mode="bilinear", align_corners=False)
        if name == "ours":
            assert _route(y) == "cpp"
        with fwAD.dual_level():
            (gx,) = torch.autograd.grad(y, x, fwAD.make_dual(g, tg))
            out[name] = fwAD.unpack_dual(gx)
    torch.testing.assert_close(out["ours"].primal, out["native"].primal)
    assert out["ours"].tangent is not None
    torch.testing.assert_close(out["ours"].tangent, out["native"].tangent)


def test_python_route_under_transforms_and_forward_ad():
    import torch.autograd.forward_ad as fwAD
    x = torch.randn(1, 2, 6, 5, requires_grad=True)
    with fwAD.dual_level():
        assert _route(resize_ad.interpolate(x, size=4, mode="bilinear")) == "python"

    def f(v):  # x captured: a plain tensor that requires grad, inside a functorch transform
        return resize_ad.interpolate(x, size=4, mode="bilinear").sum() * v

    assert torch.func.grad(f)(torch.tensor(2.0)) == resize_ad.interpolate(x, size=4, mode="bilinear").sum()
    assert _route(resize_ad.interpolate(x, size=4, mode="bilinear")) == "cpp"
