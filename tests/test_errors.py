"""Bad input: resize_ad fails where F.interpolate fails, with the same exception type and a
message naming the problem, and succeeds with the same result where F.interpolate succeeds.

Each PARITY case runs both functions on the same arguments. The EXTENSIONS table lists the calls
native rejects and resize_ad accepts on purpose (documented in docs/robustness.md); the
DEVIATIONS table the few calls where native's failure is an accident and resize_ad raises a
clearer error of another type. Op-level cases call torch.ops.resize_ad.* directly.
"""
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import resize_ad
from helpers import TOL, assert_close

NAN, INF = float("nan"), float("inf")


def t(*shape, dtype=torch.float32, fmt=None):
    g = torch.Generator().manual_seed(sum(shape) + len(shape))
    x = torch.randn(shape, generator=g, dtype=torch.float64)
    if dtype.is_complex:
        x = x.to(dtype)
    elif dtype == torch.bool:
        x = x > 0
    elif not dtype.is_floating_point:
        x = (x * 50).clamp(-100, 100).to(dtype) if dtype != torch.uint8 else (x * 50 + 100).clamp(0, 255).to(dtype)
    else:
        x = x.to(dtype)
    if fmt is not None:
        x = x.contiguous(memory_format=fmt)
    return x


def expanded():
    return t(1, 3, 1, 6).expand(2, 3, 5, 6)  # stride-0 batch and height


def transposed():
    return t(2, 3, 6, 5).transpose(-1, -2)  # (2, 3, 5, 6), W-major in memory


def sliced():
    return t(2, 6, 9, 12)[:, ::2, 1:, ::2]


X3, X4, X5 = (lambda: t(1, 2, 5)), (lambda: t(1, 2, 5, 6)), (lambda: t(1, 2, 3, 4, 5))

