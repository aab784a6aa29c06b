#!/usr/bin/env python
"""Short CUDA checks for benchmarks/gpu_check.sh (not timed).

    python benchmarks/cuda_smoke.py graph    # CUDA graph capture and replay, forward + backward
    python benchmarks/cuda_smoke.py subset   # a few resizes on every kernel kind, for
                                             # compute-sanitizer memcheck / racecheck

Exits non-zero on a mismatch.
"""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import resize_ad  # noqa: E402
from resize_ad._testing import executor  # noqa: E402

CASES = [  # (shape, kwargs, channels_last)
    ((2, 3, 31, 45), dict(size=(64, 20), mode="bilinear"), False),
    ((2, 5, 17, 19), dict(size=(40, 9), mode="bicubic", align_corners=True), True),
    ((1, 3, 64, 48), dict(size=(20, 17), mode="bilinear", antialias=True), False),
    ((2, 3, 30, 31), dict(size=(7, 90), mode="area"), True),
    ((2, 2, 9, 10, 11), dict(size=(17, 4, 23), mode="trilinear"), False),
    ((1, 4, 33), dict(scale_factor=2.5, mode="nearest"), False),
    ((1, 4, 20, 21), dict(size=(41, 8), mode="nearest-exact"), True),
]


def _make(shape, cl, dtype=torch.float32, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    x = torch.randn(shape, device="cuda", dtype=dtype, generator=g)
    if cl:
        x = x.contiguous(memory_format=torch.channels_last)
    return x


def graph() -> int:
    bad = 0
    for shape, kw, cl in CASES:
        static_x = _make(shape, cl).requires_grad_(True)
        out_shape = F.interpolate(static_x.detach(), **kw).shape
        static_g = torch.randn(out_shape, device="cuda")
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):  # warm-up outside the capture, as torch's docs advise
            for _ in range(2):
                torch.autograd.grad(resize_ad.interpolate(static_x, **kw), static_x, static_g)
        torch.cuda.current_stream().wait_stream(side)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            static_y = resize_ad.interpolate(static_x, **kw)
            (static_gx,) = torch.autograd.grad(static_y, static_x, static_g)
        for seed in range(1, 4):
            x = _make(shape, cl, seed=seed)
            gy = torch.randn(out_shape, device="cuda")
            with torch.no_grad():
                static_x.copy_(x)
                static_g.copy_(gy)
            # churn the caching allocator: blocks freed during capture must not be handed out
            junk = [torch.randn(1 << 18, device="cuda") for _ in range(8)]
            g.replay()
            xr = x.detach().requires_grad_(True)
            yr = resize_ad.interpolate(xr, **kw)
            (gr,) = torch.autograd.grad(yr, xr, gy)
            torch.cuda.synchronize()
            ok = torch.equal(static_y, yr) and torch.equal(static_gx, gr)
            bad += not ok
            print(f"graph {kw} replay {seed}: {'ok' if ok else 'MISMATCH'}")
            del junk
    print("graph capture:", "FAILED" if bad else "ok")
    return 1 if bad else 0


def subset() -> int:
    bad = 0
    for name in ("separable", "product_gather"):
        with executor(name):
            for shape, kw, cl in CASES:
                for dtype in (torch.float32, torch.float16):
                    x = _make(shape, cl, dtype).requires_grad_(True)
                    y = resize_ad.interpolate(x, **kw)
                    (gx,) = torch.autograd.grad(y, x, torch.ones_like(y))
                    ref = F.interpolate(x.detach().float(), **kw)
                    err = (y.float() - ref).abs().max().item()
                    tol = 1e-4 if dtype == torch.float32 else 2e-2
                    bad += not (err <= tol * (1 + ref.abs().max().item()))
                    print(f"{name} {kw} {dtype}: max diff {err:.2e}")
    torch.cuda.synchronize()
    print("subset:", "FAILED" if bad else "ok")
    return 1 if bad else 0


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "graph"
    sys.exit({"graph": graph, "subset": subset}[what]())
