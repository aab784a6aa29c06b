"""Results computed in an input's channels_last order and dealt into the contiguous output
native allocates (an HWC image viewed as CHW; area of a channels_last_3d volume): every dtype's
element size, 2 to 9 channels (the vector kernel takes up to eight, more go through
Tensor::copy_), pixel counts that end in a partial vector. Nearest picks elements, so the
result must equal native's bit for bit."""
import pytest
import torch
import torch.nn.functional as F

import resize_ad

DTYPES = [torch.uint8, torch.float16, torch.bfloat16, torch.float32, torch.float64]


def _pattern(shape, dtype):
    # Distinct values (modulo the dtype's exact integers) so a swapped lane shows.
    n = torch.arange(torch.Size(shape).numel(), dtype=torch.int64).reshape(shape)
    if dtype == torch.uint8:
        return ((n * 7 + 3) % 251).to(dtype)
    if dtype in (torch.float16, torch.bfloat16):
        return ((n * 7 + 3) % 251 - 125).to(dtype)
    return (n * 7 + 3 - n.numel()).to(dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("channels", range(2, 10))
@pytest.mark.parametrize("size,out", [((9, 13), (5, 7)), ((32, 64), (16, 32)), ((17, 50), (11, 29))])
def test_hwc_nearest(dtype, channels, size, out):
    x = _pattern(size + (channels,), dtype).movedim(-1, 0)[None]
    assert x.is_contiguous(memory_format=torch.channels_last) and not x.is_contiguous()
    y = resize_ad.interpolate(x, size=out, mode="nearest")
    ref = F.interpolate(x, size=out, mode="nearest")
    assert y.is_contiguous() and ref.is_contiguous()
    assert torch.equal(y, ref)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("channels", [2, 3, 5, 8, 9])
def test_area_channels_last_3d(dtype, channels):
    x = _pattern((2, 6, 10, 14, channels), dtype).movedim(-1, 1)
    assert x.is_contiguous(memory_format=torch.channels_last_3d)
    y = resize_ad.interpolate(x, size=(3, 5, 7), mode="area")
    assert y.is_contiguous()
    # Every output the mean of a 2 x 2 x 2 block of integers, exact in any order: the same as
    # the sums taken on the contiguous copy of the input, which needs no dealing.
    assert torch.equal(y, resize_ad.interpolate(x.contiguous(), size=(3, 5, 7), mode="area"))
