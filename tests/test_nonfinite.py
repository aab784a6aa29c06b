"""NaN and inf propagation, forward and backward, in every mode.

resize_ad computes y = W x (and grad_x = W^T grad_y) with the zeros of W structural: an output
depends on exactly the inputs whose weight is non-zero. So, with IEEE arithmetic on the rest:

- an output is NaN iff it depends on a NaN, or on both a +inf and a -inf contribution;
- it is +inf / -inf iff it depends on an inf of that signed contribution (weight sign x inf sign);
- otherwise it is finite, and equal to the finite result.

The reference applies exactly this rule to the dense matrix W of resize_ad's forward (built
column by column from one-hot inputs; W^T for the backward), so it checks the kernels' handling
of NaN/inf, not the weights (test_parity checks those). Against native F.interpolate:

- wherever native is finite, resize_ad is finite and equal (within TOL);
- wherever resize_ad is NaN or inf, native is NaN or the same inf, at every output whose weights
  on the non-finite inputs have the same signs in both implementations (see _same_structure);
- native can be NaN where resize_ad is not: its kernels multiply weights that are exactly 0
  (linear/cubic taps at integral source positions, the second linear tap of an axis whose size
  does not change, the edges of antialias windows) and read clamped border pixels several
  times with weights of opposite sign (bicubic), so 0 * inf and inf - inf appear where the
  output does not depend on the inf at all (or depends on it with a single merged weight).
  Native is not consistent about it either: its bicubic backward for an unchanged size copies
  the gradient (inf stays inf) while its forward spreads NaN to the neighbours.
"""
import itertools
import math

import pytest
import torch
import torch.nn.functional as F

import resize_ad
from helpers import assert_close
from samples import Sample, aa_samples, native_backward_not_adjoint, sample_inputs

NAN, INF = float("nan"), float("inf")
PATTERNS = [(NAN,), (INF,), (-INF,), (INF, INF, INF, INF), (NAN, INF, -INF, INF), (-INF, -INF, INF, INF)]
_IN = {3: (9,), 4: (7, 8), 5: (5, 6, 4)}


def _filter_samples():
    out = []
    for k, (mode, aa) in enumerate(itertools.product(resize_ad.FILTER_MODES, (False, True))):
        rank = 3 + k % 2
        for kw in (dict(size=tuple(2 * i - 3 for i in _IN[rank])), dict(scale_factor=0.45)):
            out.append(Sample(mode, rank, _IN[rank], dict(mode=mode, antialias=aa, **kw)))
    return out


def _pick(samples, specs):
    return [s for s in samples if any(f"{k}={v}" in s.id for k, v in specs)]


# Size specs that reach every table shape: uneven sizes (up on some axes, down on others), an
# unchanged size (identity axes), a scale that leaves some axes' sizes unchanged, and a scale.
_SPECS = [("size", (11,)), ("size", (11, 3)), ("size", (11, 3, 6)), ("size", (9,)), ("size", (7, 8)),
          ("size", (5, 6, 4)), ("scale_factor", 1.05), ("scale_factor", (1.05, 2.04)),
          ("scale_factor", (1.05, 2.04, 0.99)), ("scale_factor", 0.6), ("scale_factor", (0.6, 0.45)),
          ("scale_factor", (0.6, 0.45, 0.75))]
_NATIVE = _pick(sample_inputs(layouts=("contiguous",)), _SPECS)
_NATIVE += _pick(sample_inputs(layouts=("channels_last",)), _SPECS[1:3])
_NATIVE += _pick(aa_samples(layouts=("contiguous",)), [_SPECS[1], _SPECS[10]])
# antialias for linear (3-D) and trilinear (5-D): resize_ad extensions, no native reference
_EXT = _pick(sample_inputs({"linear": (3,), "trilinear": (5,)}, layouts=("contiguous",), antialias=True),
             [_SPECS[0], _SPECS[2]])
CASES = [(s, torch.float64) for s in _NATIVE + _EXT + _filter_samples()]
CASES += [(s, torch.float32) for s in (_NATIVE + _EXT + _filter_samples())[::2]]