# (id, input factory, kwargs, regex our message must match (None: any))
PARITY = [
    # rank for the mode
    ("linear-4d", X4, dict(size=4, mode="linear"), "linear mode needs 3D"),
    ("linear-5d", X5, dict(size=4, mode="linear"), "needs 3D"),
    ("bilinear-3d", X3, dict(size=4, mode="bilinear"), "needs 4D"),
    ("bilinear-5d", X5, dict(size=4, mode="bilinear"), "needs 4D"),
    ("trilinear-3d", X3, dict(size=4, mode="trilinear"), "needs 5D"),
    ("trilinear-4d", X4, dict(size=4, mode="trilinear"), "needs 5D"),
    ("bicubic-3d", X3, dict(size=4, mode="bicubic"), "cubic"),
    ("bicubic-5d", X5, dict(size=4, mode="bicubic"), "cubic"),
    ("lanczos-aa-4d", X4, dict(size=3, mode="lanczos", antialias=True), None),
    ("input-2d", lambda: t(2, 5), dict(size=4), "Only 3D, 4D and 5D"),
    ("input-1d", lambda: t(5), dict(size=4), "Only 3D, 4D and 5D"),
    ("input-0d", lambda: torch.tensor(1.0), dict(size=4), "Only 3D, 4D and 5D"),
    ("input-6d", lambda: t(1, 1, 2, 2, 2, 2), dict(size=4), "Only 3D, 4D and 5D"),
    ("input-6d-bilinear", lambda: t(1, 1, 2, 2, 2, 2), dict(size=4, mode="bilinear"), "Only 3D"),
    ("input-2d-size-tuple", lambda: t(3, 3), dict(size=(3, 3)), "same number of spatial"),
    ("input-2d-aa", lambda: t(3, 3), dict(size=3, mode="bilinear", antialias=True), "Anti-alias"),
    # size / scale_factor presence and lengths
    ("both", X4, dict(size=4, scale_factor=2), "only one of size or scale_factor"),
    ("neither", X4, dict(), "either size or scale_factor"),
    ("size-len", X4, dict(size=(4, 4, 4)), "same number of spatial"),
    ("size-len-short", X5, dict(size=(4, 4)), "same number of spatial"),
    ("scale-len", X4, dict(scale_factor=(2.0,)), "same number of spatial"),
    ("scale-len-long", X3, dict(scale_factor=(2.0, 2.0)), "same number of spatial"),
    ("recompute-with-size", X4, dict(size=3, recompute_scale_factor=True), "recompute_scale_factor"),
    ("recompute-false-with-size", X4, dict(size=3, recompute_scale_factor=False), None),
    # bad scale values
    ("scale-0", X4, dict(scale_factor=0.0), "greater than 0"),
    ("scale-neg", X4, dict(scale_factor=-1.0), "greater than 0"),
    ("scale-tiny", X4, dict(scale_factor=1e-3), "greater than 0"),
    ("scale-nan", X4, dict(scale_factor=NAN), "int64"),
    ("scale-inf", X4, dict(scale_factor=INF), "int64"),
    ("scale-neginf", X4, dict(scale_factor=-INF), "int64"),
    ("scale-nan-one-axis", X4, dict(scale_factor=(2.0, NAN)), "int64"),
    ("scale-nan-bilinear", X4, dict(scale_factor=NAN, mode="bilinear"), "int64"),
    ("scale-inf-aa", X4, dict(scale_factor=INF, mode="bicubic", antialias=True), "int64"),
    ("scale-huge", X4, dict(scale_factor=1e30), "int64"),
    ("scale-nan-area", X4, dict(scale_factor=NAN, mode="area"), "NaN"),
    ("scale-inf-area", X4, dict(scale_factor=INF, mode="area"), "infinity"),
    ("scale-nan-recompute", X4, dict(scale_factor=NAN, recompute_scale_factor=True), "NaN"),
    ("scale-inf-recompute", X4, dict(scale_factor=INF, recompute_scale_factor=True), "infinity"),
    ("scale-huge-area", X4, dict(scale_factor=1e30, mode="area"), "int64"),
    ("scale-0-recompute", X4, dict(scale_factor=0.0, recompute_scale_factor=True), "greater than 0"),
    ("scale-str", X4, dict(scale_factor="2"), "scale_factor"),
    ("scale-tuple-str", X4, dict(scale_factor=(2.0, "2")), "scale_factor"),
    ("scale-tuple-none", X4, dict(scale_factor=(2.0, None)), "scale_factor"),
    ("scale-complex", X4, dict(scale_factor=2j), "scale_factor"),
    ("scale-tensor", X4, dict(scale_factor=torch.tensor(2.0)), "scale_factor"),
    ("scale-tuple-tensor", X4, dict(scale_factor=(2.0, torch.tensor(1.5))), None),
    ("scale-bool", X4, dict(scale_factor=True), None),
    ("scale-int", X4, dict(scale_factor=2), None),
    ("scale-numpy", X4, dict(scale_factor=np.float32(1.5)), None),
    # bad sizes
    ("size-0", X4, dict(size=0), "greater than 0"),
    ("size-neg", X4, dict(size=-1), "greater than 0"),
    ("size-0-one-axis", X4, dict(size=(0, 3)), "greater than 0"),
    ("size-0-bilinear", X4, dict(size=(3, 0), mode="bilinear"), "greater than 0"),
    ("size-0-aa", X4, dict(size=0, mode="bilinear", antialias=True), "greater than 0"),
    ("size-0-3d", X3, dict(size=0, mode="linear"), "greater than 0"),
    ("size-float", X4, dict(size=4.0), "size"),
    ("size-float-tuple", X4, dict(size=(4.0, 3)), "size"),
    ("size-str", X4, dict(size="4"), "size"),
    ("size-none-in-tuple", X4, dict(size=(None, 3)), "size"),
    ("size-bool", X4, dict(size=True), "size"),
    ("size-bool-tuple", X4, dict(size=(True, 3)), "size"),
    ("size-nested", X4, dict(size=((3,), 3)), "size"),
    ("size-float-tensor", X4, dict(size=torch.tensor(3.0)), "size"),
    ("size-1d-tensor", X4, dict(size=torch.tensor([3, 4])), "size"),
    ("size-2**63", X4, dict(size=2**63), "int64"),
    ("size-2**62", X4, dict(size=2**62), None),  # output numel overflows: RuntimeError
    ("size-tensor", X4, dict(size=torch.tensor(3)), None),
    ("size-tuple-tensor", X4, dict(size=(torch.tensor(3), 4)), None),
    ("size-numpy", X4, dict(size=(np.int64(3), np.int32(4))), None),
    ("size-torch-Size", X4, dict(size=torch.Size([3, 4])), None),
    ("size-list", X4, dict(size=[3, 4]), None),
    ("scale-huge-alloc", X3, dict(scale_factor=1e12), None),  # allocation failure: RuntimeError
    # modes and flags
    ("mode-unknown", X4, dict(size=4, mode="foo"), "got 'foo'"),
    ("mode-None", X4, dict(size=4, mode=None), "got None"),
    ("mode-case", X4, dict(size=4, mode="Bilinear"), "got 'Bilinear'"),
    ("mode-unknown-and-both", X4, dict(size=3, scale_factor=2, mode="foo"), "only one of"),
    ("mode-unknown-aa", X4, dict(size=3, mode="foo", antialias=True), "Anti-alias"),
    ("mode-unknown-2d", lambda: t(3, 3), dict(size=3, mode="foo"), "Only 3D"),
    ("ac-nearest", X4, dict(size=4, align_corners=True), "align_corners"),
    ("ac-false-nearest", X4, dict(size=4, align_corners=False), "align_corners"),
    ("ac-area", X4, dict(size=4, mode="area", align_corners=False), "align_corners"),
    ("ac-nearest-exact", X4, dict(size=4, mode="nearest-exact", align_corners=True), "align_corners"),
    ("ac-str", X4, dict(size=3, mode="bilinear", align_corners="yes"), "align_corners"),
    ("ac-int", X4, dict(size=3, mode="bilinear", align_corners=1), "align_corners"),
    ("ac-numpy-bool", X4, dict(size=3, mode="bilinear", align_corners=np.bool_(True)), "align_corners"),
    ("ac-str-wrong-rank", X3, dict(size=3, mode="bilinear", align_corners="yes"), "needs 4D"),
    ("lanczos-ac", X4, dict(size=3, mode="lanczos", antialias=True, align_corners=True), "align_corners"),
    ("lanczos-ac-false", X4, dict(size=3, mode="lanczos", antialias=True, align_corners=False), None),
    ("aa-nearest", X4, dict(size=4, antialias=True), "Anti-alias"),
    ("aa-area", X4, dict(size=4, mode="area", antialias=True), "Anti-alias"),
    ("aa-nearest-exact", X4, dict(size=4, mode="nearest-exact", antialias=True), "Anti-alias"),
    ("aa-bicubic-5d", X5, dict(size=3, mode="bicubic", antialias=True), "Anti-alias"),
    ("aa-truthy-str", X4, dict(size=3, mode="bilinear", antialias="yes"), None),
    ("aa-none", X4, dict(size=3, mode="bilinear", antialias=None), None),
    ("recompute-truthy", X4, dict(scale_factor=1.7, recompute_scale_factor="yes"), None),
    # dtypes
    ("int64-nearest", lambda: t(1, 2, 5, 6, dtype=torch.int64), dict(size=3), "dtype"),
    ("int64-bilinear", lambda: t(1, 2, 5, 6, dtype=torch.int64), dict(size=3, mode="bilinear"), "dtype"),
    ("int32-area", lambda: t(1, 2, 5, 6, dtype=torch.int32), dict(size=3, mode="area"), "dtype"),
    ("int8-nearest", lambda: t(1, 2, 5, 6, dtype=torch.int8), dict(size=3), "dtype"),
    ("int64-aa", lambda: t(1, 2, 5, 6, dtype=torch.int64), dict(size=3, mode="bilinear", antialias=True), "dtype"),
    ("int64-lanczos", lambda: t(1, 2, 5, 6, dtype=torch.int64), dict(size=3, mode="lanczos", antialias=True), "dtype"),
    ("int64-trilinear", lambda: t(1, 2, 3, 4, 5, dtype=torch.int64), dict(size=3, mode="trilinear"), "dtype"),
    ("bool-nearest", lambda: t(1, 2, 5, 6, dtype=torch.bool), dict(size=3), "dtype"),
    ("bool-bilinear", lambda: t(1, 2, 5, 6, dtype=torch.bool), dict(size=3, mode="bilinear"), "dtype"),
    ("complex-nearest", lambda: t(1, 2, 5, 6, dtype=torch.complex64), dict(size=3), "dtype"),
    ("complex-bilinear", lambda: t(1, 2, 5, 6, dtype=torch.complex64), dict(size=3, mode="bilinear"), "dtype"),
    ("complex-area", lambda: t(1, 2, 5, 6, dtype=torch.complex128), dict(size=3, mode="area"), "dtype"),
    ("uint8-area", lambda: t(1, 2, 5, 6, dtype=torch.uint8), dict(size=3, mode="area"), "uint8"),
    ("uint8-linear", lambda: t(1, 2, 5, dtype=torch.uint8), dict(size=3, mode="linear"), "uint8"),
    ("uint8-trilinear", lambda: t(1, 2, 3, 4, 5, dtype=torch.uint8), dict(size=3, mode="trilinear"), "uint8"),
    ("int64-size-0", lambda: t(1, 2, 5, 6, dtype=torch.int64), dict(size=0), "greater than 0"),
    ("int64-empty-channels", lambda: t(1, 0, 3, 3, dtype=torch.int64), dict(size=2), "Non-empty"),
    ("int64-empty-batch", lambda: t(0, 1, 3, 3, dtype=torch.int64), dict(size=2), "dtype"),
    ("int64-rank", lambda: t(1, 1, 3, dtype=torch.int64), dict(size=2, mode="bilinear"), "needs 4D"),
    ("half-area", lambda: t(1, 2, 5, 6, dtype=torch.float16), dict(size=3, mode="area"), None),
    ("bf16-nearest", lambda: t(1, 2, 5, 6, dtype=torch.bfloat16), dict(size=3), None),
    ("half-bilinear", lambda: t(1, 2, 5, 6, dtype=torch.float16), dict(size=(7, 4), mode="bilinear"), None),
    # empty batch / channels / spatial
    ("empty-batch-nearest", lambda: t(0, 2, 5, 6), dict(size=3), None),
    ("empty-batch-bilinear", lambda: t(0, 2, 5, 6), dict(size=3, mode="bilinear"), None),
    ("empty-batch-area", lambda: t(0, 2, 5, 6), dict(size=3, mode="area"), None),
    ("empty-batch-aa", lambda: t(0, 2, 5, 6), dict(size=3, mode="bicubic", antialias=True), None),
    ("empty-batch-lanczos", lambda: t(0, 2, 5, 6), dict(size=3, mode="lanczos", antialias=True), None),
    ("empty-batch-trilinear", lambda: t(0, 2, 3, 4, 5), dict(size=3, mode="trilinear"), None),
    ("empty-batch-scale-0", lambda: t(0, 2, 3, 3), dict(scale_factor=0.0), "greater than 0"),
    ("empty-channels-nearest", lambda: t(2, 0, 5, 6), dict(size=3), "Non-empty"),
    ("empty-channels-nearest-1d", lambda: t(2, 0, 5), dict(size=3), "Non-empty"),
    ("empty-channels-bilinear", lambda: t(2, 0, 5, 6), dict(size=3, mode="bilinear"), "Non-empty"),
    ("empty-channels-bicubic", lambda: t(2, 0, 5, 3), dict(size=3, mode="bicubic"), "Non-empty"),
    ("empty-channels-trilinear", lambda: t(2, 0, 5, 3, 3), dict(size=3, mode="trilinear"), "Non-empty"),
    ("empty-channels-aa", lambda: t(2, 0, 5, 6), dict(size=3, mode="bilinear", antialias=True), "Non-empty"),
    ("empty-channels-nearest-exact", lambda: t(2, 0, 5, 3), dict(size=3, mode="nearest-exact"), "Non-empty"),
    ("empty-channels-area-1d", lambda: t(2, 0, 5), dict(size=3, mode="area"), None),
    ("empty-channels-area-2d", lambda: t(2, 0, 5, 6), dict(size=3, mode="area"), None),
    ("empty-channels-area-3d", lambda: t(2, 0, 5, 3, 3), dict(size=3, mode="area"), "Non-empty"),
    ("empty-batch-channels-area", lambda: t(0, 0, 3, 3), dict(size=2, mode="area"), None),
    ("zero-spatial-nearest", lambda: t(2, 2, 0, 6), dict(size=3), "greater than 0"),
    ("zero-spatial-bilinear", lambda: t(2, 2, 0, 6), dict(size=3, mode="bilinear"), "greater than 0"),
    ("zero-spatial-area", lambda: t(2, 2, 0, 6), dict(size=3, mode="area"), "greater than 0"),
    ("zero-spatial-area-3d", lambda: t(0, 2, 0, 3, 3), dict(size=3, mode="area"), "greater than 0"),
    ("zero-spatial-scale", lambda: t(2, 2, 0, 6), dict(scale_factor=2, mode="bilinear"), "greater than 0"),
    ("zero-spatial-empty-batch", lambda: t(0, 0, 0, 6), dict(size=3), "greater than 0"),
    # area: adaptive pooling allows an empty output (any dtype in 1-D / 2-D)
    ("area-size-0", X4, dict(size=0, mode="area"), None),
    ("area-size-0-1d", X3, dict(size=0, mode="area"), None),
    ("area-size-0-3d", X5, dict(size=0, mode="area"), None),
    ("area-scale-0", X4, dict(scale_factor=0.0, mode="area"), None),
    ("area-scale-tiny", X3, dict(scale_factor=0.01, mode="area"), None),
    ("area-size-neg", X4, dict(size=-1, mode="area"), "greater than 0"),
    ("area-scale-neg", X5, dict(scale_factor=-1.0, mode="area"), "greater than 0"),
    ("area-size-0-int64", lambda: t(1, 2, 5, 6, dtype=torch.int64), dict(size=0, mode="area"), None),
    ("area-size-0-bool-1d", lambda: t(1, 2, 5, dtype=torch.bool), dict(size=0, mode="area"), None),
    ("area-size-0-uint8", lambda: t(1, 2, 5, 6, dtype=torch.uint8), dict(size=0, mode="area"), None),
    ("area-size-0-complex", lambda: t(1, 2, 5, 6, dtype=torch.complex64), dict(size=0, mode="area"), None),
    ("area-size-0-int64-3d", lambda: t(1, 2, 3, 4, 5, dtype=torch.int64), dict(size=0, mode="area"), "dtype"),
    ("area-empty-batch-int64", lambda: t(0, 1, 3, 3, dtype=torch.int64), dict(size=2, mode="area"), None),
    ("area-empty-channels-int64", lambda: t(1, 0, 3, 3, dtype=torch.int64), dict(size=2, mode="area"), None),
    ("area-empty-batch-int64-3d", lambda: t(0, 2, 3, 4, 5, dtype=torch.int64), dict(size=2, mode="area"), "dtype"),
    ("area-size-neg-int64", lambda: t(1, 2, 5, 6, dtype=torch.int64), dict(size=-1, mode="area"), "greater than 0"),
    # layouts
    ("expanded-nearest", expanded, dict(size=(7, 4)), None),
    ("expanded-bilinear", expanded, dict(size=(7, 4), mode="bilinear"), None),
    ("expanded-bicubic-aa", expanded, dict(size=(3, 4), mode="bicubic", antialias=True), None),
    ("expanded-area", expanded, dict(size=(3, 4), mode="area"), None),
    ("transposed-bilinear", transposed, dict(size=(7, 4), mode="bilinear", align_corners=True), None),
    ("transposed-nearest-exact", transposed, dict(scale_factor=1.7, mode="nearest-exact"), None),
    ("sliced-bicubic", sliced, dict(scale_factor=(1.3, 0.6), mode="bicubic"), None),
    ("channels-last-area", lambda: t(2, 3, 5, 6, fmt=torch.channels_last), dict(size=(3, 4), mode="area"), None),
    ("channels-last-3d-trilinear", lambda: t(2, 3, 3, 4, 5, fmt=torch.channels_last_3d), dict(size=(5, 3, 7), mode="trilinear"), None),
    ("meta", lambda: torch.empty(1, 2, 5, 6, device="meta"), dict(size=3, mode="bilinear"), None),
    # extreme scales
    ("up-1000-nearest", X3, dict(scale_factor=1000.0), None),
    ("up-1000-linear", X3, dict(scale_factor=1000.0, mode="linear"), None),
    ("up-1000-linear-ac", X3, dict(scale_factor=999.7, mode="linear", align_corners=True), None),
    ("up-1000-bicubic", lambda: t(1, 1, 4, 3), dict(scale_factor=(1000.0, 1.0), mode="bicubic"), None),
    ("up-1000-bicubic-aa", lambda: t(1, 1, 4, 3), dict(scale_factor=(1000.0, 2.0), mode="bicubic", antialias=True), None),
    ("up-1000-lanczos", lambda: t(1, 1, 4, 3), dict(scale_factor=(1000.0, 2.0), mode="lanczos", antialias=True), None),
    ("up-1000-area", X3, dict(scale_factor=1000.0, mode="area"), None),
    ("up-1000-nearest-exact-3d", lambda: t(1, 1, 2, 2, 2), dict(scale_factor=(1000.0, 1.0, 1.5), mode="nearest-exact"), None),
    ("down-1000-nearest", lambda: t(1, 1, 4000), dict(scale_factor=0.001), None),
    ("down-1000-linear", lambda: t(1, 1, 4000), dict(scale_factor=0.0013, mode="linear"), None),
    ("down-1000-area", lambda: t(1, 1, 4000), dict(scale_factor=0.001, mode="area"), None),
    ("down-1000-bilinear-aa", lambda: t(1, 1, 4000, 3), dict(scale_factor=(0.001, 1.0), mode="bilinear", antialias=True), None),
    ("down-1000-bicubic-aa", lambda: t(1, 1, 4000, 3), dict(scale_factor=(0.0013, 0.7), mode="bicubic", antialias=True, align_corners=True), None),
    ("down-1000-lanczos", lambda: t(1, 1, 4000, 3), dict(scale_factor=(0.001, 1.0), mode="lanczos", antialias=True), None),
    ("down-1000-trilinear", lambda: t(1, 1, 4000, 2, 2), dict(scale_factor=(0.001, 1.0, 1.0), mode="trilinear"), None),
    ("down-to-0-nearest", lambda: t(1, 1, 4000, 3), dict(scale_factor=0.001), "greater than 0"),
]

