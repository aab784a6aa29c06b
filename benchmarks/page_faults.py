"""Where a large fresh result's time goes, block by block of calls: the median call, the page
faults and system time per call, and each CPU's kernel and idle ticks (Linux /proc/stat).

    python3 benchmarks/page_faults.py --threads 2
    python3 benchmarks/page_faults.py --threads 2 --impl native --shape 8,64,64,64 --mode nearest

A result of 33.5 MB is a fresh mapping per call on both sides (glibc's allocator maps it and
unmaps it when freed), so each call faults its pages in and the kernel zeroes them; the blocks
show when that, rather than the resize, sets the time (docs/performance.md).
"""
import argparse
import os
import resource
import statistics
import time

import torch
import torch.nn.functional as F

import resize_ad


def cpu_ticks():
    """Per CPU: (kernel, idle) ticks so far, or {} where /proc/stat is not there."""
    ticks = {}
    if not os.path.exists("/proc/stat"):
        return ticks
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("cpu") and line[3] != " ":
                v = line.split()
                ticks[v[0]] = (int(v[3]), int(v[4]))
    return ticks


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=torch.get_num_threads())
    ap.add_argument("--impl", choices=["ours", "native"], default="ours")
    ap.add_argument("--shape", default="8,64,64,64")
    ap.add_argument("--mode", default="nearest")
    ap.add_argument("--scale", type=float, default=2.0)
    ap.add_argument("--contiguous", action="store_true", help="NCHW instead of channels_last")
    ap.add_argument("--blocks", type=int, default=12)
    ap.add_argument("--calls", type=int, default=30, help="calls per block")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    x = torch.randn(*(int(v) for v in a.shape.split(",")))
    if not a.contiguous:
        x = x.contiguous(memory_format=torch.channels_last)
    fn = resize_ad.interpolate if a.impl == "ours" else F.interpolate
    kw = dict(scale_factor=a.scale, mode=a.mode)
    if a.mode in ("linear", "bilinear", "bicubic", "trilinear"):
        kw["align_corners"] = False
    out_mb = fn(x, **kw).numel() * x.element_size() / 1e6
    print(f"{a.impl} {a.mode} {tuple(x.shape)} x{a.scale} -> {out_mb:.1f} MB, {a.threads} threads")
    for b in range(a.blocks):
        r0, t0 = resource.getrusage(resource.RUSAGE_SELF), cpu_ticks()
        times = []
        for _ in range(a.calls):
            s = time.perf_counter()
            fn(x, **kw)
            times.append((time.perf_counter() - s) * 1e3)
        r1, t1 = resource.getrusage(resource.RUSAGE_SELF), cpu_ticks()
        per_cpu = " ".join(f"{c}: kernel {t1[c][0] - t0[c][0]} idle {t1[c][1] - t0[c][1]}" for c in sorted(t1))
        print(f"block {b:2d}: median {statistics.median(times):6.2f} ms, "
              f"faults/call {(r1.ru_minflt - r0.ru_minflt) / a.calls:7.1f}, "
              f"system ms/call {(r1.ru_stime - r0.ru_stime) / a.calls * 1e3:6.2f}  ({per_cpu})")


if __name__ == "__main__":
    main()
