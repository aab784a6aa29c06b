"""Tensors past 2^31 elements on the CPU (64-bit indexing).

Opt-in: about 5 GB of memory (peak RSS 5.0 GB) and ~70 s on 2 cores. Run with

    RESIZE_AD_RUN_SLOW=1 python -m pytest tests/test_big.py -v

Outputs of 2^31 + 2^19 float16 elements (4.3 GB), from small inputs, checked against a direct
computation of native's index/weight formulas at the rows past the 2^31 boundary (native itself
is not run on them: that would double the memory and the time):

- nearest along H (the strided kernel: inner = W), so output offsets pass 2^31;
- nearest along W (the contiguous kernel: one row per output element), so the row counter does;
- bilinear along H, with float accumulation and one rounding to float16;
- the backward of the first, so that the *input* of a pass (the 4.3 GB gradient) is read at
  offsets past 2^31.

A 1-D axis this long is refused instead: its weight table alone would need ~100 GB
(test_errors.py checks the error). The tables are per axis, so 2-D and 3-D tensors, large
batches and many channels are not affected.
"""
import os

import numpy as np
import pytest
import torch

import resize_ad

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.environ.get("RESIZE_AD_RUN_SLOW") != "1",
                       reason="~5 GB, ~70 s: set RESIZE_AD_RUN_SLOW=1 to run"),
]

H_IN, W, H_OUT = 1024, 65536, 32776  # H_OUT * W = 2^31 + 2^19
BOUNDARY_ROW = 2**31 // W  # 32768: first row whose elements lie past 2^31
ROWS = [0, 1, H_OUT // 2, BOUNDARY_ROW - 1, BOUNDARY_ROW, BOUNDARY_ROW + 1, H_OUT - 2, H_OUT - 1]


def _nearest_index(out_idx, in_size, out_size):
    """ATen's 2-D nearest (UpSample.h nearest_idx): float scale, floor in float."""
    if out_size == in_size:
        return out_idx
    if out_size == 2 * in_size:
        return out_idx >> 1
    scale = np.float32(in_size) / np.float32(out_size)
    return min(int(np.floor(np.float32(out_idx) * scale)), in_size - 1)


def _linear_taps(o, in_size, out_size):
    """UpSample.h area_pixel_compute_source_index + guard_index_and_lambda, in float."""
    scale = np.float32(in_size) / np.float32(out_size)
    real = np.float32(scale * np.float32(o + 0.5)) - np.float32(0.5)
    real = max(real, np.float32(0))
    i0 = min(int(np.floor(real)), in_size - 1)
    l1 = min(max(np.float32(real - np.float32(i0)), np.float32(0)), np.float32(1))
    l0 = np.float32(1) - l1
    return i0, min(i0 + 1, in_size - 1), l0, l1


def _input(h, w):
    # small integers: exact in float16, so nearest must reproduce them bit for bit
    return (torch.arange(h * w, dtype=torch.int32) % 1021).to(torch.float16).reshape(1, 1, h, w)


def test_nearest_rows_past_2_31_and_backward():
    x = _input(H_IN, W).requires_grad_(True)
    y = resize_ad.interpolate(x, size=(H_OUT, W), mode="nearest")
    assert y.shape == (1, 1, H_OUT, W) and y.numel() > 2**31
    for h in ROWS:
        assert torch.equal(y[0, 0, h], x[0, 0, _nearest_index(h, H_IN, H_OUT)].detach()), h

    # backward with the output itself as gradient: grad_x[i] = count_i * x[i], rounded once
    (gx,) = torch.autograd.grad(y, x, y.detach())
    count = np.bincount([_nearest_index(h, H_IN, H_OUT) for h in range(H_OUT)], minlength=H_IN)
    del y
    for i in [0, 1, H_IN // 2, H_IN - 2, H_IN - 1]:
        expect = (x[0, 0, i].detach().float() * float(count[i])).to(torch.float16)
        assert torch.equal(gx[0, 0, i], expect), i


def test_nearest_contiguous_rows_past_2_31():
    x = _input(H_OUT, H_IN)  # (1, 1, 32776, 1024) -> (32776, 65536): W pass, inner == 1
    y = resize_ad.interpolate(x, size=(H_OUT, W), mode="nearest")
    assert y.numel() > 2**31
    cols = torch.tensor([_nearest_index(w, H_IN, W) for w in range(W)])
    for h in ROWS:
        assert torch.equal(y[0, 0, h], x[0, 0, h, cols]), h


def test_bilinear_rows_past_2_31():
    x = _input(H_IN, W)
    y = resize_ad.interpolate(x, size=(H_OUT, W), mode="bilinear")
    assert y.numel() > 2**31
    for h in ROWS:
        i0, i1, l0, l1 = _linear_taps(h, H_IN, H_OUT)
        expect = (x[0, 0, i0].float() * float(l0) + x[0, 0, i1].float() * float(l1)).to(torch.float16)
        torch.testing.assert_close(y[0, 0, h], expect, atol=0, rtol=2**-10)  # one float16 rounding
