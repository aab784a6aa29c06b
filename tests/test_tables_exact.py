"""The weight tables are native's formulas, bit for bit.

The row formulas (csrc/common/rows.h) evaluate ATen's UpSample.h / UpSampleKernel.cpp formulas
in the same float/double precision as native. Native's AVX2/AVX512 kernels are compiled with FMA
contraction, its DEFAULT kernels are not (e.g. linear, 7 -> 21 samples: a lambda of 1.49e-8 with
contraction where the twice-rounded formula gives 0), and resize_ad follows the capability torch
reports. In a subprocess forced to each capability this CPU has, the dense interpolation matrix
(one-hot inputs) of every native mode must be bitwise equal to resize_ad's; bicubic
(non-antialias) is compared to 8 ulps only in the output columns where taps clamp onto a border
pixel, because resize_ad merges the border taps that native reads several times (a different
summation order).
"""
import os
import subprocess
import sys
import textwrap

import pytest

from cpu_capabilities import CPU_CAPABILITIES as CAPABILITIES

_SCRIPT = textwrap.dedent(r"""
    import collections, itertools, sys, torch, torch.nn.functional as F
    import resize_ad
    assert torch.backends.cpu.get_cpu_capability() == sys.argv[1], torch.backends.cpu.get_cpu_capability()
    def W(f, n, dt, kw):
        eye = torch.eye(n, dtype=dt).reshape(n, 1, 1, n)
        return f(eye, **kw).reshape(n, -1)
    bad, total = [], 0
    specs = [dict(size=(1, m)) for m in (1, 2, 3, 6, 11, 26, 270, 1001)]
    specs += [dict(scale_factor=(1.0, s)) for s in (0.3, 0.45, 0.6, 1.05, 1.7, 2.04, 3.3)]
    modes = [("nearest", None, False), ("nearest-exact", None, False), ("area", None, False)]
    modes += [(m, ac, aa) for m in ("bilinear", "bicubic") for ac in (False, True) for aa in (False, True)]
    modes += [("lanczos", False, True)]
    for (mode, ac, aa), n, spec, dt in itertools.product(modes, (1, 2, 3, 4, 5, 7, 13, 97, 345), specs, (torch.float32, torch.float64)):
        kw = dict(mode=mode, **spec)
        if ac is not None:
            kw["align_corners"] = ac
        if aa:
            kw["antialias"] = True
        try:
            a = W(F.interpolate, n, dt, kw)
        except RuntimeError:  # output size 0
            continue
        b = W(resize_ad.interpolate, n, dt, kw)
        total += 1
        if mode == "bicubic" and not aa:
            # bitwise where no tap clamps onto a border pixel (no merged taps), 8 ulps elsewhere
            nz = a != 0
            idx = torch.arange(n).unsqueeze(1).expand_as(a)
            first = torch.where(nz, idx, n).amin(0)
            last = torch.where(nz, idx, -1).amax(0)
            inner = (first > 0) & (last < n - 1)
            ok = torch.equal(a[:, inner], b[:, inner]) and torch.allclose(a, b, rtol=0, atol=8 * torch.finfo(dt).eps)
        else:
            ok = torch.equal(a, b)
        if not ok:
            bad.append((mode, ac, aa, n, spec, str(dt), (a - b).abs().max().item()))
    print(total, len(bad), sorted(collections.Counter((b[0], b[2], b[5]) for b in bad).items()))
    for b in bad[:20]:
        print(b)
    sys.exit(1 if bad or total < 2500 else 0)
""")


@pytest.mark.parametrize("capability", CAPABILITIES)
def test_tables_bitwise_equal_to_native(capability):
    env = dict(os.environ, ATEN_CPU_CAPABILITY=capability.lower())
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, "-c", _SCRIPT, capability], env=env, cwd=root, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