# Native rejects these on purpose or by limitation; resize_ad accepts them (documented
# extensions): (id, input factory, kwargs, native's exception type).
EXTENSIONS = [
    ("aa-linear-3d", X3, dict(size=3, mode="linear", antialias=True), ValueError),
    ("aa-trilinear-5d", X5, dict(size=(2, 3, 3), mode="trilinear", antialias=True), ValueError),
    ("lanczos-no-aa", X4, dict(size=3, mode="lanczos"), ValueError),
    ("lanczos-aa-3d", X3, dict(size=3, mode="lanczos", antialias=True), ValueError),
    ("lanczos-aa-5d", X5, dict(size=3, mode="lanczos", antialias=True), ValueError),
    ("lanczos-3d", X3, dict(size=3, mode="lanczos"), NotImplementedError),
    ("cubic-ac", X4, dict(size=3, mode="cubic", align_corners=True), NotImplementedError),
    ("cubic-3d", X3, dict(size=8, mode="cubic"), NotImplementedError),
    ("box-5d-aa", X5, dict(size=2, mode="box", antialias=True), ValueError),
    ("lanczos5", X4, dict(size=3, mode="lanczos5"), NotImplementedError),
    ("hamming", X4, dict(size=3, mode="hamming", antialias=True), ValueError),
    ("mitchell", X4, dict(size=(9, 3), mode="mitchell"), NotImplementedError),
    ("gaussian", X3, dict(scale_factor=0.5, mode="gaussian", antialias=True), ValueError),
    ("aa-half-cpu", lambda: t(1, 2, 5, 6, dtype=torch.float16), dict(size=3, mode="bilinear", antialias=True), NotImplementedError),
    ("aa-bf16-cpu", lambda: t(1, 2, 5, 6, dtype=torch.bfloat16), dict(size=3, mode="bicubic", antialias=True), NotImplementedError),
    ("lanczos-half-cpu", lambda: t(1, 2, 5, 6, dtype=torch.float16), dict(size=3, mode="lanczos", antialias=True), NotImplementedError),
]

