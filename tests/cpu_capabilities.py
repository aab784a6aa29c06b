"""The CPU capabilities of torch's kernels that this machine can run (ATEN_CPU_CAPABILITY values,
as torch.backends.cpu.get_cpu_capability() names them). torch falls back to a lower capability
when the CPU lacks one, so only those the CPU supports are listed."""
import platform


def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def _cpu_capabilities():
    if platform.machine() not in ("x86_64", "AMD64"):
        return ["DEFAULT"]
    flags = _cpu_flags()
    caps = ["DEFAULT"]
    if {"avx2", "fma"} <= flags:
        caps.append("AVX2")
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags:
        caps.append("AVX512")
    return caps


CPU_CAPABILITIES = _cpu_capabilities()
