// CPU engine: one banded-matrix pass along one axis, parallel over output rows.
#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <ATen/Parallel.h>
#include <torch/library.h>

#include <algorithm>
#include <vector>

#include "../common/engine.h"

namespace resize_ad {
namespace {

constexpr int64_t kBlock = 64;  // inner elements accumulated in registers / L1 at once

template <typename src_t, typename dst_t, typename acc_t>
void axis_pass_impl(const src_t* src, dst_t* dst, int64_t outer, int64_t inner,
                    const AxisTable& t) {
  const int64_t in_len = t.in_size, out_len = t.out_size, K = t.K;
  std::vector<acc_t> w(t.w.size());
  std::transform(t.w.begin(), t.w.end(), w.begin(), [](double v) { return static_cast<acc_t>(v); });
  const int64_t* start = t.start.data();
  const int64_t* len = t.len.data();
  const acc_t* wp = w.data();
  const int64_t rows = outer * out_len;
  const int64_t work_per_row = std::max<int64_t>(1, inner * K);
  const int64_t grain = std::max<int64_t>(1, 32768 / work_per_row);

  at::parallel_for(0, rows, grain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t o = r % out_len;
      const int64_t b = r / out_len;
      const src_t* s = src + (b * in_len + start[o]) * inner;
      dst_t* d = dst + r * inner;
      const acc_t* wo = wp + o * K;
      const int64_t n = len[o];
      // Taps of weight exactly 0 are skipped: the output does not depend on that input, so an
      // inf there must not become 0 * inf = NaN (y = W x with W's zeros structural).
      if (inner == 1) {
        acc_t sum = 0;
        for (int64_t k = 0; k < n; ++k) {
          if (wo[k] != acc_t(0)) sum += wo[k] * static_cast<acc_t>(s[k]);
        }
        d[0] = static_cast<dst_t>(sum);
        continue;
      }
      for (int64_t j0 = 0; j0 < inner; j0 += kBlock) {
        const int64_t m = std::min(kBlock, inner - j0);
        acc_t acc[kBlock];
        for (int64_t j = 0; j < m; ++j) acc[j] = 0;
        for (int64_t k = 0; k < n; ++k) {
          const acc_t wk = wo[k];
          if (wk == acc_t(0)) continue;
          const src_t* sk = s + k * inner + j0;
          for (int64_t j = 0; j < m; ++j) acc[j] += wk * static_cast<acc_t>(sk[j]);
        }
        for (int64_t j = 0; j < m; ++j) d[j0 + j] = static_cast<dst_t>(acc[j]);
      }
    }
  });
}

void axis_pass_cpu(const at::Tensor& src, const at::Tensor& dst, at::ScalarType orig,
                   int64_t outer, int64_t inner, const AxisTable& t) {
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, orig, "resize_ad_axis_pass_cpu", [&] {
    using acc_t = at::opmath_type<scalar_t>;
    const bool src_acc = src.scalar_type() != orig;
    const bool dst_acc = dst.scalar_type() != orig;
    if (src_acc && dst_acc) {
      axis_pass_impl<acc_t, acc_t, acc_t>(src.const_data_ptr<acc_t>(), dst.data_ptr<acc_t>(),
                                          outer, inner, t);
    } else if (src_acc) {
      axis_pass_impl<acc_t, scalar_t, acc_t>(src.const_data_ptr<acc_t>(),
                                             dst.data_ptr<scalar_t>(), outer, inner, t);
    } else if (dst_acc) {
      axis_pass_impl<scalar_t, acc_t, acc_t>(src.const_data_ptr<scalar_t>(),
                                             dst.data_ptr<acc_t>(), outer, inner, t);
    } else {
      axis_pass_impl<scalar_t, scalar_t, acc_t>(src.const_data_ptr<scalar_t>(),
                                                dst.data_ptr<scalar_t>(), outer, inner, t);
    }
  });
}

at::Tensor resize_cpu(const at::Tensor& input, at::IntArrayRef output_size, c10::string_view mode,
                      bool align_corners, std::optional<at::ArrayRef<double>> scales,
                      bool antialias) {
  return resize_forward_impl(input, output_size, mode, align_corners, scales, antialias,
                             axis_pass_cpu);
}

at::Tensor resize_backward_cpu(const at::Tensor& grad_output, at::IntArrayRef input_size,
                               c10::string_view mode, bool align_corners,
                               std::optional<at::ArrayRef<double>> scales, bool antialias) {
  return resize_backward_impl(grad_output, input_size, mode, align_corners, scales, antialias,
                              axis_pass_cpu);
}

}  // namespace

TORCH_LIBRARY_IMPL(resize_ad, CPU, m) {
  m.impl("resize", &resize_cpu);
  m.impl("resize_backward", &resize_backward_cpu);
}

}  // namespace resize_ad
