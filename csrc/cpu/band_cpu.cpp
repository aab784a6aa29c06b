// CPU kernels of the banded-table ops (common/band.h): band_apply, its transpose and its
// weight gradient. Each output element has exactly one writer that sums its taps in a fixed
// order, so every result is deterministic; threads only through at::parallel_for.
#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <ATen/Parallel.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "../common/band.h"

namespace resize_ad {
namespace {

// Accumulators live on the stack in blocks of this many inner elements.
constexpr int64_t kBlock = 64;
// Multiply-adds per parallel_for task, so small tensors stay on one thread.
constexpr int64_t kGrainWork = 1 << 15;

int64_t grain_for(int64_t work_per_item) {
  return std::max<int64_t>(1, kGrainWork / std::max<int64_t>(1, work_per_item));
}

template <typename scalar_t>
void band_apply_impl(const scalar_t* x, scalar_t* y, const int64_t* start, const scalar_t* w,
                     int64_t outer, int64_t in_len, int64_t out_len, int64_t inner, int64_t K) {
  using acc_t = at::opmath_type<scalar_t>;
  at::parallel_for(0, outer * out_len, grain_for(K * inner), [&](int64_t begin, int64_t end) {
    acc_t acc[kBlock];
    for (int64_t r = begin; r < end; ++r) {
      const int64_t b = r / out_len, o = r - b * out_len;
      scalar_t* yr = y + r * inner;
      for (int64_t j0 = 0; j0 < inner; j0 += kBlock) {
        const int64_t n = std::min(kBlock, inner - j0);
        std::fill(acc, acc + n, acc_t(0));
        for (int64_t k = 0; k < K; ++k) {
          const int64_t i = start[o] + k;
          if (i < 0 || i >= in_len) continue;
          const acc_t wk = static_cast<acc_t>(w[o * K + k]);
          const scalar_t* xr = x + (b * in_len + i) * inner + j0;
          for (int64_t j = 0; j < n; ++j) acc[j] += wk * static_cast<acc_t>(xr[j]);
        }
        for (int64_t j = 0; j < n; ++j) yr[j0 + j] = static_cast<scalar_t>(acc[j]);
      }
    }
  });
}

// For input index i the outputs that read it are o in [upper_bound(start, i - K),
// upper_bound(start, i)): a contiguous range because start is non-decreasing.
template <typename scalar_t>
void band_apply_transposed_impl(const scalar_t* g, scalar_t* gx, const int64_t* start,
                                const scalar_t* w, int64_t outer, int64_t in_len,
                                int64_t out_len, int64_t inner, int64_t K) {
  using acc_t = at::opmath_type<scalar_t>;
  at::parallel_for(0, outer * in_len, grain_for(K * inner), [&](int64_t begin, int64_t end) {
    acc_t acc[kBlock];
    for (int64_t r = begin; r < end; ++r) {
      const int64_t b = r / in_len, i = r - b * in_len;
      const int64_t o_lo = std::upper_bound(start, start + out_len, i - K) - start;
      const int64_t o_hi = std::upper_bound(start, start + out_len, i) - start;
      scalar_t* gr = gx + r * inner;
      for (int64_t j0 = 0; j0 < inner; j0 += kBlock) {
        const int64_t n = std::min(kBlock, inner - j0);
        std::fill(acc, acc + n, acc_t(0));
        for (int64_t o = o_lo; o < o_hi; ++o) {
          const acc_t wk = static_cast<acc_t>(w[o * K + (i - start[o])]);
          const scalar_t* src = g + (b * out_len + o) * inner + j0;
          for (int64_t j = 0; j < n; ++j) acc[j] += wk * static_cast<acc_t>(src[j]);
        }
        for (int64_t j = 0; j < n; ++j) gr[j0 + j] = static_cast<scalar_t>(acc[j]);
      }
    }
  });
}

template <typename scalar_t>
void band_weight_grad_impl(const scalar_t* g, const scalar_t* x, scalar_t* gw,
                           const int64_t* start, int64_t outer, int64_t in_len, int64_t out_len,
                           int64_t inner, int64_t K) {
  using acc_t = at::opmath_type<scalar_t>;
  at::parallel_for(0, out_len * K, grain_for(outer * inner), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t o = r / K, k = r - o * K;
      const int64_t i = start[o] + k;
      acc_t acc = 0;
      if (i >= 0 && i < in_len) {
        for (int64_t b = 0; b < outer; ++b) {
          const scalar_t* gr = g + (b * out_len + o) * inner;
          const scalar_t* xr = x + (b * in_len + i) * inner;
          for (int64_t j = 0; j < inner; ++j)
            acc += static_cast<acc_t>(gr[j]) * static_cast<acc_t>(xr[j]);
        }
      }
      gw[r] = static_cast<scalar_t>(acc);
    }
  });
}

