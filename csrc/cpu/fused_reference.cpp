// resize_ad::_fused_reference: the fused gather of fused.h run on the CPU, serially per
// element. Not a fast path: it exists so that the element function the CUDA kernel runs is
// checked against the separable engine by the tests on any machine.
#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <ATen/Parallel.h>
#include <torch/library.h>

#include <limits>

#include "../common/engine.h"
#include "../common/fused.h"

namespace resize_ad {
namespace {

void fused_cpu(const at::Tensor& src, const at::Tensor& dst, at::ScalarType orig,
               const std::vector<int64_t>& pos, const std::vector<const AxisTable*>& tables) {
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, orig, "resize_ad_fused_cpu", [&] {
    using acc_t = at::opmath_type<scalar_t>;
    std::vector<std::vector<acc_t>> weights;
    std::vector<const int64_t*> starts, lens;
    std::vector<const acc_t*> ws;
    for (const AxisTable* t : tables) {
      weights.emplace_back(t->w.begin(), t->w.end());
      starts.push_back(t->start.data());
      lens.push_back(t->len.data());
    }
    for (const auto& w : weights) ws.push_back(w.data());
    const auto plan =
        make_fused_plan<acc_t>(src.sizes(), dst.sizes(), pos, tables, starts, lens, ws);
    const scalar_t* s = src.const_data_ptr<scalar_t>();
    scalar_t* d = dst.mutable_data_ptr<scalar_t>();
    at::parallel_for(0, dst.numel(), 4096, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        d[i] = static_cast<scalar_t>(fused_gather<scalar_t, acc_t, int64_t>(plan, s, i));
    });
  });
}

void no_pass(const at::Tensor&, const at::Tensor&, at::ScalarType, int64_t, int64_t,
             const AxisTable&) {
  TORCH_CHECK(false, "resize_ad::_fused_reference supports at most 3 resampled axes");
}

at::Tensor fused_reference(const at::Tensor& x, at::IntArrayRef size, c10::string_view mode,
                           bool align_corners, std::optional<at::ArrayRef<double>> scales,
                           bool antialias, bool backward) {
  Engines engines;
  engines.pass = no_pass;
  engines.fused = fused_cpu;
  engines.max_fused_taps = std::numeric_limits<int64_t>::max();
  return backward ? resize_backward_impl(x, size, mode, align_corners, scales, antialias, engines)
                  : resize_forward_impl(x, size, mode, align_corners, scales, antialias, engines);
}

}  // namespace

TORCH_LIBRARY_IMPL(resize_ad, CPU, m) {
  m.impl("_fused_reference", &fused_reference);
}

}  // namespace resize_ad