# Native fails by accident here (it repeats the string "2" in the recompute path: size "22222");
# resize_ad raises a TypeError naming the bad scale_factor.
DEVIATIONS = [
    ("scale-str-recompute", X4, dict(scale_factor="2", recompute_scale_factor=True), TypeError),
    ("scale-str-area", X4, dict(scale_factor="2", mode="area"), TypeError),
]

# uint8 where native accepts it: resize_ad gives native's result (tests/test_uint8.py covers the
# modes in depth); listed here so that the table is complete.
UINT8_ACCEPTED = [
    ("uint8-nearest", lambda: t(1, 2, 5, 6, dtype=torch.uint8), dict(size=3)),
    ("uint8-bilinear", lambda: t(1, 2, 5, 6, dtype=torch.uint8), dict(size=3, mode="bilinear")),
    ("uint8-bilinear-aa", lambda: t(1, 2, 5, 6, dtype=torch.uint8), dict(size=3, mode="bilinear", antialias=True)),
    ("uint8-lanczos-aa", lambda: t(1, 2, 5, 6, dtype=torch.uint8), dict(size=3, mode="lanczos", antialias=True)),
]


def _call(f, make, kw):
    try:
        return f(make(), **kw), None
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return None, e


def _same_result(y, ref):
    assert type(y) is torch.Tensor
    assert y.shape == ref.shape and y.dtype == ref.dtype and y.device == ref.device
    if y.device.type == "meta" or ref.numel() == 0:
        return
    assert y.is_contiguous() == ref.is_contiguous()
    assert y.is_contiguous(memory_format=torch.channels_last) == ref.is_contiguous(memory_format=torch.channels_last)
    assert_close(y, ref)


