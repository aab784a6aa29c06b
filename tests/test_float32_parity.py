"""float32 parity with native at realistic sizes and on torch's OpInfo samples, under every CPU
capability this machine has (see float32_cases.py for the cases and the tolerance)."""
import os
import subprocess
import sys

import pytest

import float32_cases
from cpu_capabilities import CPU_CAPABILITIES as CAPABILITIES

_HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.mark.parametrize("ins,kw", float32_cases.realistic_cases(4, seed=1),
                         ids=lambda v: str(v) if isinstance(v, tuple) else None)
def test_realistic_float32(ins, kw):
    err, ok = float32_cases.check_case(ins, kw)
    assert ok, f"max |resize_ad - native| = {err:.3g}"


@pytest.mark.parametrize("capability", CAPABILITIES)
def test_float32_parity_under_capability(capability):
    """The realistic cases and the OpInfo samples in a process whose native kernels are the
    capability's (with or without FMA contraction), and the uint8 cases bit for bit."""
    env = dict(os.environ, ATEN_CPU_CAPABILITY=capability.lower())
    root = os.path.dirname(_HERE)
    env["PYTHONPATH"] = os.pathsep.join([root, _HERE, env.get("PYTHONPATH", "")])
    r = subprocess.run([sys.executable, os.path.join(_HERE, "float32_cases.py")], env=env, cwd=root,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"{capability}: opinfo" in r.stdout and f"{capability}: uint8" in r.stdout, r.stdout
