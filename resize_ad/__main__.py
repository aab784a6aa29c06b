"""python -m resize_ad: the self-check.

For each mode x rank (on each device present) it prints the max error against torch's native
kernels for the forward, the backward and the double backward (float64), the gradcheck and
gradgradcheck verdicts, and a quick forward speed ratio against F.interpolate (float32,
medians of interleaved runs; > 1 means resize_ad is faster). Exits 1 if any parity check fails.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time

import torch
import torch.nn.functional as F

import resize_ad

# (label, mode, rank, kwargs, output spatial size)
ROWS = [
    ("nearest 1-D", "nearest", 3, {}, (37,)),
    ("nearest 2-D", "nearest", 4, {}, (17, 9)),
    ("nearest 3-D", "nearest", 5, {}, (9, 5, 7)),
    ("nearest-exact 1-D", "nearest-exact", 3, {}, (13,)),
    ("nearest-exact 2-D", "nearest-exact", 4, {}, (5, 14)),
    ("nearest-exact 3-D", "nearest-exact", 5, {}, (3, 8, 6)),
    ("linear 1-D", "linear", 3, {"align_corners": False}, (29,)),
    ("linear 1-D ac", "linear", 3, {"align_corners": True}, (7,)),
    ("bilinear 2-D", "bilinear", 4, {"align_corners": False}, (15, 6)),
    ("bilinear 2-D ac", "bilinear", 4, {"align_corners": True}, (13, 13)),
    ("bicubic 2-D", "bicubic", 4, {"align_corners": False}, (16, 5)),
    ("bicubic 2-D ac", "bicubic", 4, {"align_corners": True}, (11, 17)),
    ("trilinear 3-D", "trilinear", 5, {"align_corners": False}, (7, 3, 9)),
    ("trilinear 3-D ac", "trilinear", 5, {"align_corners": True}, (5, 8, 4)),
    ("area 1-D", "area", 3, {}, (4,)),
    ("area 2-D", "area", 4, {}, (3, 5)),
    ("area 3-D", "area", 5, {}, (2, 3, 4)),
    ("bilinear antialias 2-D", "bilinear", 4, {"antialias": True}, (4, 3)),
    ("bicubic antialias 2-D", "bicubic", 4, {"antialias": True}, (3, 5)),
]
IN_SPATIAL = {3: (11,), 4: (8, 9), 5: (5, 6, 7)}
# Speed shapes: ~4-8 MB float32 inputs, upsampled x2 (downsampled for area / antialias).
SPEED_SHAPE = {3: (8, 32, 4096), 4: (4, 32, 64, 64), 5: (2, 16, 16, 32, 32)}
TOL = 1e-9


def _errors(mode, rank, kw, size, device):
    g = torch.Generator().manual_seed(0)
    x = torch.randn((2, 3) + IN_SPATIAL[rank], generator=g, dtype=torch.float64).to(device)
    kw = dict(kw, mode=mode, size=size)
    out = []
    results = {}
    for name, f in (("ours", resize_ad.interpolate), ("native", F.interpolate)):
        xi = x.clone().requires_grad_(True)
        y = f(xi, **kw)
        gy = torch.randn(y.shape, generator=torch.Generator().manual_seed(1), dtype=torch.float64).to(device)
        gy.requires_grad_(True)
        (gx,) = torch.autograd.grad(y, xi, gy, create_graph=True)
        v = torch.randn(x.shape, generator=torch.Generator().manual_seed(2), dtype=torch.float64).to(device)
        (gg,) = torch.autograd.grad(gx, gy, v)
        results[name] = (y.detach(), gx.detach(), gg)
    for a, b in zip(results["ours"], results["native"]):
        out.append((a - b).abs().max().item() if a.numel() else 0.0)
    return out


def _gradchecks(mode, rank, kw, size, device):
    x = torch.randn((1, 2) + IN_SPATIAL[rank], dtype=torch.float64, device=device, requires_grad=True)
    f = lambda t: resize_ad.interpolate(t, size=size, mode=mode, **kw)  # noqa: E731
    ok1 = torch.autograd.gradcheck(f, (x,), fast_mode=True, raise_exception=False)
    ok2 = torch.autograd.gradgradcheck(f, (x,), fast_mode=True, raise_exception=False)
    return ok1 and ok2


def _speed(mode, rank, kw, device, repeats):
    shape = SPEED_SHAPE[rank]
    x = torch.randn(shape, device=device)
    factor = 0.5 if (mode == "area" or kw.get("antialias")) else 2.0
    size = tuple(max(1, int(s * factor)) for s in shape[2:])
    kw = dict(kw, mode=mode, size=size)
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)

    def timed(f):
        sync()
        t0 = time.perf_counter()
        f(x, **kw)
        sync()
        return time.perf_counter() - t0

    for f in (resize_ad.interpolate, F.interpolate):  # warm-up
        f(x, **kw)
    ours, native = [], []
    for _ in range(repeats):
        ours.append(timed(resize_ad.interpolate))
        native.append(timed(F.interpolate))
    return statistics.median(native) / statistics.median(ours)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m resize_ad", description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=5, help="timed runs per speed ratio (median)")
    p.add_argument("--no-speed", action="store_true", help="skip the speed column")
    p.add_argument("--device", action="append", help="cpu / cuda (default: every device present)")
    args = p.parse_args(argv)
    devices = args.device or (["cpu"] + (["cuda"] if torch.cuda.is_available() and resize_ad.has_cuda_kernels() else []))

    print(f"resize_ad {resize_ad.__version__} on torch {torch.__version__}; devices: {', '.join(devices)}; "
          f"CUDA kernels built: {resize_ad.has_cuda_kernels()}")
    print(f"max |ours - native| in float64 (fail above {TOL:g}); speed = native time / ours, float32 forward\n")
    head = f"| {'device':6} | {'case':24} | {'forward':>9} | {'backward':>9} | {'2nd order':>9} | gradcheck | {'speed':>6} |"
    print(head)
    print("|" + "|".join("-" * (len(c)) for c in head.split("|")[1:-1]) + "|")
    failures = 0
    t_start = time.perf_counter()
    for device in devices:
        for label, mode, rank, kw, size in ROWS:
            errs = _errors(mode, rank, kw, size, device)
            gc = _gradchecks(mode, rank, kw, size, device)
            ok = all(e <= TOL for e in errs) and gc
            failures += not ok
            speed = "" if args.no_speed else f"{_speed(mode, rank, kw, device, args.repeats):5.2f}x"
            mark = "" if ok else "  <-- FAIL"
            print(f"| {device:6} | {label:24} | {errs[0]:9.1e} | {errs[1]:9.1e} | {errs[2]:9.1e} | "
                  f"{'pass' if gc else 'FAIL':9} | {speed:>6} |{mark}", flush=True)
    print(f"\n{len(ROWS) * len(devices) - failures} passed, {failures} failed "
          f"({time.perf_counter() - t_start:.1f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