@pytest.mark.parametrize("name,make,kw,match", PARITY, ids=[c[0] for c in PARITY])
def test_parity_with_native(name, make, kw, match):
    ref, native_err = _call(F.interpolate, make, kw)
    y, err = _call(resize_ad.interpolate, make, kw)
    if native_err is None:
        assert err is None, f"native accepts, resize_ad raises {type(err).__name__}: {err}"
        _same_result(y, ref)
        return
    assert err is not None, f"native raises {type(native_err).__name__}: {native_err}; resize_ad accepts"
    assert isinstance(err, type(native_err)), (
        f"native raises {type(native_err).__name__}: {native_err}\n"
        f"resize_ad raises {type(err).__name__}: {err}")
    assert str(err).strip(), "empty error message"
    if match is not None:
        import re
        assert re.search(match, str(err)), f"message {str(err)!r} does not match {match!r}"


@pytest.mark.parametrize("name,make,kw,native_type", EXTENSIONS, ids=[c[0] for c in EXTENSIONS])
def test_documented_extensions(name, make, kw, native_type):
    with pytest.raises(native_type):
        F.interpolate(make(), **kw)
    x = make()
    y = resize_ad.interpolate(x, **kw)
    assert y.dtype == x.dtype and y.isfinite().all()
    if x.dtype in (torch.float16, torch.bfloat16):  # against native in float32, rounded once
        assert_close(y, F.interpolate(x.float(), **kw).to(x.dtype), x.dtype)


