// The product gather executor's element function: every output element reads the product
// window of all resampled axes at once, y[o] = sum_k prod_a w_a[o_a, k_a] * x[start(o) + k].
// One C10_HOST_DEVICE function serves the CUDA kernel and its CPU reference (cpu/resize_cpu.cpp,
// which the tests run as the forced executor against the other two), so the index math that the
// GPU runs is tested on every machine.
//
// Tensors are in physical (memory) order and contiguous there; the tables are the same
// AxisTable rows as the other executors', with weights already in the accumulation type.
#pragma once

#include <c10/macros/Macros.h>

#include <cstdint>

namespace resize_ad {

constexpr int kMaxDims = 5;
constexpr int kMaxGatherAxes = 3;  // spatial axes: at most 3

template <typename acc_t>
struct GatherPlan {
  int ndim = 0;                       // physical rank, 3..5
  int64_t out_sizes[kMaxDims] = {};   // physical order
  int64_t in_strides[kMaxDims] = {};  // contiguous strides of src, physical order
  int naxes = 0;                      // resampled axes, 1..3
  int pos[kMaxGatherAxes] = {};        // their physical positions
  int64_t K[kMaxGatherAxes] = {};      // row stride of each weight table
  const int64_t* start[kMaxGatherAxes] = {};
  const int64_t* len[kMaxGatherAxes] = {};
  const acc_t* w[kMaxGatherAxes] = {};
};

// Sum over the product window of output element `index` (linear, physical order). Taps are
// visited axis by axis in increasing input index, as the separable passes visit them.
// index_t is int32_t when every offset fits (cheaper division on the GPU), else int64_t.
template <typename src_t, typename acc_t, typename index_t>
C10_HOST_DEVICE inline acc_t gather_element(const GatherPlan<acc_t>& p, const src_t* src,
                                          index_t index) {
  int64_t base = 0;
  int64_t o[kMaxGatherAxes] = {0, 0, 0};
  for (int d = p.ndim - 1; d >= 0; --d) {
    const index_t size = static_cast<index_t>(p.out_sizes[d]);
    const index_t c = index % size;
    index /= size;
    bool resampled = false;
    for (int a = 0; a < p.naxes; ++a) {
      if (p.pos[a] == d) {
        o[a] = c;
        resampled = true;
      }
    }
    if (!resampled) base += c * p.in_strides[d];
  }
  int64_t n[kMaxGatherAxes] = {1, 1, 1};
  int64_t off[kMaxGatherAxes] = {0, 0, 0};
  int64_t step[kMaxGatherAxes] = {0, 0, 0};
  const acc_t* w[kMaxGatherAxes] = {nullptr, nullptr, nullptr};
  for (int a = 0; a < p.naxes; ++a) {
    n[a] = p.len[a][o[a]];
    step[a] = p.in_strides[p.pos[a]];
    off[a] = p.start[a][o[a]] * step[a];
    w[a] = p.w[a] + o[a] * p.K[a];
  }
  acc_t sum = 0;
  for (int64_t k0 = 0; k0 < n[0]; ++k0) {
    const acc_t w0 = p.naxes > 0 ? w[0][k0] : acc_t(1);
    const int64_t off0 = base + off[0] + k0 * step[0];
    for (int64_t k1 = 0; k1 < n[1]; ++k1) {
      const acc_t w01 = p.naxes > 1 ? w0 * w[1][k1] : w0;
      const int64_t off1 = off0 + off[1] + k1 * step[1];
      for (int64_t k2 = 0; k2 < n[2]; ++k2) {
        const acc_t w012 = p.naxes > 2 ? w01 * w[2][k2] : w01;
        sum += w012 * static_cast<acc_t>(src[off1 + off[2] + k2 * step[2]]);
      }
    }
  }
  return sum;
}

}  // namespace resize_ad

#if !defined(__CUDACC_RTC__)
#include <c10/util/ArrayRef.h>
#include <c10/util/Exception.h>

#include <vector>

#include "tables.h"

namespace resize_ad {

// Fills a GatherPlan from the executor's arguments; the table pointers are where each device
// keeps start / len / weights (host vectors on the CPU; on CUDA the buffers the table-builder
// functors filled: cuda_executors.h).
template <typename acc_t>
GatherPlan<acc_t> make_gather_plan(c10::IntArrayRef src_sizes, c10::IntArrayRef dst_sizes,
                                 const std::vector<int64_t>& pos,
                                 const std::vector<const AxisTable*>& tables,
                                 const std::vector<const int64_t*>& starts,
                                 const std::vector<const int64_t*>& lens,
                                 const std::vector<const acc_t*>& ws) {
  TORCH_INTERNAL_ASSERT(src_sizes.size() == dst_sizes.size() && src_sizes.size() <= kMaxDims);
  TORCH_INTERNAL_ASSERT(!tables.empty() && tables.size() <= kMaxGatherAxes);
  GatherPlan<acc_t> p;
  p.ndim = static_cast<int>(src_sizes.size());
  int64_t stride = 1;
  for (int d = p.ndim - 1; d >= 0; --d) {
    p.out_sizes[d] = dst_sizes[d];
    p.in_strides[d] = stride;
    stride *= src_sizes[d];
  }
  p.naxes = static_cast<int>(tables.size());
  for (int a = 0; a < p.naxes; ++a) {
    p.pos[a] = static_cast<int>(pos[a]);
    p.K[a] = tables[a]->K;
    p.start[a] = starts[a];
    p.len[a] = lens[a];
    p.w[a] = ws[a];
  }
  return p;
}

}  // namespace resize_ad
#endif
