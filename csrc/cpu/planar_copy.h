// The copy of a channels_last result into its contiguous output (DeviceKernels::planar_copy,
// common/plan.h): dst[n, c, p] = src[n, p, c] over the flattened spatial positions p.
#pragma once

#include <ATen/core/Tensor.h>

namespace resize_ad {

// src dense in channels_last order ([N, spatial..., C] in memory), dst contiguous, of the same
// sizes and dtype. Returns false, having written nothing, where it has no kernel for the call
// (more than eight channels, an element of another size than 1, 2, 4 or 8 bytes, a CPU without
// AVX-512BW, or VBMI for bytes): the caller then copies with Tensor::copy_.
bool planar_copy_cpu(const at::Tensor& src, const at::Tensor& dst);

}  // namespace resize_ad