@pytest.mark.parametrize("name,make,kw,our_type", DEVIATIONS, ids=[c[0] for c in DEVIATIONS])
def test_deviations(name, make, kw, our_type):
    with pytest.raises(our_type, match="scale_factor"):
        resize_ad.interpolate(make(), **kw)


@pytest.mark.parametrize("name,make,kw", UINT8_ACCEPTED, ids=[c[0] for c in UINT8_ACCEPTED])
def test_uint8_accepted(name, make, kw):
    x = make()
    assert torch.equal(resize_ad.interpolate(x, **kw), F.interpolate(x, **kw))  # native accepts too


def test_not_a_tensor():
    with pytest.raises(AttributeError):
        F.interpolate([1.0, 2.0], size=3)
    with pytest.raises(AttributeError):  # like native ...
        resize_ad.interpolate([1.0, 2.0], size=3)
    with pytest.raises(TypeError, match="must be a torch.Tensor"):  # ... and a TypeError
        resize_ad.interpolate(np.ones((1, 1, 3)), size=3)
    # native checks align_corners before touching the input
    with pytest.raises(ValueError):
        resize_ad.interpolate([1.0], size=3, align_corners=True)


@pytest.mark.parametrize("make,kw", [
    (X4, dict(size=0, mode="area")),
    (X5, dict(size=(2, 0, 3), mode="area")),
    (lambda: t(2, 0, 5, 6), dict(size=3, mode="area")),
])
def test_backward_of_empty_area_output(make, kw):
    """Native's forward returns the empty output, its backward then raises; the gradient of an
    empty output is zero, which resize_ad returns (a documented improvement)."""
    x = make().double().requires_grad_(True)
    with pytest.raises(RuntimeError, match="non-zero size"):
        torch.autograd.grad(F.interpolate(x, **kw).sum(), x)
    (gx,) = torch.autograd.grad(resize_ad.interpolate(x, **kw).sum(), x)
    assert gx.shape == x.shape and not gx.any()


