"""Build of resize_ad: C++ (CPU) kernels always, CUDA kernels when a toolkit is usable.

CUDA is built when torch has CUDA and a toolkit is found (CUDA_HOME / nvcc), or when
FORCE_CUDA=1; RESIZE_AD_CPU_ONLY=1 skips it. A GPU on the build host is not needed.
"""
import glob
import os

import torch
from setuptools import setup
from torch.utils import cpp_extension
from torch.utils.cpp_extension import BuildExtension, CppExtension, CUDAExtension

ROOT = os.path.dirname(os.path.abspath(__file__))
CSRC = os.path.join(ROOT, "csrc")


def _want_cuda():
    if os.environ.get("RESIZE_AD_CPU_ONLY", "0") == "1":
        return False
    if os.environ.get("FORCE_CUDA", "0") == "1":
        return True
    return torch.version.cuda is not None and cpp_extension.CUDA_HOME is not None


def _sources(pattern):
    # setuptools wants paths relative to setup.py; BuildExtension makes them absolute for ninja.
    return sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(CSRC, pattern)))


def _extension():
    sources = _sources("*.cpp") + _sources("common/*.cpp") + _sources("cpu/*.cpp")
    # -fopenmp as torch is built: at::parallel_for's OpenMP backend is inline in torch's headers,
    # so without it the kernels' parallel loops would run serially.
    cxx = ["-O3", "-fvisibility=hidden", "-fopenmp"]
    extra_link = ["-fopenmp"]
    if os.environ.get("RESIZE_AD_SANITIZE", "0") == "1":
        # -fno-wrapv: Python's CFLAGS carry -fwrapv, which defines signed overflow and so turns
        # off UBSan's signed-integer-overflow check.
        cxx = ["-O1", "-g", "-fopenmp", "-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-fno-wrapv"]
        extra_link = ["-fopenmp", "-fsanitize=address,undefined"]
    if _want_cuda():
        sources += _sources("cuda/*.cu")
        nvcc = ["-O3", "--expt-relaxed-constexpr", "-lineinfo"]
        return CUDAExtension(
            "resize_ad._C",
            sources,
            include_dirs=[CSRC],
            extra_compile_args={"cxx": cxx, "nvcc": nvcc},
            extra_link_args=extra_link,
        )
    return CppExtension(
        "resize_ad._C",
        sources,
        include_dirs=[CSRC],
        extra_compile_args={"cxx": cxx},
        extra_link_args=extra_link,
    )


def _write_build_info(with_cuda):
    path = os.path.join(ROOT, "resize_ad", "_build_info.py")
    with open(path, "w") as f:
        f.write("# Written by setup.py at build time.\n")
        f.write(f"TORCH_VERSION = {torch.__version__!r}\n")
        f.write(f"CUDA_VERSION = {torch.version.cuda!r}\n")
        f.write(f"WITH_CUDA = {with_cuda!r}\n")


_write_build_info(_want_cuda())

setup(
    ext_modules=[_extension()],
    cmdclass={"build_ext": BuildExtension.with_options(use_ninja=True)},
)
