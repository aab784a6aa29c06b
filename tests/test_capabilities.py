"""The capability table is the one source of the rules about modes: resize_ad.interpolate and
the op accept and refuse the same calls, with the same exception type and message, and the
Python view of the table matches what the op does."""
import itertools

import pytest
import torch

import resize_ad
from resize_ad.capabilities import FILTER_MODES, MODE_CAPS, MODES, NATIVE_MODES

DTYPES = [torch.float32, torch.float64, torch.bfloat16, torch.uint8, torch.int64]
# The op takes align_corners as a bool, so it cannot tell False from None: for the modes where
# only None is allowed, interpolate's refusal of an explicit False has no op-side twin.
CASES = [c for c in itertools.product(MODES, (1, 2, 3), DTYPES, (None, False, True), (False, True))
         if not (MODE_CAPS[c[0]].align_corners == "absent" and c[3] is False)]


def _input(rank, dtype):
    shape = (1, 2) + (6,) * rank
    if dtype == torch.uint8:
        return torch.randint(0, 256, shape, dtype=dtype)
    if dtype == torch.int64:
        return torch.randint(-5, 5, shape, dtype=dtype)
    return torch.randn(shape).to(dtype)


def _outcome(fn):
    try:
        fn()
        return None
    except Exception as e:  # noqa: BLE001 - the point is to compare what each raises
        return type(e), str(e).split("\n")[0]


@pytest.mark.parametrize("mode,rank,dtype,ac,aa", CASES, ids=lambda v: str(v))
def test_interpolate_and_op_agree(mode, rank, dtype, ac, aa):
    caps = MODE_CAPS[mode]
    x = _input(rank, dtype)
    size = [4] * rank
    ours = _outcome(lambda: resize_ad.interpolate(x, size=size, mode=mode, align_corners=ac, antialias=aa))
    op = _outcome(lambda: torch.ops.resize_ad.resize(x, size, mode, bool(ac), None, aa))
    assert ours == op
    # and the table's Python view says the same
    allowed = (rank in caps.ranks
               and (not aa or rank in caps.antialias_ranks)
               and not (ac and caps.align_corners != "grid")
               and (dtype.is_floating_point or (dtype == torch.uint8 and rank in caps.uint8_ranks)))
    assert (ours is None) == allowed, ours


def test_table_lists():
    assert set(NATIVE_MODES) == {"nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "area"}
    assert set(FILTER_MODES) == set(MODES) - set(NATIVE_MODES)
    assert resize_ad.MODES == MODES and resize_ad.FILTER_MODES == FILTER_MODES
    assert MODE_CAPS["lanczos3"].family == MODE_CAPS["lanczos"].family
    assert MODE_CAPS["bilinear"].family == MODE_CAPS["trilinear"].family == "linear"
    assert MODE_CAPS["area"].output_contiguous(3) and not MODE_CAPS["area"].output_contiguous(2)
    assert MODE_CAPS["lanczos5"].radius == 5.0 and MODE_CAPS["nearest"].radius == 0.0


@pytest.mark.parametrize("mode", MODES)
def test_fake_kernel_layout_follows_table(mode):
    """The fake kernel's output layout is the real kernel's (both read the table)."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    for rank, fmt in ((2, torch.channels_last), (3, torch.channels_last_3d)):
        if rank not in MODE_CAPS[mode].ranks:
            continue
        x = torch.randn((1, 5) + (6,) * rank).contiguous(memory_format=fmt)
        real = torch.ops.resize_ad.resize(x, [4] * rank, mode, False, None, False)
        with FakeTensorMode() as m:
            fake = torch.ops.resize_ad.resize(m.from_tensor(x), [4] * rank, mode, False, None, False)
        assert fake.stride() == real.stride()