@pytest.mark.parametrize("name,make,kw", [
    ("empty-batch-bilinear", lambda: t(0, 2, 5, 6), dict(size=3, mode="bilinear")),
    ("empty-batch-aa", lambda: t(0, 2, 5, 6), dict(size=(3, 8), mode="bicubic", antialias=True)),
    ("expanded-bilinear", expanded, dict(size=(7, 4), mode="bilinear")),
    ("transposed-bicubic", transposed, dict(size=(7, 4), mode="bicubic")),
    ("down-1000-aa", lambda: t(1, 1, 4000, 3), dict(scale_factor=(0.001, 1.0), mode="bilinear", antialias=True)),
    ("up-1000-linear", X3, dict(scale_factor=1000.0, mode="linear")),
])
def test_backward_parity_on_edge_inputs(name, make, kw):
    x = make().double().requires_grad_(True)
    grads = []
    for f in (F.interpolate, resize_ad.interpolate):
        y = f(x, **kw)
        g = torch.arange(y.numel(), dtype=torch.float64).reshape(y.shape).sin()
        (gx,) = torch.autograd.grad(y, x, g, allow_unused=True)
        grads.append(torch.zeros_like(x) if gx is None else gx)
    assert grads[1].shape == x.shape
    assert_close(grads[1], grads[0], torch.float64)


# ---- op level: torch.ops.resize_ad.* with bad arguments raise RuntimeError, never crash ----

_R, _RB = torch.ops.resize_ad.resize, torch.ops.resize_ad.resize_backward
_x = t(1, 2, 5, 6)
_g = t(1, 2, 3, 4)

