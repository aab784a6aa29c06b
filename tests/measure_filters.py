"""Max errors of the antialias / filter modes against each reference of tests/test_filters.py.

Walks the same cases as the tests and prints a markdown table (docs/filters.md quotes it):

    python tests/measure_filters.py
"""
import os
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [_ROOT, os.path.join(_ROOT, "tests")]  # this checkout's resize_ad, then the tests

import collections  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import resize_ad  # noqa: E402
import test_filters as T  # noqa: E402
from helpers import native, ours  # noqa: E402

worst = collections.defaultdict(float)


def record(key, actual, expected):
    err = (actual.double() - expected.double()).abs().max().item() if actual.numel() else 0.0
    worst[key] = max(worst[key], err)


def main():
    f64, f32 = torch.float64, torch.float32
    for pil in T.PIL_FILTERS:
        for nd, cases in T.PIL_CASES.items():
            for in_sp, out_sp in cases:
                mode = T.OUR_MODE.get((pil, nd), pil)
                a = np.random.default_rng(sum(in_sp) + 7 * sum(out_sp)).random(in_sp, dtype=np.float32)
                ref = torch.from_numpy(T.pil_resize(a, out_sp, T.PIL_FILTERS[pil]))
                for dt in (f64, f32):
                    y = ours(torch.from_numpy(a).to(dt)[None, None], size=out_sp, mode=mode, antialias=True)[0, 0]
                    record(("PIL " + T.PIL_FILTERS[pil], "1-3D", str(dt)[6:]), y, ref)

    for s in T.LANCZOS_NATIVE:
        for dt in (f64, f32):
            x = s.make(dt)
            record(("native lanczos (2-D)", "forward", str(dt)[6:]), ours(x, **s.kwargs), native(x, **s.kwargs))

    for s, mode2d in T.SEPARABLE:
        for dt in (f64, f32):
            x = s.make(dt)
            aa = "aa" if s.kwargs.get("antialias") else "no aa"
            record((f"native {mode2d} separable", f"{s.mode} {s.rank - 2}-D {aa}", str(dt)[6:]),
                   ours(x, **s.kwargs), T.native_separable(x, s, mode2d))

    for s in T.REF_SAMPLES:
        x = s.make(f64)
        ref = torch.from_numpy(T.apply_separable(x.numpy(), [T.resolved_reference(s, d) for d in range(s.rank - 2)]))
        aa = "aa" if s.kwargs.get("antialias") else "no aa"
        for dt in (f64, f32):
            record(("dense reference", f"{T.KERNEL_OF[s.mode]} {aa}", str(dt)[6:]), ours(x.to(dt), **s.kwargs), ref)

    ties = collections.Counter()
    for mode, aa in T.AXIS_MODES:
        for I in T._AXIS_SIZES:
            for O in T._AXIS_OUTS:
                W, cand = T.reference_matrix(T.KERNEL_OF[mode], I, O, I / O, aa)
                mine = T.our_axis_matrix(mode, I, {"size": O}, aa)
                rows = [min(cand.get(o, [W[o]]), key=lambda r: np.abs(r - mine[o]).max()) for o in range(O)]
                record(("dense reference, 1-D tables", f"{mode} {'aa' if aa else 'no aa'}", "float64"),
                       torch.from_numpy(mine), torch.from_numpy(np.stack(rows)))
                ties[(mode, aa)] += len(cand)

    print(f"resize_ad from {resize_ad.__file__}, torch {torch.__version__}\n")
    print("| reference | cases | dtype | max abs error |")
    print("|---|---|---|---|")
    for (ref, cases, dt), err in worst.items():
        print(f"| {ref} | {cases} | {dt} | {err:.1e} |")
    print("\nrows with a tap on a kernel jump (1-D table grid):", dict(ties))


if __name__ == "__main__":
    main()
