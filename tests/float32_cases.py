"""float32 parity with native at realistic sizes, and torch's own OpInfo samples of interpolate;
uint8 equality on the realistic bilinear and bicubic cases.

Native's CPU kernels round their table arithmetic as the kernel torch dispatches to was compiled:
the DEFAULT kernels without FMA contraction, the AVX2/AVX512 ones with it. resize_ad's tables
follow the capability torch reports, so under every capability the outputs agree to a few
float32 ulps of the output. Run as a script (python tests/float32_cases.py [--full]) it checks
everything in this process and exits non-zero on a mismatch; tests/test_float32_parity.py runs it
under each capability in a subprocess (ATEN_CPU_CAPABILITY is read by torch at start-up).
"""
from __future__ import annotations

import itertools
import random
import sys

import torch
import torch.nn.functional as F

import resize_ad

# A few float32 ulps of the output: the tables are native's to the bit (tests/test_tables_exact.py),
# what remains is the order in which the taps are summed.
ATOL, RTOL = 3e-6, 1e-6

_MODES_2D = [("nearest", None, False), ("nearest-exact", None, False), ("area", None, False)]
_MODES_2D += [(m, ac, False) for m in ("bilinear", "bicubic") for ac in (False, True)]
_MODES_2D += [(m, False, True) for m in ("bilinear", "bicubic")]
_MODES_1D = [("nearest", None, False), ("nearest-exact", None, False), ("area", None, False),
             ("linear", False, False), ("linear", True, False)]
_MODES_3D = [("nearest", None, False), ("nearest-exact", None, False), ("area", None, False),
             ("trilinear", False, False), ("trilinear", True, False)]


def realistic_cases(n: int, seed: int = 0):
    """n cases per rank: (mode, align_corners, antialias) x sizes x (size | scale_factor)."""
    rng = random.Random(seed)
    cases = []
    for rank, modes, lo, hi in ((1, _MODES_1D, 2000, 50000), (2, _MODES_2D, 64, 720), (3, _MODES_3D, 16, 48)):
        for k in range(n):
            mode, ac, aa = modes[k % len(modes)]
            ins = tuple(rng.randint(lo, hi) for _ in range(rank))
            kind = ("up", "down", "uneven")[(k // len(modes)) % 3]
            if kind == "up":
                f = [rng.uniform(1.05, 2.7) for _ in range(rank)]
            elif kind == "down":
                f = [rng.uniform(0.3, 0.95) for _ in range(rank)]
            else:
                f = [rng.uniform(0.3, 2.7) for _ in range(rank)]
            kw = dict(mode=mode)
            if rng.random() < 0.5:
                kw["scale_factor"] = tuple(round(v, 3) for v in f)
            else:
                kw["size"] = tuple(max(1, round(i * v)) for i, v in zip(ins, f))
            if ac is not None:
                kw["align_corners"] = ac
            if aa:
                kw["antialias"] = True
            cases.append((ins, kw))
    return cases


def check_case(ins, kw, seed=0):
    """Max |ours - native| and whether it is within ATOL + RTOL |native|."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn((1, 2) + tuple(ins), generator=g, dtype=torch.float32)
    ref = F.interpolate(x, **kw)
    y = resize_ad.interpolate(x, **kw)
    assert y.shape == ref.shape
    err = (y - ref).abs()
    return err.max().item(), bool((err <= ATOL + RTOL * ref.abs()).all())


def opinfo_samples():
    """torch's OpInfo reference inputs (the samples and more) of nn.functional.interpolate, every variant, float32, CPU."""
    from torch.testing._internal.common_methods_invocations import op_db

    for op in op_db:
        if op.name != "nn.functional.interpolate":
            continue
        for s in op.reference_inputs("cpu", torch.float32, requires_grad=False):
            yield op.variant_test_name, s


def check_opinfo():
    total, bad = 0, []
    for variant, s in opinfo_samples():
        ref = F.interpolate(s.input, *s.args, **s.kwargs)
        y = resize_ad.interpolate(s.input, *s.args, **s.kwargs)
        total += 1
        err = (y - ref).abs()
        if y.shape != ref.shape or not bool((err <= ATOL + RTOL * ref.abs()).all()):
            bad.append((variant, tuple(s.input.shape), s.args, s.kwargs, err.max().item()))
    return total, bad


def check_uint8(n: int):
    """The realistic 2-D bilinear and bicubic cases in uint8 (1, 3, 4 and 8 channels, planes and
    channels_last): (cases, mismatches). resize_ad's fixed point is native's bit for bit under
    every capability (native's AVX2 kernels for up to 4 channels, its generic passes otherwise)."""
    total, bad = 0, []
    cases = [(ins, kw) for ins, kw in realistic_cases(4 * n) if len(ins) == 2 and kw["mode"] in ("bilinear", "bicubic")]
    for k, (ins, kw) in enumerate(cases):
        c = (1, 3, 4, 8)[k % 4]
        g = torch.Generator().manual_seed(k)
        x = torch.randint(0, 256, (1, c) + tuple(ins), generator=g, dtype=torch.uint8)
        if k % 8 >= 4:
            x = x.contiguous(memory_format=torch.channels_last)
        total += 1
        if not torch.equal(resize_ad.interpolate(x, **kw), F.interpolate(x, **kw)):
            bad.append((c, ins, kw))
    return total, bad


def main(argv):
    n = 60 if "--full" in argv else 12
    cap = torch.backends.cpu.get_cpu_capability()
    failures = 0
    worst = 0.0
    cases = realistic_cases(n)
    for ins, kw in cases:
        e, ok = check_case(ins, kw)
        worst = max(worst, e)
        if not ok:
            failures += 1
            print(f"FAIL {ins} {kw} max err {e:.3g}")
    print(f"{cap}: realistic {len(cases) - failures}/{len(cases)} within {ATOL}+{RTOL}|y|, max err {worst:.3g}")
    total, bad = check_opinfo()
    for b in bad:
        print("FAIL opinfo", b)
    print(f"{cap}: opinfo {total - len(bad)}/{total}")
    total8, bad8 = check_uint8(n)
    for b in bad8:
        print("FAIL uint8", b)
    print(f"{cap}: uint8 {total8 - len(bad8)}/{total8} equal")
    return 1 if failures or bad or bad8 or total == 0 or total8 == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
