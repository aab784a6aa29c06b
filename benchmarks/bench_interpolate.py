#!/usr/bin/env python
"""Benchmark resize_ad.interpolate against torch.nn.functional.interpolate.

Every case is timed forward and forward+backward (uint8: forward only), both implementations in the same process,
interleaved (the order alternates every repeat), as the median over repeats of the mean time of
a batch of calls. Each row also gives the fraction of the memory floor reached: the bytes read
and written (input + output, and for forward+backward also grad_output + grad_input) over the
copy bandwidth, measured in the same run with a large ``Tensor.copy_``, and the fraction of the
write floor: the time to allocate the result(s) with torch's allocator and fill them once, timed
interleaved with both implementations (on outputs that the allocator maps fresh per call it is
the page faults, which the memory floor leaves out: a lower bound for a resize that writes new
tensors of 4 KiB pages, as native does; resize_ad asks for transparent huge pages on such
results, and there reads above 100 %). When OpenCV is
importable, cv2.resize is timed on the 2-D float32 cases whose maths it shares (forward only),
writing (``dst=``) into one numpy batch array that each call allocates, as a cv2 user does
(numpy, like resize_ad, asks for huge pages on a large fresh array), each sample of either side
after untimed calls of its own (``compare``'s settle).

    python benchmarks/bench_interpolate.py                 # full run, CPU (+ CUDA if present)
    python benchmarks/bench_interpolate.py --quick         # short run
    python benchmarks/bench_interpolate.py --quick --thp   # both sides on huge-page allocations
    python benchmarks/bench_interpolate.py --quick --reuse # both sides reuse large blocks warm
    python benchmarks/bench_interpolate.py --cases unet,aa --json out.json --plot out.png
    python benchmarks/bench_interpolate.py --cases uint8     # the uint8 group (forward only)

Progress goes to stderr; the markdown table goes to stdout.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import platform
import re
import statistics
import sys
import time
from typing import Callable, Dict, List, Optional

import torch
import torch.nn.functional as F

try:  # run from a checkout without installing: prefer the tree this file lives in
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import resize_ad
finally:
    sys.path.pop(0)

try:
    import cv2  # optional reference
except ImportError:  # pragma: no cover - depends on the environment
    cv2 = None


@dataclasses.dataclass
class Case:
    name: str
    shape: tuple
    kwargs: dict
    dtype: torch.dtype = torch.float32
    channels_last: bool = False
    # cv2.resize interpolation flag with the same maths (2-D float32 only), or None
    cv2_interp: Optional[str] = None
    # one image as an (H, W, C) array viewed as (1, C, H, W): channels_last in memory, its result
    # contiguous (the batch stride makes torch suggest that layout)
    hwc: bool = False

    def describe(self) -> str:
        kw = dict(self.kwargs)
        mode = kw.pop("mode")
        tgt = f"size={tuple(kw.pop('size'))}" if "size" in kw else f"x{kw.pop('scale_factor')}"
        extra = " ".join(f"{k}={v}" for k, v in kw.items())
        lay = " CL" if self.channels_last else " HWC view" if self.hwc else ""
        return f"{mode} {tuple(self.shape)}{lay} {tgt} {extra}".strip()

    def make(self, device, requires_grad=False):
        g = torch.Generator().manual_seed(0)
        if self.dtype == torch.uint8:  # an image: every byte value
            x = torch.randint(0, 256, self.shape, generator=g, dtype=torch.uint8).to(device)
        else:
            x = torch.randn(self.shape, generator=g, dtype=torch.float32).to(device=device, dtype=self.dtype)
        if self.channels_last:
            x = x.contiguous(memory_format=torch.channels_last if x.dim() == 4 else torch.channels_last_3d)
        if self.hwc:
            x = x[0].permute(1, 2, 0).contiguous().permute(2, 0, 1)[None]
        return x.requires_grad_(requires_grad)


def suite() -> List[Case]:
    bf, u8 = torch.bfloat16, torch.uint8
    return [
        Case("unet_bilinear_x2", (8, 64, 64, 64), dict(mode="bilinear", scale_factor=2, align_corners=False),
             cv2_interp="INTER_LINEAR"),
        Case("unet_bilinear_x2_cl", (8, 64, 64, 64), dict(mode="bilinear", scale_factor=2, align_corners=False),
             channels_last=True, cv2_interp="INTER_LINEAR"),
        Case("unet_bilinear_x2_ac", (8, 64, 64, 64), dict(mode="bilinear", scale_factor=2, align_corners=True)),
        Case("nearest_x2", (8, 64, 64, 64), dict(mode="nearest", scale_factor=2), cv2_interp="INTER_NEAREST"),
        Case("nearest_x2_cl", (8, 64, 64, 64), dict(mode="nearest", scale_factor=2), channels_last=True,
             cv2_interp="INTER_NEAREST"),
        # Positions of 10 floats: not whole 16-byte stores (streamed, they were 40x slower).
        Case("nearest_x2_c10_cl", (2, 10, 256, 256), dict(mode="nearest", scale_factor=2), channels_last=True),
        Case("bicubic_x2", (4, 32, 64, 64), dict(mode="bicubic", scale_factor=2, align_corners=False),
             cv2_interp="INTER_CUBIC"),
        Case("aa_bilinear_down", (1, 3, 1024, 1024), dict(mode="bilinear", size=(224, 224), antialias=True)),
        Case("aa_bicubic_down", (1, 3, 1024, 1024), dict(mode="bicubic", size=(224, 224), antialias=True)),
        Case("aa_bilinear_down_batch", (16, 3, 512, 512), dict(mode="bilinear", size=(224, 224), antialias=True)),
        Case("area_down4", (8, 64, 128, 128), dict(mode="area", size=(32, 32)), cv2_interp="INTER_AREA"),
        Case("area_adaptive_7", (32, 256, 14, 14), dict(mode="area", size=(7, 7)), cv2_interp="INTER_AREA"),
        Case("trilinear_x2", (2, 16, 32, 32, 32), dict(mode="trilinear", scale_factor=2, align_corners=False)),
        Case("trilinear_x2_cl", (2, 16, 32, 32, 32), dict(mode="trilinear", scale_factor=2, align_corners=False),
             channels_last=True),
        Case("nearest_3d_x2", (2, 16, 32, 32, 32), dict(mode="nearest", scale_factor=2)),
        Case("linear_audio", (8, 2, 44100), dict(mode="linear", size=(48000,), align_corners=False)),
        Case("linear_audio_down", (8, 2, 48000), dict(mode="linear", size=(16000,), align_corners=False)),
        Case("nearest_exact_down", (8, 32, 256, 256), dict(mode="nearest-exact", size=(85, 85)),
             cv2_interp="INTER_NEAREST_EXACT"),
        Case("bilinear_odd_ac", (4, 32, 33, 47), dict(mode="bilinear", size=(65, 93), align_corners=True)),
        Case("bicubic_odd_ac", (4, 32, 33, 47), dict(mode="bicubic", size=(65, 93), align_corners=True)),
        Case("bilinear_x2_bf16", (8, 64, 64, 64), dict(mode="bilinear", scale_factor=2, align_corners=False), dtype=bf),
        Case("bilinear_x2_bf16_cl", (8, 64, 64, 64), dict(mode="bilinear", scale_factor=2, align_corners=False),
             dtype=bf, channels_last=True),
        Case("bilinear_x2_fp16", (8, 64, 64, 64), dict(mode="bilinear", scale_factor=2, align_corners=False),
             dtype=torch.float16),
        Case("bilinear_x2_fp16_cl", (8, 64, 64, 64), dict(mode="bilinear", scale_factor=2, align_corners=False),
             dtype=torch.float16, channels_last=True),
        Case("bilinear_half_c64_cl", (4, 64, 56, 56), dict(mode="bilinear", size=(28, 28), align_corners=False),
             channels_last=True),
        Case("small_bilinear_x2", (1, 16, 16, 16), dict(mode="bilinear", scale_factor=2, align_corners=False)),
        # uint8 (forward only): torchvision's preprocessing sizes, one RGB image.
        Case("uint8_aa_bilinear_1080p", (1, 3, 1080, 1920), dict(mode="bilinear", size=(224, 398), antialias=True),
             dtype=u8),
        Case("uint8_aa_bilinear_1080p_cl", (1, 3, 1080, 1920), dict(mode="bilinear", size=(224, 398), antialias=True),
             dtype=u8, channels_last=True),
        Case("uint8_aa_bilinear_480p", (1, 3, 480, 640), dict(mode="bilinear", size=(224, 298), antialias=True),
             dtype=u8),
        Case("uint8_aa_bilinear_480p_cl", (1, 3, 480, 640), dict(mode="bilinear", size=(224, 298), antialias=True),
             dtype=u8, channels_last=True),
        Case("uint8_aa_bicubic_375p", (1, 3, 375, 500), dict(mode="bicubic", size=(256, 341), antialias=True),
             dtype=u8),
        Case("uint8_aa_bicubic_375p_cl", (1, 3, 375, 500), dict(mode="bicubic", size=(256, 341), antialias=True),
             dtype=u8, channels_last=True),
        Case("uint8_bilinear_480p_cl", (1, 3, 480, 640), dict(mode="bilinear", size=(224, 298), antialias=False),
             dtype=u8, channels_last=True),
        Case("uint8_nearest_x2", (1, 3, 480, 640), dict(mode="nearest", scale_factor=2), dtype=u8),
        Case("uint8_nearest_x2_cl", (1, 3, 480, 640), dict(mode="nearest", scale_factor=2), dtype=u8,
             channels_last=True),
        Case("uint8_nearest_exact_1d", (8, 2, 44100), dict(mode="nearest-exact", size=(48000,)), dtype=u8),
        Case("uint8_aa_bilinear_1080p_hwc", (1, 3, 1080, 1920), dict(mode="bilinear", size=(224, 398), antialias=True),
             dtype=u8, hwc=True),
        Case("uint8_nearest_half_hwc", (1, 3, 480, 640), dict(mode="nearest", size=(240, 320)), dtype=u8, hwc=True),
    ] + cv2_suite()


def cv2_suite() -> List[Case]:
    """Images as a cv2.resize user has them: 1, 3, 4 and 16 channels, planes (NCHW) and
    interleaved pixels (channels_last), up- and downscales, in every mode whose maths cv2 shares
    (sizes where cv2's nearest-exact, which rounds in fixed point, picks torch's pixels)."""
    def c(name, shape, cl, **kw):
        interp = {"bilinear": "INTER_LINEAR", "bicubic": "INTER_CUBIC", "nearest": "INTER_NEAREST",
                  "nearest-exact": "INTER_NEAREST_EXACT", "area": "INTER_AREA"}[kw["mode"]]
        if kw["mode"] in ("bilinear", "bicubic"):
            kw.setdefault("align_corners", False)
        return Case("cv2_" + name + ("_cl" if cl else ""), shape, kw, channels_last=cl, cv2_interp=interp)
    return [
        c("bilinear_x2_c1", (4, 1, 512, 512), False, mode="bilinear", scale_factor=2),
        c("bilinear_x2_c3", (1, 3, 1024, 1024), False, mode="bilinear", scale_factor=2),
        c("bicubic_x2_c3", (1, 3, 512, 512), False, mode="bicubic", scale_factor=2),
        c("bilinear_down_c3", (1, 3, 1000, 1000), False, mode="bilinear", size=(400, 400)),
        c("area_down4_c3", (1, 3, 1024, 1024), False, mode="area", size=(256, 256)),
        c("nearest_exact_down_c1", (4, 1, 1000, 1000), False, mode="nearest-exact", size=(400, 400)),
        c("bilinear_x2_c3", (2, 3, 512, 512), True, mode="bilinear", scale_factor=2),
        c("bicubic_x2_c3", (1, 3, 512, 512), True, mode="bicubic", scale_factor=2),
        c("bilinear_down_c3", (1, 3, 1000, 1000), True, mode="bilinear", size=(400, 400)),
        c("nearest_exact_down_c3", (2, 3, 1000, 1000), True, mode="nearest-exact", size=(400, 400)),
        c("bilinear_x2_c4", (2, 4, 512, 512), True, mode="bilinear", scale_factor=2),
        c("bicubic_down_c4", (2, 4, 512, 512), True, mode="bicubic", size=(256, 256)),
        c("nearest_x2_c4", (2, 4, 512, 512), True, mode="nearest", scale_factor=2),
        c("bilinear_x2_c16", (2, 16, 256, 256), True, mode="bilinear", scale_factor=2),
        c("area_down4_c16", (2, 16, 512, 512), True, mode="area", size=(128, 128)),
        # One image that the caches keep: cv2's own halving (its INTER_AREA fast path, which its
        # INTER_LINEAR takes at exactly half) and downscales to a network's input size.
        c("bilinear_half_c1", (1, 1, 512, 512), False, mode="bilinear", size=(256, 256)),
        c("area_half_c4", (1, 4, 512, 512), True, mode="area", size=(256, 256)),
        c("bilinear_224_c3", (1, 3, 600, 800), True, mode="bilinear", size=(224, 224)),
        c("bicubic_224_c1", (1, 1, 600, 800), False, mode="bicubic", size=(224, 224)),
    ]


def cv2_grid() -> List[Case]:
    """The wider check against cv2.resize (--cv2-grid): one image (batch 1) in every layout a
    cv2 user has (1 and 3 channel planes; 3, 4 and 16 channels interleaved), every mode cv2
    shares, up- and downscales (by two and more, and slight ones between 224² and 256²), the
    image in the caches and read from memory."""
    sizes = {"up": ((512, 512), (1024, 1024)), "half": ((512, 512), (256, 256)),
             "224": ((600, 800), (224, 224)), "down": ((1000, 1000), (400, 400)),
             "up_slight": ((224, 224), (256, 256)), "down_slight": ((256, 256), (224, 224))}
    area_sizes = {"half": ((512, 512), (256, 256)), "down4": ((1000, 1000), (250, 250))}
    layouts = [(1, False), (3, False), (3, True), (4, True), (16, True)]
    interps = {"bilinear": "INTER_LINEAR", "bicubic": "INTER_CUBIC", "nearest": "INTER_NEAREST",
               "nearest-exact": "INTER_NEAREST_EXACT", "area": "INTER_AREA"}
    cases = []
    for mode, interp in interps.items():
        for tag, (hw, out) in (area_sizes if mode == "area" else sizes).items():
            for c, cl in layouts:
                kw = dict(mode=mode, size=out)
                if mode in ("bilinear", "bicubic"):
                    kw["align_corners"] = False
                name = f"grid_{mode.replace('-', '_')}_{tag}_c{c}" + ("_cl" if cl else "")
                cases.append(Case(name, (1, c) + hw, kw, channels_last=cl, cv2_interp=interp))
    return cases


def bench_cv2_case(case: Case, repeats: int, min_time: float) -> Optional[dict]:
    """resize_ad against cv2.resize, forward, on one case of cv2_grid(); None where this cv2 has
    no such call."""
    r = _cv2_vs_ours(case, case.make("cpu"), repeats, min_time)
    if r is None:
        return None
    return dict(case=case.name, desc=case.describe(), speedup=r["cv2_ms"] / r["cv2_ours_ms"], **r)


def cv2_grid_markdown(rows: List[dict], meta: dict) -> str:
    # A different operation, listed but not compared: cv2's nearest picks other source pixels on
    # some downscales (it steps in fixed point), and on some scales (600 x 800 -> 224) its linear
    # and cubic coefficients differ from torch's by a few 1e-4.
    same = [r for r in rows if r["cv2_max_abs_diff"] <= 1e-3]
    out = [f"### cv2.resize grid: {meta['threads']} threads, copy bandwidth "
           f"{meta['copy_bandwidth_GBps']['cpu']:.1f} GB/s, cv2 {meta['cv2']}\n",
           "| case | what | cv2 ms | ours ms | ours/cv2 speed-up | max abs diff |", "|---|---|---:|---:|---:|---:|"]
    for r in rows:
        sp = f"{r['speedup']:.2f}x" if r in same else "not compared"
        out.append(f"| {r['case']} | {r['desc']} | {r['cv2_ms']:.3f} | {r['cv2_ours_ms']:.3f} | {sp} | "
                   f"{r['cv2_max_abs_diff']:.1e} |")
    below = sorted((r for r in same if r["speedup"] < 1.0), key=lambda r: r["speedup"])
    worst = min(same, key=lambda r: r["speedup"])
    out.append(f"\n{len(same)} of {len(rows)} cases compute what cv2 computes: geomean speed-up over cv2 "
               f"**{geomean([r['speedup'] for r in same]):.2f}x**, worst {worst['speedup']:.2f}x ({worst['case']}); "
               f"below 1.0x: " + (", ".join(f"{r['case']} {r['speedup']:.2f}x" for r in below) or "none") + "\n")
    return "\n".join(out)


# ---------------------------------------------------------------- timing


class Timer:
    """Mean seconds per call of a batch of `n` calls; CUDA via events."""

    def __init__(self, device):
        self.device = device

    def __call__(self, fn: Callable[[], object], n: int) -> float:
        if self.device == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda.synchronize()
            start.record()
            for _ in range(n):
                fn()
            end.record()
            end.synchronize()
            return start.elapsed_time(end) / 1e3 / n
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        return (time.perf_counter() - t0) / n


def compare(fns: Dict[str, Callable[[], object]], device, repeats, min_time, settle: bool = False) -> Dict[str, float]:
    """Median seconds per call of each fn, interleaved (alternating order) over repeats. settle:
    each sample comes after as many untimed calls of its fn as half its batch (at least ten), so
    that each fn is timed with the allocator's state its own calls leave (cv2's numpy arrays
    and resize_ad's torch tensors: after the other's calls, the first few calls of a 4 MiB
    result found their pages unmapped, 513 page faults a call)."""
    timer = Timer(device)
    for fn in fns.values():  # warm-up (first call allocates, builds caches, ...)
        fn()
        fn()
    # calibrate a batch size per fn so one sample lasts about min_time
    batch = {}
    for k, fn in fns.items():
        t = timer(fn, 1)
        batch[k] = max(1, min(10000, int(min_time / max(t, 1e-7))))
    samples = {k: [] for k in fns}
    names = list(fns)
    for r in range(repeats):
        for k in (names if r % 2 == 0 else names[::-1]):
            if settle:
                for _ in range(max(10, batch[k] // 2)):
                    fns[k]()
            samples[k].append(timer(fns[k], batch[k]))
    return {k: statistics.median(v) for k, v in samples.items()}


def copy_bandwidth(device, repeats) -> float:
    """Bytes per second of a large tensor copy (read + write counted)."""
    n = (256 << 20) // 4  # 256 MiB of float32
    src = torch.randn(n, device=device)
    dst = torch.empty_like(src)
    t = compare({"copy": lambda: dst.copy_(src)}, device, max(3, repeats), 0.05)["copy"]
    del src, dst
    return 2 * n * 4 / t


def _nbytes(t: torch.Tensor) -> int:
    return t.numel() * t.element_size()


def _write_fn(likes: List[torch.Tensor], device):
    """Allocate tensors of the shapes, strides and dtypes of `likes` and fill each once."""
    metas = [(tuple(t.shape), t.stride(), t.dtype) for t in likes]

    def run():
        return [torch.empty_strided(sh, st, dtype=dt, device=device).fill_(0) for sh, st, dt in metas]
    return run


# ---------------------------------------------------------------- one case


# glibc tunables: blocks below the mmap threshold come from the heap and are reused; the trim
# threshold and top pad keep freed heap memory mapped (no fresh page faults on the next call).
REUSE_ENV = {"MALLOC_MMAP_THRESHOLD_": "536870912", "MALLOC_TRIM_THRESHOLD_": "1073741824",
             "MALLOC_TOP_PAD_": "134217728"}


def allocator_policy() -> str:
    parts = []
    if os.environ.get("THP_MEM_ALLOC_ENABLE") == "1":
        parts.append("THP_MEM_ALLOC_ENABLE=1")
    if all(os.environ.get(k) == v for k, v in REUSE_ENV.items()):
        parts.append("glibc heap reuse (--reuse)")
    return ", ".join(parts) or "default"


def _cv2_fn(case: Case, x: torch.Tensor, out_hw):
    """cv2.resize over the images of x (per plane for NCHW, per image HWC for channels_last),
    into views of one numpy array allocated per call (the batch result a user needs; without
    it cv2's small per-image outputs come warm from malloc's free lists while resize_ad's one
    large output is mapped fresh, and the column would compare allocation policies). numpy's,
    as a cv2 user allocates it: into a torch.empty array each call, cv2 measured up to 2x slower
    on single images (a 512² plane halved: 38 against 19 us, 1 thread), with no more page
    faults, which flattered resize_ad."""
    interp = getattr(cv2, case.cv2_interp, None)
    if interp is None:
        return None
    dsize = (out_hw[1], out_hw[0])  # cv2 wants (width, height)
    n, c = x.shape[0], x.shape[1]
    if case.channels_last:
        imgs = [a for a in x.permute(0, 2, 3, 1).numpy()]  # N views (H, W, C), contiguous
        if c > 512:
            return None
        out_shape = (n, out_hw[0], out_hw[1], c)
    else:
        imgs = [p for p in x.reshape(-1, *x.shape[2:]).numpy()]  # N*C planes (H, W)
        out_shape = (n * c, out_hw[0], out_hw[1])
    if case.kwargs.get("scale_factor") and "size" not in case.kwargs:
        fx = fy = float(case.kwargs["scale_factor"])
    else:
        fx = fy = 0

    import numpy as np
    np_dtype = torch.empty(0, dtype=x.dtype).numpy().dtype

    def run():
        out = np.empty(out_shape, dtype=np_dtype)
        for i, im in enumerate(imgs):
            cv2.resize(im, dsize, dst=out[i], fx=fx, fy=fy, interpolation=interp)
        return out
    return run


def _deterministic_fb(f, xg, kw, g):
    """fwd+bwd under torch.use_deterministic_algorithms(True): native's CUDA backward raises
    there (or falls back to a deterministic path); ours runs the same gather kernels."""
    def run():
        prev = torch.are_deterministic_algorithms_enabled()
        torch.use_deterministic_algorithms(True)
        try:
            return torch.autograd.grad(f(xg, **kw), xg, g)
        finally:
            torch.use_deterministic_algorithms(prev)
    return run


def bench_case(case: Case, device: str, repeats: int, min_time: float, bw: float,
               deterministic: bool = False) -> dict:
    kw = case.kwargs
    x = case.make(device)
    y_ref = F.interpolate(x, **kw)
    y_ours = resize_ad.interpolate(x, **kw)
    err = (y_ours.float() - y_ref.float()).abs().max().item()
    row = dict(case=case.name, desc=case.describe(), device=device, dtype=str(case.dtype).replace("torch.", ""),
               in_shape=list(x.shape), out_shape=list(y_ref.shape), max_abs_diff=err)
    io_fwd = _nbytes(x) + _nbytes(y_ref)
    write_fwd = _write_fn([y_ref], device)
    write_fb = _write_fn([y_ref, x], device)  # the output and grad_input
    del y_ref, y_ours

    fwd = compare({"native": lambda: F.interpolate(x, **kw), "ours": lambda: resize_ad.interpolate(x, **kw),
                   "write": write_fwd}, device, repeats, min_time)

    row.update(
        fwd_native_ms=fwd["native"] * 1e3, fwd_ours_ms=fwd["ours"] * 1e3,
        fwd_speedup=fwd["native"] / fwd["ours"],
        fwd_floor_ours=io_fwd / bw / fwd["ours"], fwd_floor_native=io_fwd / bw / fwd["native"],
        fwd_write_ms=fwd["write"] * 1e3, fwd_write_floor_ours=fwd["write"] / fwd["ours"],
        fb_native_ms=None, fb_ours_ms=None, fb_speedup=None, fb_floor_ours=None, fb_floor_native=None,
        fb_write_ms=None, fb_write_floor_ours=None,
        cv2_ms=None,
    )
    if case.dtype.is_floating_point:  # integer tensors have no gradient
        xg = case.make(device, requires_grad=True)
        g = torch.randn_like(F.interpolate(xg.detach(), **kw))

        def fb(f):
            return lambda: torch.autograd.grad(f(xg, **kw), xg, g)

        fwdbwd = compare({"native": fb(F.interpolate), "ours": fb(resize_ad.interpolate), "write": write_fb},
                         device, repeats, min_time)
        io_fb = 2 * io_fwd
        row.update(
            fb_native_ms=fwdbwd["native"] * 1e3, fb_ours_ms=fwdbwd["ours"] * 1e3,
            fb_speedup=fwdbwd["native"] / fwdbwd["ours"],
            fb_floor_ours=io_fb / bw / fwdbwd["ours"], fb_floor_native=io_fb / bw / fwdbwd["native"],
            fb_write_ms=fwdbwd["write"] * 1e3, fb_write_floor_ours=fwdbwd["write"] / fwdbwd["ours"],
        )
        if deterministic:
            fns = {}
            for name, f in (("native", F.interpolate), ("ours", resize_ad.interpolate)):
                try:
                    _deterministic_fb(f, xg, kw, g)()
                    fns[name] = _deterministic_fb(f, xg, kw, g)
                except RuntimeError as e:  # native: "... does not have a deterministic implementation"
                    row[f"fb_det_{name}_error"] = str(e).splitlines()[0][:160]
            if fns:
                t = compare(fns, device, repeats, min_time)
                row.update({f"fb_det_{k}_ms": v * 1e3 for k, v in t.items()})
    if cv2 is not None and device == "cpu" and case.cv2_interp and case.dtype == torch.float32 and x.dim() == 4:
        row.update(_cv2_vs_ours(case, x.detach(), repeats, min_time) or {})
    return row


def _cv2_vs_ours(case: Case, x: torch.Tensor, repeats: int, min_time: float) -> Optional[dict]:
    """cv2.resize's batch against resize_ad's forward on x (CPU, float32): the largest difference
    of the results, in ours' logical layout, and both times; None where cv2 has no such call."""
    kw = case.kwargs
    y = resize_ad.interpolate(x, **kw)
    run = _cv2_fn(case, x, list(y.shape[2:]))
    if run is None:
        return None
    ref = torch.from_numpy(run())
    ref = ref.permute(0, 3, 1, 2) if case.channels_last else ref.reshape(y.shape)
    t = compare({"cv2": run, "ours": lambda: resize_ad.interpolate(x, **kw)}, "cpu", repeats, min_time, settle=True)
    return dict(cv2_max_abs_diff=float((ref - y).abs().max()), cv2_ms=t["cv2"] * 1e3, cv2_ours_ms=t["ours"] * 1e3)


