#!/usr/bin/env python
"""Random parity sweep against native F.interpolate, beyond the property test's small sizes.

    python tools/parity_sweep.py [--threads 2] [--seed 1] [--count 14000]

Each configuration draws a native mode and rank, 1-3000 (1-D), 1-300 (2-D) or 1-40 (3-D) samples
per axis, a size or scale factors, align_corners, antialias (2-D bilinear / bicubic), 1-17
channels, float32 or float64, contiguous or channels_last, and skips outputs above 4 M elements.
The forward must match native within tests/helpers.TOL, layout included; on half of them the
backward must match native's within 10x TOL or, where it does not, pass the adjoint identity
against resize_ad's own forward (native's backward is not always its forward's adjoint). Prints
every mismatch and a count; exit status 1 when there is one. Known native quirks it reports:
docs/robustness.md, section 3.
"""
import argparse
import os
import random
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import resize_ad  # noqa: E402
from helpers import TOL  # noqa: E402

MODES = {"nearest": (3, 4, 5), "nearest-exact": (3, 4, 5), "area": (3, 4, 5), "linear": (3,),
         "bilinear": (4,), "bicubic": (4,), "trilinear": (5,)}


def draw(rng):
    mode = rng.choice(list(MODES))
    nd = rng.choice(MODES[mode]) - 2
    cap = {1: 3000, 2: 300, 3: 40}[nd]
    ins = [rng.randint(1, cap) for _ in range(nd)]
    n = rng.randint(1, 3)
    c = rng.choice([1, 3, 4, 16]) if nd == 3 else rng.choice([1, 2, 3, 4, 5, 8, 16, 17])
    kw = {"mode": mode}
    if rng.random() < 0.5:
        kw["size"] = [max(1, int(i * rng.choice([0.3, 0.5, 0.7, 1, 1.3, 1.5, 2, 2.5, 3, 4]) + rng.randint(-2, 2)))
                      for i in ins]
    else:
        kw["scale_factor"] = [rng.choice([0.5, 2.0, 1.5, 0.25, 3.0, 0.75, 1.37]) for _ in ins]
    if mode in ("linear", "bilinear", "bicubic", "trilinear"):
        kw["align_corners"] = rng.random() < 0.3
    if mode in ("bilinear", "bicubic") and rng.random() < 0.2:
        kw["antialias"] = True
    dtype = rng.choice([torch.float32, torch.float32, torch.float64])
    x = torch.randn(n, c, *ins, dtype=dtype)
    if nd == 2 and rng.random() < 0.5:
        x = x.contiguous(memory_format=torch.channels_last)
    if nd == 3 and rng.random() < 0.5:
        x = x.contiguous(memory_format=torch.channels_last_3d)
    return x, kw, rng.random() < 0.5


def check(x, kw, y_ref, backward):
    """None when resize_ad agrees with native's forward y_ref (and backward), else what differs."""
    dt = x.dtype
    y = resize_ad.interpolate(x, **kw)
    if y.shape != y_ref.shape or y.stride() != y_ref.stride():
        return f"forward shape/stride {tuple(y.shape)} {y.stride()} vs {tuple(y_ref.shape)} {y_ref.stride()}"
    if not torch.allclose(y, y_ref, **TOL[dt]):
        return f"forward max diff {(y - y_ref).abs().max().item():.3g}"
    if not backward:
        return None
    xg = x.clone().requires_grad_()
    g = torch.randn_like(y_ref)
    ga, = torch.autograd.grad(resize_ad.interpolate(xg, **kw), xg, g)
    gb, = torch.autograd.grad(F.interpolate(xg, **kw), xg, g)
    if torch.allclose(ga, gb, atol=10 * TOL[dt]["atol"], rtol=10 * TOL[dt]["rtol"]):
        return None
    lhs, rhs = (y * g).sum().item(), (x * ga).sum().item()
    scale = (y.abs() * g.abs()).sum().item() + (x.abs() * ga.abs()).sum().item()
    if abs(lhs - rhs) <= 10 * TOL[dt]["rtol"] * scale + TOL[dt]["atol"]:
        return None  # native's backward differs, resize_ad's is the adjoint of its forward
    return f"backward max diff {(ga - gb).abs().max().item():.3g}, adjoint <y,g> {lhs:.6g} <x,gx> {rhs:.6g}"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--count", type=int, default=14000, help="configurations drawn")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    rng = random.Random(a.seed)
    torch.manual_seed(a.seed)
    ran = bad = 0
    for i in range(a.count):
        x, kw, backward = draw(rng)
        try:
            y_ref = F.interpolate(x, **kw)
        except (RuntimeError, ValueError):
            continue  # native rejects it (tests/test_errors.py checks resize_ad does too)
        if y_ref.numel() == 0 or y_ref.numel() > 4_000_000:
            continue
        ran += 1
        why = check(x, kw, y_ref, backward)
        if why:
            bad += 1
            layout = "contiguous" if x.is_contiguous() else "channels_last"
            print(f"#{i} {tuple(x.shape)} {layout} {x.dtype} {kw}: {why}", flush=True)
    print(f"{ran} configurations, {bad} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
