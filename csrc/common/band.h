// Banded tables along one axis for resize_ad::band_apply and its two derivative ops
// (band_apply_transposed, band_weight_grad). A table is `start` (int64 [O], non-decreasing) and
// `weight` ([O, K]): row o reads taps start[o] .. start[o] + K - 1 of the axis. Taps outside the
// axis read as zero, so no table can index out of bounds.
//
// Every op views its tensors as [outer, length, inner] around the resampled axis.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/util/Exception.h>

#include <cstdint>

namespace resize_ad {

struct BandShape {
  int64_t outer = 1;  // product of the sizes before `dim`
  int64_t inner = 1;  // product of the sizes after `dim`
};

inline BandShape band_shape(const at::Tensor& t, int64_t dim) {
  BandShape s;
  for (int64_t d = 0; d < dim; ++d) s.outer *= t.size(d);
  for (int64_t d = dim + 1; d < t.dim(); ++d) s.inner *= t.size(d);
  return s;
}

inline void check_band_table(const char* op, const at::Tensor& t, const at::Tensor& start,
                             int64_t dim) {
  TORCH_CHECK(dim >= 0 && dim < t.dim(), op, ": dim must be in [0, ", t.dim(), ") for a ",
              t.dim(), "-D tensor, got ", dim);
  TORCH_CHECK(start.dim() == 1 && start.scalar_type() == at::kLong, op,
              ": start must be a 1-D int64 tensor (one window start per output), got ",
              start.dim(), "-D ", start.scalar_type());
  TORCH_CHECK(start.device() == t.device(), op, ": start must be on ", t.device(), ", got ",
              start.device());
  TORCH_CHECK(at::isFloatingType(t.scalar_type()), op,
              ": expected a floating point tensor, got ", t.scalar_type());
}

inline void check_band_weight(const char* op, const at::Tensor& t, const at::Tensor& start,
                              const at::Tensor& weight) {
  TORCH_CHECK(weight.dim() == 2 && weight.size(0) == start.size(0), op,
              ": weight must be [O, K] with O = start.size(0) = ", start.size(0), ", got ",
              weight.sizes());
  TORCH_CHECK(weight.scalar_type() == t.scalar_type(), op, ": weight dtype ",
              weight.scalar_type(), " must match the tensor's dtype ", t.scalar_type());
  TORCH_CHECK(weight.device() == t.device(), op, ": weight must be on ", t.device(), ", got ",
              weight.device());
}

}  // namespace resize_ad