# ---------------------------------------------------------------- report


def geomean(v):
    v = [a for a in v if a and a > 0]
    return math.exp(sum(math.log(a) for a in v) / len(v)) if v else float("nan")


def markdown(rows: List[dict], meta: dict) -> str:
    out = []
    for device in dict.fromkeys(r["device"] for r in rows):
        rs = [r for r in rows if r["device"] == device]
        bw = meta["copy_bandwidth_GBps"][device]
        out.append(f"### {device}: {meta['device_name'][device]}, {meta['threads']} threads, "
                   f"copy bandwidth {bw:.1f} GB/s, CPU allocator {meta['allocator']}\n")
        has_cv2 = any(r.get("cv2_ms") for r in rs)
        hdr = ["case", "what", "dtype", "fwd native ms", "fwd ours ms", "fwd speed-up", "fwd floor %",
               "fwd write floor %", "f+b native ms", "f+b ours ms", "f+b speed-up", "f+b floor %",
               "f+b write floor %"]
        if has_cv2:
            hdr += ["cv2 ms", "ours/cv2 speed-up"]
        has_det = any(k.startswith("fb_det_") for r in rs for k in r)
        if has_det:
            hdr += ["f+b deterministic native ms", "f+b deterministic ours ms"]
        out.append("| " + " | ".join(hdr) + " |")
        out.append("|" + "|".join("---" if i < 3 else "---:" for i in range(len(hdr))) + "|")
        for r in rs:
            cells = [r["case"], r["desc"], r["dtype"],
                     f"{r['fwd_native_ms']:.3f}", f"{r['fwd_ours_ms']:.3f}", f"{r['fwd_speedup']:.2f}x",
                     f"{100 * r['fwd_floor_ours']:.0f}", f"{100 * r['fwd_write_floor_ours']:.0f}"]
            if r["fb_speedup"] is None:  # forward only (uint8)
                cells += ["-", "-", "-", "-", "-"]
            else:
                cells += [f"{r['fb_native_ms']:.3f}", f"{r['fb_ours_ms']:.3f}", f"{r['fb_speedup']:.2f}x",
                          f"{100 * r['fb_floor_ours']:.0f}", f"{100 * r['fb_write_floor_ours']:.0f}"]
            if has_cv2:
                if r.get("cv2_ms"):
                    cells += [f"{r['cv2_ms']:.3f}", f"{r['cv2_ms'] / r['cv2_ours_ms']:.2f}x"]
                else:
                    cells += ["", ""]
            if has_det:
                for who in ("native", "ours"):
                    ms = r.get(f"fb_det_{who}_ms")
                    cells.append(f"{ms:.3f}" if ms is not None else ("raises" if f"fb_det_{who}_error" in r else ""))
            out.append("| " + " | ".join(cells) + " |")
        gf = geomean([r["fwd_speedup"] for r in rs])
        gb = geomean([r["fb_speedup"] for r in rs])
        f32 = [r for r in rs if r["dtype"] == "float32"]
        gf32 = geomean([r["fwd_speedup"] for r in f32])
        gb32 = geomean([r["fb_speedup"] for r in f32])
        wf = min(rs, key=lambda r: r["fwd_speedup"])
        with_fb = [r for r in rs if r["fb_speedup"] is not None]
        wb = min(with_fb, key=lambda r: r["fb_speedup"]) if with_fb else None
        u8 = [r for r in rs if r["dtype"] == "uint8"]
        out.append("")
        line = f"geomean speed-up over native, all {len(rs)} cases: forward **{gf:.2f}x**"
        if with_fb:
            line += (f", forward+backward **{gb:.2f}x** ({len(with_fb)} cases); the {len(f32)} float32 cases: "
                     f"forward **{gf32:.2f}x**, forward+backward **{gb32:.2f}x**")
        if u8:
            wu = min(u8, key=lambda r: r["fwd_speedup"])
            line += (f"; the {len(u8)} uint8 cases: forward **{geomean([r['fwd_speedup'] for r in u8]):.2f}x**, "
                     f"worst {wu['fwd_speedup']:.2f}x ({wu['case']})")
        line += f"; worst forward {wf['fwd_speedup']:.2f}x ({wf['case']})"
        if wb:
            line += f", worst forward+backward {wb['fb_speedup']:.2f}x ({wb['case']})"
        out.append(line + "\n")
        meta.setdefault("geomean", {})[device] = dict(fwd=gf, fwd_bwd=gb, fwd_float32=gf32, fwd_bwd_float32=gb32,
                                                      worst_fwd=wf["fwd_speedup"], worst_fwd_case=wf["case"],
                                                      worst_fwd_bwd=wb["fb_speedup"] if wb else None,
                                                      worst_fwd_bwd_case=wb["case"] if wb else None)
    return "\n".join(out)