std::vector<int64_t> with_length(const at::Tensor& t, int64_t dim, int64_t length) {
  std::vector<int64_t> sizes(t.sizes().begin(), t.sizes().end());
  sizes[dim] = length;
  return sizes;
}

void check_non_decreasing(const char* op, const at::Tensor& start) {
  const int64_t* s = start.data_ptr<int64_t>();
  for (int64_t o = 1; o < start.size(0); ++o) {
    TORCH_CHECK(s[o - 1] <= s[o], op, ": start must be non-decreasing, but start[", o - 1,
                "] = ", s[o - 1], " > start[", o, "] = ", s[o]);
  }
}

at::Tensor band_apply_cpu(const at::Tensor& x_, const at::Tensor& start_, const at::Tensor& weight_,
                          int64_t dim) {
  check_band_apply_args(x_, start_, weight_, dim);
  const at::Tensor x = x_.contiguous(), start = start_.contiguous(), w = weight_.contiguous();
  const int64_t O = start.size(0), K = w.size(1), I = x.size(dim);
  at::Tensor y = at::empty(with_length(x, dim, O), x.options());
  if (y.numel() == 0) return y;
  const BandShape s = band_shape(x, dim);
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, x.scalar_type(), "band_apply", [&] {
    band_apply_impl<scalar_t>(x.const_data_ptr<scalar_t>(), y.mutable_data_ptr<scalar_t>(),
                              start.const_data_ptr<int64_t>(), w.const_data_ptr<scalar_t>(),
                              s.outer, I, O, s.inner, K);
  });
  return y;
}

at::Tensor band_apply_transposed_cpu(const at::Tensor& g_, const at::Tensor& start_,
                                     const at::Tensor& weight_, int64_t dim,
                                     int64_t input_length) {
  check_band_apply_transposed_args(g_, start_, weight_, dim, input_length);
  const at::Tensor g = g_.contiguous(), start = start_.contiguous(), w = weight_.contiguous();
  check_non_decreasing("band_apply_transposed", start);
  const int64_t O = start.size(0), K = w.size(1);
  at::Tensor gx = at::empty(with_length(g, dim, input_length), g.options());
  if (gx.numel() == 0) return gx;
  const BandShape s = band_shape(g, dim);
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, g.scalar_type(),
                                  "band_apply_transposed", [&] {
    band_apply_transposed_impl<scalar_t>(
        g.const_data_ptr<scalar_t>(), gx.mutable_data_ptr<scalar_t>(),
        start.const_data_ptr<int64_t>(), w.const_data_ptr<scalar_t>(), s.outer, input_length, O,
        s.inner, K);
  });
  return gx;
}

at::Tensor band_weight_grad_cpu(const at::Tensor& g_, const at::Tensor& x_,
                                const at::Tensor& start_, int64_t dim, int64_t taps) {
  check_band_weight_grad_args(g_, x_, start_, dim, taps);
  const at::Tensor g = g_.contiguous(), x = x_.contiguous(), start = start_.contiguous();
  const int64_t O = start.size(0), I = x.size(dim);
  at::Tensor gw = at::empty({O, taps}, g.options());
  if (gw.numel() == 0) return gw;
  const BandShape s = band_shape(g, dim);
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, g.scalar_type(), "band_weight_grad",
                                  [&] {
    band_weight_grad_impl<scalar_t>(g.const_data_ptr<scalar_t>(), x.const_data_ptr<scalar_t>(),
                                    gw.mutable_data_ptr<scalar_t>(),
                                    start.const_data_ptr<int64_t>(), s.outer, I, O, s.inner,
                                    taps);
  });
  return gw;
}

}  // namespace
}  // namespace resize_ad

TORCH_LIBRARY_IMPL(resize_ad, CPU, m) {
  m.impl("band_apply", &resize_ad::band_apply_cpu);
  m.impl("band_apply_transposed", &resize_ad::band_apply_transposed_cpu);
  m.impl("band_weight_grad", &resize_ad::band_weight_grad_cpu);
}
