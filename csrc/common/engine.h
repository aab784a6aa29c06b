// Device-independent driver of the separable engine: argument checks, output allocation in
// the memory format native gives, pass planning. Each device supplies one AxisPass.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Allocator.h>
#include <c10/util/string_view.h>

#include <optional>
#include <vector>

#include "tables.h"

namespace resize_ad {

// Applies one axis table along the middle dimension of src viewed as [outer, in_len, inner]
// (contiguous), writing dst viewed as [outer, out_len, inner] (contiguous). `orig` is the dtype
// of the op's input; src and dst are either that dtype or its accumulation type (float for
// half and bfloat16).
using AxisPass = void (*)(const at::Tensor& src, const at::Tensor& dst, at::ScalarType orig,
                          int64_t outer, int64_t inner, const AxisTable& table);

// Applies every resampled axis in one gather (fused.h): src is the input in physical order
// (contiguous there, dtype `orig`), dst the output in physical order; pos[i] is the physical
// position of the axis of tables[i].
using FusedApply = void (*)(const at::Tensor& src, const at::Tensor& dst, at::ScalarType orig,
                            const std::vector<int64_t>& pos,
                            const std::vector<const AxisTable*>& tables);

// Optional (CPU): applies every spatial table in one sweep (no intermediate tensors). src is
// viewed as [outer, in_1, ..., in_k, inner] and dst as [outer, out_1, ..., out_k, inner], both
// contiguous and of the op's dtype; tables[i] is the table of the i-th spatial axis in that
// (physical) order, identity tables included. The engine calls it instead of the AxisPass
// sequence when its cost model (engine.cpp) says the sweep does less work.
using SweepPass = void (*)(const at::Tensor& src, const at::Tensor& dst, int64_t outer,
                           int64_t inner, const std::vector<const AxisTable*>& tables);

// A device's engines: the separable pass always, the fused gather optionally, used when the
// product of the resampled axes' window widths is at most max_fused_taps (the cost model:
// narrow windows read each input a few times from cache and skip the scratch buffers).
struct Engines {
  AxisPass pass = nullptr;
  FusedApply fused = nullptr;
  int64_t max_fused_taps = 0;
  SweepPass sweep = nullptr;
  c10::Allocator* allocator = nullptr;  // of outputs and intermediates (default: the device's)
};

at::Tensor resize_forward_impl(const at::Tensor& input, at::IntArrayRef output_size,
                               c10::string_view mode, bool align_corners,
                               std::optional<at::ArrayRef<double>> scales, bool antialias,
                               AxisPass pass);
at::Tensor resize_forward_impl(const at::Tensor& input, at::IntArrayRef output_size,
                               c10::string_view mode, bool align_corners,
                               std::optional<at::ArrayRef<double>> scales, bool antialias,
                               const Engines& engines);

at::Tensor resize_backward_impl(const at::Tensor& grad_output, at::IntArrayRef input_size,
                                c10::string_view mode, bool align_corners,
                                std::optional<at::ArrayRef<double>> scales, bool antialias,
                                AxisPass pass);
at::Tensor resize_backward_impl(const at::Tensor& grad_output, at::IntArrayRef input_size,
                                c10::string_view mode, bool align_corners,
                                std::optional<at::ArrayRef<double>> scales, bool antialias,
                                const Engines& engines);

}  // namespace resize_ad