def plot(rows: List[dict], path: str) -> None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("bench_interpolate: --plot needs matplotlib (pip install matplotlib, or "
                 "pip install 'resize_ad[bench]'); the benchmark itself ran, rerun with it installed")
    devices = list(dict.fromkeys(r["device"] for r in rows))
    fig, axes = plt.subplots(len(devices), 1, figsize=(max(8, 0.6 * len(rows) / len(devices) + 3), 4.5 * len(devices)),
                             squeeze=False)
    for ax, device in zip(axes[:, 0], devices):
        rs = [r for r in rows if r["device"] == device]
        xs = range(len(rs))
        ax.bar([i - 0.2 for i in xs], [r["fwd_speedup"] for r in rs], width=0.4, label="forward")
        ax.bar([i + 0.2 for i in xs], [r["fb_speedup"] or 0 for r in rs], width=0.4, label="forward+backward")
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_yscale("log")
        ax.set_xticks(list(xs))
        ax.set_xticklabels([r["case"] for r in rs], rotation=60, ha="right", fontsize=8)
        ax.set_ylabel("speed-up over F.interpolate")
        ax.set_title(f"resize_ad vs F.interpolate ({device})")
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


# ---------------------------------------------------------------- main


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--device", default="auto", help="cpu, cuda, or auto (cpu, plus cuda when available)")
    p.add_argument("--cases", default="", help="comma-separated substrings or regexes of case names")
    p.add_argument("--quick", action="store_true", help="short run: fewer repeats, shorter samples")
    p.add_argument("--repeats", type=int, default=None, help="samples per timing (default 15, quick 5)")
    p.add_argument("--min-time", type=float, default=None, help="seconds per sample (default 0.05, quick 0.01)")
    p.add_argument("--threads", type=int, default=None, help="torch.set_num_threads (default: torch's)")
    p.add_argument("--json", metavar="FILE", help="write the numbers as JSON")
    p.add_argument("--deterministic", action="store_true",
                   help="also time fwd+bwd under torch.use_deterministic_algorithms(True)")
    p.add_argument("--plot", metavar="FILE.png", help="draw the speed-ups (needs matplotlib)")
    p.add_argument("--list", action="store_true", help="list the cases and exit")
    p.add_argument("--cv2-grid", action="store_true",
                   help="instead of the suite: resize_ad against cv2.resize alone (forward, batch 1) on a grid "
                        "of modes, sizes and channel layouts")
    p.add_argument("--thp", action="store_true",
                   help="run with THP_MEM_ALLOC_ENABLE=1: torch's CPU allocator backs large tensors "
                        "with transparent huge pages, for native and resize_ad alike")
    p.add_argument("--reuse", action="store_true",
                   help="run with glibc's malloc keeping blocks up to 512 MiB in its heap "
                        f"({' '.join(f'{k}={v}' for k, v in REUSE_ENV.items())}): large outputs "
                        "are then reused warm instead of mapped fresh each call, for native, "
                        "resize_ad and cv2 alike")
    a = p.parse_args(argv)
    env = {}
    if a.thp:
        env["THP_MEM_ALLOC_ENABLE"] = "1"
    if a.reuse:
        env.update(REUSE_ENV)
    if any(os.environ.get(k) != v for k, v in env.items()):
        # torch and glibc read these when their allocators start: run again with them set.
        os.environ.update(env)
        os.execv(sys.executable, [sys.executable, os.path.abspath(__file__)] + list(argv or sys.argv[1:]))

    if a.plot:  # fail before the run, not after it
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            p.error("--plot needs matplotlib (pip install matplotlib); it is not installed")
    if a.threads:
        torch.set_num_threads(a.threads)
    if cv2 is not None:  # cv2's own pool, as many threads as torch's
        cv2.setNumThreads(torch.get_num_threads())
    repeats = a.repeats or (5 if a.quick else 15)
    min_time = a.min_time if a.min_time is not None else (0.01 if a.quick else 0.05)

    cases = cv2_grid() if a.cv2_grid else suite()
    if a.cv2_grid and cv2 is None:
        p.error("--cv2-grid needs OpenCV (pip install opencv-python-headless)")
    if a.cases:
        pats = [s.strip() for s in a.cases.split(",") if s.strip()]
        cases = [c for c in cases if any(re.search(pt, c.name) for pt in pats)]
    if a.list or not cases:
        for c in cases:
            print(f"{c.name:26s} {c.describe()}")
        return 0 if cases else 1

    if a.device == "auto":
        devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    else:
        devices = [d.strip() for d in a.device.split(",")]
    for d in devices:
        if d == "cuda" and not torch.cuda.is_available():
            p.error("--device cuda: CUDA is not available")
        if d == "cuda" and not resize_ad.has_cuda_kernels():
            p.error("--device cuda: this resize_ad build has no CUDA kernels")

    meta = dict(torch=torch.__version__, resize_ad_file=resize_ad.__file__, python=platform.python_version(),
                machine=platform.machine(), threads=torch.get_num_threads(),
                cpu_capability=torch.backends.cpu.get_cpu_capability(),
                cv2=getattr(cv2, "__version__", None),
                cv2_threads=cv2.getNumThreads() if cv2 is not None else None, repeats=repeats, min_time=min_time,
                allocator=allocator_policy(),
                command=" ".join([os.path.basename(sys.executable)] + sys.argv),
                copy_bandwidth_GBps={}, device_name={})
    if a.cv2_grid:
        return run_cv2_grid(cases, meta, repeats, min_time, a.json)
    rows = []
    for device in devices:
        meta["device_name"][device] = (torch.cuda.get_device_name() if device == "cuda"
                                       else (platform.processor() or platform.machine()))
        bw = copy_bandwidth(device, repeats)
        meta["copy_bandwidth_GBps"][device] = bw / 1e9
        print(f"[{device}] copy bandwidth {bw / 1e9:.1f} GB/s", file=sys.stderr, flush=True)
        for i, c in enumerate(cases):
            t0 = time.perf_counter()
            r = bench_case(c, device, repeats, min_time, bw, a.deterministic)
            rows.append(r)
            fb = (f"f+b {r['fb_native_ms']:8.3f} -> {r['fb_ours_ms']:8.3f} ms ({r['fb_speedup']:5.2f}x)"
                  if r["fb_speedup"] is not None else "f+b -")
            print(f"[{device} {i + 1}/{len(cases)}] {c.name:24s} fwd {r['fwd_native_ms']:8.3f} -> "
                  f"{r['fwd_ours_ms']:8.3f} ms ({r['fwd_speedup']:5.2f}x)  {fb}  maxdiff {r['max_abs_diff']:.1e}  "
                  f"[{time.perf_counter() - t0:.1f}s]", file=sys.stderr, flush=True)
    print(markdown(rows, meta))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(meta=meta, rows=rows), f, indent=1)
    if a.plot:
        plot(rows, a.plot)
    return 0


