"""One resize timed in processes of its own, for comparing two builds or the executors: each
sample is a fresh process (one build's resize_ad on its path), the builds alternate, and the
medians and per-round ratios are printed.

    python3 benchmarks/compare_builds.py --shape 1,3,256,256 --size 224,224 --mode bicubic
    python3 benchmarks/compare_builds.py --base /tmp/old --rounds 5 --threads 2 \\
        --shape 8,64,64,64 --size 128,64 --mode bilinear
    python3 benchmarks/compare_builds.py --executors --shape 1,4,224,224 --channels-last \\
        --size 256,256 --mode bicubic
    python3 benchmarks/compare_builds.py --base /tmp/old --warmup 1.5 --shape 1,3,1024,1024 \\
        --size 224,224 --mode bicubic --antialias

--base names a directory holding another build's `resize_ad` package (a copy of a checkout's
resize_ad/ with its built extension): that build against this tree's. --executors instead
compares the cost model's choice with each executor forced (resize_ad._testing.executor).
"""
import argparse
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def sample(args) -> float:
    """The median of the samples of one call timed in this process, in microseconds."""
    import time

    import torch

    import resize_ad
    from resize_ad import _testing

    torch.set_num_threads(args.threads)
    x = torch.randn(*args.shape)
    if args.channels_last:
        x = x.contiguous(memory_format=torch.channels_last if x.dim() == 4 else torch.channels_last_3d)
    kw = dict(size=tuple(args.size), mode=args.mode)
    if args.mode in ("linear", "bilinear", "bicubic", "trilinear"):
        kw["align_corners"] = False
    if args.antialias:
        kw["antialias"] = True
    x.requires_grad_(args.backward)
    grad = []

    def call():
        y = resize_ad.interpolate(x, **kw)
        if args.backward:
            if not grad:
                grad.append(torch.randn_like(y))
            y.backward(grad[0])
            x.grad = None

    times = []
    with _testing.executor(args.executor):
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < args.warmup:
            call()
        for _ in range(args.samples):
            t0, n = time.perf_counter(), 0
            while time.perf_counter() - t0 < args.min_time:
                call()
                n += 1
            times.append((time.perf_counter() - t0) / n * 1e6)
    return statistics.median(times)


def child(path: str, args, executor: str) -> float:
    argv = [sys.executable, os.path.abspath(__file__), "--child", "--executor", executor,
            "--threads", str(args.threads), "--shape", ",".join(map(str, args.shape)),
            "--size", ",".join(map(str, args.size)), "--mode", args.mode,
            "--samples", str(args.samples), "--min-time", str(args.min_time), "--warmup", str(args.warmup)]
    argv += ["--channels-last"] if args.channels_last else []
    argv += ["--antialias"] if args.antialias else []
    argv += ["--backward"] if args.backward else []
    env = dict(os.environ, PYTHONPATH=path)
    out = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
    return float(out.stdout)


def ints(text: str):
    return [int(v) for v in text.split(",")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shape", type=ints, required=True, help="input shape, e.g. 1,3,256,256")
    ap.add_argument("--size", type=ints, required=True, help="output spatial size, e.g. 224,224")
    ap.add_argument("--mode", default="bilinear")
    ap.add_argument("--channels-last", action="store_true")
    ap.add_argument("--antialias", action="store_true")
    ap.add_argument("--backward", action="store_true", help="time forward and backward")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds (processes per build)")
    ap.add_argument("--samples", type=int, default=11)
    ap.add_argument("--min-time", type=float, default=0.03, help="seconds per sample")
    ap.add_argument("--warmup", type=float, default=0.0,
                    help="seconds of calls before the samples (a fresh process's first large results "
                         "fault their pages in, which can cost more than the resize)")
    ap.add_argument("--base", help="directory holding another build's resize_ad package")
    ap.add_argument("--executors", action="store_true", help="compare the executors instead of builds")
    ap.add_argument("--executor", default="auto", help=argparse.SUPPRESS)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print("%.3f" % sample(args))
        return
    if args.executors:
        runs = [(name, HERE, name) for name in ("auto", "separable", "line_sweep")]
    elif args.base:
        runs = [("base", os.path.abspath(args.base), "auto"), ("this", HERE, "auto")]
    else:
        runs = [("this", HERE, "auto")]
    times = {label: [] for label, _, _ in runs}
    for _ in range(args.rounds):
        for label, path, executor in runs:
            times[label].append(child(path, args, executor))
    first = runs[0][0]
    for label, _, _ in runs:
        line = "%-10s median %9.2f us  rounds %s" % (
            label, statistics.median(times[label]), " ".join("%.1f" % t for t in times[label]))
        if label != first:
            ratios = [a / b for a, b in zip(times[first], times[label])]
            line += "  %s/%s %.2fx [%.2fx-%.2fx]" % (first, label, statistics.median(ratios), min(ratios), max(ratios))
        print(line)


if __name__ == "__main__":
    main()