OP_CASES = [
    ("fwd-size-len", lambda: _R(_x, [3], "bilinear", False, None, False)),
    ("fwd-size-len-long", lambda: _R(_x, [3, 3, 3], "bilinear", False, None, False)),
    ("fwd-size-neg", lambda: _R(_x, [-1, 3], "bilinear", False, None, False)),
    ("fwd-size-0", lambda: _R(_x, [0, 3], "nearest", False, None, False)),
    ("fwd-size-huge", lambda: _R(_x, [2**62, 2**62], "nearest", False, None, False)),
    ("fwd-size-alloc", lambda: _R(_x, [2**20, 2**20], "nearest", False, None, False)),
    ("fwd-int", lambda: _R(_x.long(), [3, 3], "nearest", False, None, False)),
    ("fwd-bool", lambda: _R(_x > 0, [3, 3], "nearest", False, None, False)),
    ("fwd-complex", lambda: _R(_x.to(torch.complex64), [3, 3], "bilinear", False, None, False)),
    ("fwd-2d", lambda: _R(t(3, 4), [], "nearest", False, None, False)),
    ("fwd-6d", lambda: _R(t(1, 1, 2, 2, 2, 2), [2, 2, 2, 2], "nearest", False, None, False)),
    ("fwd-mode", lambda: _R(_x, [3, 3], "foo", False, None, False)),
    ("fwd-scales-len", lambda: _R(_x, [3, 3], "bilinear", False, [0.5], False)),
    ("fwd-scales-nan", lambda: _R(_x, [3, 3], "bilinear", False, [NAN, 0.5], False)),
    ("fwd-scales-inf", lambda: _R(_x, [3, 3], "bilinear", False, [INF, 0.5], False)),
    ("fwd-zero-spatial", lambda: _R(t(1, 2, 0, 6), [3, 3], "nearest", False, None, False)),
    ("bwd-size-len", lambda: _RB(_g, [1, 2, 5], "bilinear", False, None, False)),
    ("bwd-size-len-long", lambda: _RB(_g, [1, 2, 5, 6, 7], "bilinear", False, None, False)),
    ("bwd-batch-mismatch", lambda: _RB(_g, [2, 2, 5, 6], "bilinear", False, None, False)),
    ("bwd-channel-mismatch", lambda: _RB(_g, [1, 3, 5, 6], "bilinear", False, None, False)),
    ("bwd-size-neg", lambda: _RB(_g, [1, 2, -5, 6], "bilinear", False, None, False)),
    ("bwd-size-0", lambda: _RB(_g, [1, 2, 0, 6], "bilinear", False, None, False)),
    ("bwd-size-huge", lambda: _RB(_g, [1, 2, 2**62, 2**62], "nearest", False, None, False)),
    ("bwd-int", lambda: _RB(_g.long(), [1, 2, 5, 6], "bilinear", False, None, False)),
    ("bwd-2d", lambda: _RB(t(3, 4), [3, 4], "bilinear", False, None, False)),
    ("bwd-mode", lambda: _RB(_g, [1, 2, 5, 6], "foo", False, None, False)),
    ("bwd-scales-len", lambda: _RB(_g, [1, 2, 5, 6], "bilinear", False, [0.5, 0.5, 0.5], False)),
    ("bwd-scales-inf", lambda: _RB(_g, [1, 2, 5, 6], "bilinear", False, [INF, INF], False)),
    ("bwd-grad-0-spatial", lambda: _RB(t(1, 2, 0, 4), [1, 2, 5, 6], "bilinear", False, None, False)),
]


@pytest.mark.parametrize("name,call", OP_CASES, ids=[c[0] for c in OP_CASES])
def test_op_level_errors(name, call):
    with pytest.raises(RuntimeError, match="resize_ad|size|memory|overflow|Expected|expected"):
        call()


def test_op_level_empty_outputs():
    # area allows an empty output; empty batches pass through; an empty grad gives zeros
    assert _R(_x, [0, 3], "area", False, None, False).shape == (1, 2, 0, 3)
    assert _R(t(0, 2, 5, 6), [3, 3], "bicubic", False, None, True).shape == (0, 2, 3, 3)
    gx = _RB(t(1, 2, 0, 4), [1, 2, 5, 6], "area", False, None, False)
    assert gx.shape == (1, 2, 5, 6) and not gx.any()


@pytest.mark.parametrize("call", [
    lambda: resize_ad.interpolate(torch.zeros(1, 1, 1, dtype=torch.float16), size=2**40),
    lambda: resize_ad.interpolate(torch.zeros(1, 1, 2**20), size=2**40, mode="linear"),
    lambda: _RB(torch.zeros(1, 1, 2**10), [1, 1, 2**40], "area", False, None, False),
])
def test_weight_table_too_large_is_an_error(call):
    """A 1-D axis of ~10^12 samples: the weight table alone would exhaust memory, so the call
    fails up front (before the output is allocated) instead of being killed for memory."""
    with pytest.raises(RuntimeError, match="weight table"):
        call()


def test_messages_name_the_fix():
    """Spot checks that our own messages say what to change."""
    cases = [
        (dict(size=3, scale_factor=2), "pass size"),
        (dict(size=3, mode="box", align_corners=True), "align_corners=None or False"),
        (dict(size=3, mode="nearest", antialias=True), "antialias=False"),
        (dict(scale_factor=INF, mode="area"), "finite scale_factor"),
        (dict(scale_factor=1e30), "finite scale_factor"),
        (dict(size=0), "larger size or scale_factor"),
        (dict(size=4.0), "Python ints"),
        (dict(size=3, mode="bilinear", align_corners="yes"), "bool or None"),
        (dict(scale_factor=torch.tensor(2.0)), r"\.item\(\)"),
    ]
    for kw, hint in cases:
        with pytest.raises(Exception, match=hint):
            resize_ad.interpolate(t(1, 2, 5, 6), **kw)
    with pytest.raises(NotImplementedError, match=r"\.float\(\)|floating point"):
        resize_ad.interpolate(t(1, 2, 5, 6, dtype=torch.int64), size=3)
    with pytest.raises(NotImplementedError, match="mode='cubic'"):
        resize_ad.interpolate(t(1, 2, 5, 6, 7), size=3, mode="bicubic")