def run_cv2_grid(cases: List[Case], meta: dict, repeats: int, min_time: float, json_path: Optional[str]) -> int:
    meta["copy_bandwidth_GBps"]["cpu"] = copy_bandwidth("cpu", repeats) / 1e9
    print(f"[cpu] copy bandwidth {meta['copy_bandwidth_GBps']['cpu']:.1f} GB/s", file=sys.stderr, flush=True)
    rows = []
    for i, c in enumerate(cases):
        r = bench_cv2_case(c, repeats, min_time)
        if r is None:
            print(f"[cv2 grid {i + 1}/{len(cases)}] {c.name:30s} skipped: this cv2 has no {c.cv2_interp}",
                  file=sys.stderr, flush=True)
            continue
        rows.append(r)
        print(f"[cv2 grid {i + 1}/{len(cases)}] {c.name:30s} cv2 {r['cv2_ms']:8.3f} ms, ours {r['cv2_ours_ms']:8.3f} ms "
              f"({r['speedup']:5.2f}x)  maxdiff {r['cv2_max_abs_diff']:.1e}", file=sys.stderr, flush=True)
    print(cv2_grid_markdown(rows, meta))
    if json_path:
        with open(json_path, "w") as f:
            json.dump(dict(meta=meta, rows=rows), f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
