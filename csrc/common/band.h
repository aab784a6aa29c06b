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

// The arguments of each op, as both devices check them.
inline void check_band_apply_args(const at::Tensor& x, const at::Tensor& start,
                                  const at::Tensor& weight, int64_t dim) {
  check_band_table("band_apply", x, start, dim);
  check_band_weight("band_apply", x, start, weight);
}

inline void check_band_apply_transposed_args(const at::Tensor& g, const at::Tensor& start,
                                             const at::Tensor& weight, int64_t dim,
                                             int64_t input_length) {
  check_band_table("band_apply_transposed", g, start, dim);
  check_band_weight("band_apply_transposed", g, start, weight);
  TORCH_CHECK(g.size(dim) == start.size(0), "band_apply_transposed: grad has ", g.size(dim),
              " entries along dim ", dim, " but the table has ", start.size(0), " rows");
  TORCH_CHECK(input_length >= 0, "band_apply_transposed: input_length must be >= 0, got ",
              input_length);
}

inline void check_band_weight_grad_args(const at::Tensor& g, const at::Tensor& x,
                                        const at::Tensor& start, int64_t dim, int64_t taps) {
  check_band_table("band_weight_grad", g, start, dim);
  TORCH_CHECK(x.dim() == g.dim() && x.scalar_type() == g.scalar_type() &&
                  x.device() == g.device(),
              "band_weight_grad: grad and x must have the same rank, dtype and device, got ",
              g.sizes(), " ", g.scalar_type(), " and ", x.sizes(), " ", x.scalar_type());
  for (int64_t d = 0; d < g.dim(); ++d) {
    TORCH_CHECK(d == dim || g.size(d) == x.size(d), "band_weight_grad: grad ", g.sizes(),
                " and x ", x.sizes(), " may differ only along dim ", dim);
  }
  TORCH_CHECK(g.size(dim) == start.size(0), "band_weight_grad: grad has ", g.size(dim),
              " entries along dim ", dim, " but the table has ", start.size(0), " rows");
  TORCH_CHECK(taps >= 0, "band_weight_grad: taps must be >= 0, got ", taps);
}

}  // namespace resize_ad
