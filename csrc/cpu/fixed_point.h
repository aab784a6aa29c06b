// uint8 passes of the separable executor on the CPU (DeviceKernels::pass_u8, common/plan.h).
//
// A pass reads and writes uint8 directly. A fixed-point table (AxisTable::precision > 0: ATen's
// int16 weights n / 2^precision) sums in int32 and stores clamp((sum + 2^(precision-1)) >>
// precision, 0, 255), the rounding and saturation of ATen's uint8 kernels
// (cpu/UpSampleKernel.cpp basic_loop_aa_horizontal / _vertical<uint8_t>,
// cpu/UpSampleKernelAVXAntialias.h ImagingResample*Convolution8u). Integer sums do not depend
// on their order, so every vector form below gives native's bits. A unit table (nearest) is an
// element gather.
#pragma once

#include <ATen/core/Tensor.h>

#include "../common/tables.h"

namespace resize_ad {

// Whether the int32 sums of a fixed-point pass over this table cannot overflow for inputs in
// [0, 255]: a bound, checked per table (the plan falls back to the float passes otherwise).
bool fixed_point_fits_int32(const AxisTable& t);

// src: uint8 [outer, t.in_size, inner], dst: uint8 [outer, t.out_size, inner], both contiguous;
// t is fixed point (precision > 0, fixed_point_fits_int32) or unit.
void axis_pass_u8_cpu(const at::Tensor& src, const at::Tensor& dst, int64_t outer, int64_t inner,
                      const AxisTable& t);

}  // namespace resize_ad