def _native_ok(s):
    return s.mode not in resize_ad.FILTER_MODES and not (
        s.kwargs.get("antialias") and s.mode in ("linear", "trilinear"))


def _batch_of_patterns(t):
    """t (1, C, ...) repeated once per (pattern, shift), each copy with its pattern written at
    four positions (first, a third, the middle, last, shifted by `shift`) of its flat data."""
    cases = list(itertools.product(PATTERNS, (0, 1)))
    fmt = _fmt(t)
    out = t.detach().repeat((len(cases),) + (1,) * (t.dim() - 1)).contiguous()
    n = out[0].numel()
    flat = out.view(len(cases), -1)
    for b, (vals, shift) in enumerate(cases):
        for p, v in zip([shift, n // 3 + shift, n // 2 + 1 + shift, n - 1 - shift], vals):
            flat[b, p % n] = v
    return out.contiguous(memory_format=fmt)


def _fmt(t):
    if t.dim() == 4 and t.is_contiguous(memory_format=torch.channels_last) and not t.is_contiguous():
        return torch.channels_last
    if t.dim() == 5 and t.is_contiguous(memory_format=torch.channels_last_3d) and not t.is_contiguous():
        return torch.channels_last_3d
    return torch.contiguous_format


def _matrix(s, dtype, fn):
    """Dense W [out, in] of one channel of fn's forward, from one-hot inputs."""
    n = math.prod(s.in_spatial)
    eye = torch.eye(n, dtype=dtype).reshape((n, 1) + tuple(s.in_spatial))
    return fn(eye, **s.kwargs).reshape(n, -1).T.contiguous()


def _same_structure(W_ours, W_nat, v):
    """Outputs whose weights on every non-finite entry of v have the same sign (or are both 0)
    in both matrices. Elsewhere the two weight sets differ at the rounding level (a weight that
    is 0 in exact arithmetic comes out as +-1e-14 on one side and 0 or -2e-7 on the other:
    native's AVX2/AVX512 kernels are compiled with FMA contraction, resize_ad's tables are
    not), and so may the non-finite pattern."""
    d = W_ours.dtype
    bad = ~v.isfinite()
    differ = (torch.sign(W_ours) != torch.sign(W_nat)).to(d)
    return (bad.to(d) @ differ.T) == 0

def _apply_sparse(W, v):
    """Rows of v (..., in) times W^T with W's zeros structural and IEEE rules for the rest."""
    d = W.dtype
    fin = torch.where(v.isfinite(), v, torch.zeros((), dtype=d))
    y = fin @ W.T
    nz, pos_w, neg_w = (W != 0).to(d), (W > 0).to(d), (W < 0).to(d)
    has_nan = v.isnan().to(d) @ nz.T > 0
    plus = ((v == INF).to(d) @ pos_w.T + (v == -INF).to(d) @ neg_w.T) > 0
    minus = ((v == -INF).to(d) @ pos_w.T + (v == INF).to(d) @ neg_w.T) > 0
    y = torch.where(plus, torch.full((), INF, dtype=d), y)
    y = torch.where(minus, torch.full((), -INF, dtype=d), y)
    return torch.where(has_nan | (plus & minus), torch.full((), NAN, dtype=d), y)


def _assert_rule(actual, ref, dtype):
    """resize_ad's non-finite pattern is exactly the rule's; finite values agree."""
    assert torch.equal(actual.isnan(), ref.isnan()), "NaN positions differ from the rule"
    assert torch.equal(actual.isposinf(), ref.isposinf()), "+inf positions differ from the rule"
    assert torch.equal(actual.isneginf(), ref.isneginf()), "-inf positions differ from the rule"
    fin = ref.isfinite()
    assert_close(actual[fin], ref[fin], dtype)


def _assert_vs_native(actual, nat, dtype, same):
    """Where both weight structures agree: native finite => ours finite and equal; ours NaN =>
    native NaN; ours inf => native the same inf or NaN. (Native may be NaN where ours is not.)"""
    a, n = actual[same], nat[same]
    fin = n.isfinite()
    assert a[fin].isfinite().all(), "non-finite where native is finite"
    assert_close(a[fin], n[fin], dtype)
    assert n[a.isnan()].isnan().all(), "NaN where native is not NaN"
    for sign in (INF, -INF):
        m = a == sign
        assert ((n[m] == sign) | n[m].isnan()).all(), "inf where native has another value"
    # where native is finite, ours is finite and equal everywhere
    fin_all = nat.isfinite()
    assert actual[fin_all].isfinite().all()
    assert_close(actual[fin_all], nat[fin_all], dtype)


def _assert_rule_or_zero_tap(actual, ref, dtype):
    """The cubic filters have weights that are exactly 0 inside a window (taps at integral
    distances, e.g. every integral source position): the CPU kernels multiply those as native's
    do (0 * inf = NaN, like native), while windows' zero ends are trimmed. So here: nothing the
    rule makes non-finite becomes finite, and every finite output equals the rule's."""
    assert (~ref.isfinite() <= ~actual.isfinite()).all(), "a NaN/inf vanished"
    fin = actual.isfinite()
    assert ref[fin].isfinite().all()
    assert_close(actual[fin], ref[fin], dtype)


@pytest.mark.parametrize("s,dtype", CASES, ids=lambda c: c.id if isinstance(c, Sample) else str(c)[6:])
def test_nonfinite_forward_backward(s, dtype):
    s.batch, s.channels = 1, 2
    native = _native_ok(s)
    W = _matrix(s, dtype, resize_ad.interpolate)
    Wn = _matrix(s, dtype, F.interpolate) if native else None
    x = _batch_of_patterns(s.make(dtype, seed=3))
    rows = x.shape[0] * s.channels
    y = resize_ad.interpolate(x, **s.kwargs)
    ref = _apply_sparse(W, x.reshape(rows, -1)).reshape(y.shape)
    check = _assert_rule_or_zero_tap if s.mode in ("bicubic", "cubic") else _assert_rule
    check(y, ref, dtype)
    if native:
        same = _same_structure(W, Wn, x.reshape(rows, -1)).reshape(y.shape)
        _assert_vs_native(y, F.interpolate(x, **s.kwargs), dtype, same)

    # backward: the same patterns in the output gradient
    xg = s.make(dtype, seed=5).repeat((x.shape[0],) + (1,) * (x.dim() - 1)).requires_grad_(True)
    yg = resize_ad.interpolate(xg, **s.kwargs)
    g0 = torch.randn(yg.shape[1:], dtype=torch.float64, generator=torch.Generator().manual_seed(4))
    g = _batch_of_patterns(g0.to(dtype)[None].contiguous(memory_format=_fmt(yg)))
    (gx,) = torch.autograd.grad(yg, xg, g)
    ref_g = _apply_sparse(W.T.contiguous(), g.reshape(rows, -1)).reshape(gx.shape)
    check(gx, ref_g, dtype)
    if native and not native_backward_not_adjoint(s):
        (gn,) = torch.autograd.grad(F.interpolate(xg, **s.kwargs), xg, g)
        same = _same_structure(W.T, Wn.T, g.reshape(rows, -1)).reshape(gx.shape)
        _assert_vs_native(gx, gn, dtype, same)


def test_nan_never_vanishes_nor_spreads():
    """A NaN input reaches exactly the outputs that depend on it, in every mode (1-D spot check)."""
    for mode in ("nearest", "nearest-exact", "linear", "area") + resize_ad.FILTER_MODES:
        x = torch.arange(1.0, 11.0).reshape(1, 1, 10)
        x[0, 0, 4] = NAN
        y = resize_ad.interpolate(x, size=23, mode=mode)
        clean = x.clone()
        clean[0, 0, 4] = 1e30
        dep = resize_ad.interpolate(clean, size=23, mode=mode) != resize_ad.interpolate(
            torch.where(clean > 1e29, torch.zeros(()), clean), size=23, mode=mode)
        assert torch.equal(y.isnan(), dep), mode
