// CUDA kernels of the banded-table ops (common/band.h), the same sums as cpu/band_cpu.cpp.
//
// band_apply and band_apply_transposed: one thread per output element gathers its taps in
// table order. band_weight_grad: one block per table entry reduces over the other axes in a
// fixed order (strided partial sums, then a shared-memory tree). Every result has one writer:
// deterministic, no atomics.
//
// Only c10/cuda headers: ATen/cuda/CUDAContext.h needs cuSPARSE headers this toolkit lacks.
#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/library.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "../common/band.h"

namespace resize_ad {
namespace {

constexpr int kThreads = 256;
// The grid is capped and every kernel loops with a grid stride, so any size fits.
constexpr int64_t kMaxBlocks = int64_t(1) << 20;

int blocks_for(int64_t n) {
  return static_cast<int>(std::max<int64_t>(1, std::min(kMaxBlocks, (n + kThreads - 1) / kThreads)));
}

template <typename scalar_t>
__global__ void band_apply_kernel(const scalar_t* __restrict__ x, scalar_t* __restrict__ y,
                                  const int64_t* __restrict__ start,
                                  const scalar_t* __restrict__ w, int64_t total, int64_t in_len,
                                  int64_t out_len, int64_t inner, int64_t K) {
  using acc_t = at::opmath_type<scalar_t>;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += stride) {
    const int64_t j = e % inner;
    const int64_t r = e / inner;
    const int64_t o = r % out_len, b = r / out_len;
    acc_t acc = 0;
    for (int64_t k = 0; k < K; ++k) {
      const int64_t i = start[o] + k;
      if (i < 0 || i >= in_len) continue;
      acc += static_cast<acc_t>(w[o * K + k]) * static_cast<acc_t>(x[(b * in_len + i) * inner + j]);
    }
    y[e] = static_cast<scalar_t>(acc);
  }
}

// First o in [0, n) with start[o] > v (start is non-decreasing).
__device__ int64_t upper_bound_dev(const int64_t* start, int64_t n, int64_t v) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (start[mid] <= v) lo = mid + 1; else hi = mid;
  }
  return lo;
}

template <typename scalar_t>
__global__ void band_apply_transposed_kernel(const scalar_t* __restrict__ g,
                                             scalar_t* __restrict__ gx,
                                             const int64_t* __restrict__ start,
                                             const scalar_t* __restrict__ w, int64_t total,
                                             int64_t in_len, int64_t out_len, int64_t inner,
                                             int64_t K) {
  using acc_t = at::opmath_type<scalar_t>;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += stride) {
    const int64_t j = e % inner;
    const int64_t r = e / inner;
    const int64_t i = r % in_len, b = r / in_len;
    const int64_t o_lo = upper_bound_dev(start, out_len, i - K);
    const int64_t o_hi = upper_bound_dev(start, out_len, i);
    acc_t acc = 0;
    for (int64_t o = o_lo; o < o_hi; ++o) {
      acc += static_cast<acc_t>(w[o * K + (i - start[o])]) *
             static_cast<acc_t>(g[(b * out_len + o) * inner + j]);
    }
    gx[e] = static_cast<scalar_t>(acc);
  }
}

template <typename scalar_t>
__global__ void band_weight_grad_kernel(const scalar_t* __restrict__ g,
                                        const scalar_t* __restrict__ x,
                                        scalar_t* __restrict__ gw,
                                        const int64_t* __restrict__ start, int64_t entries,
                                        int64_t outer, int64_t in_len, int64_t out_len,
                                        int64_t inner, int64_t K) {
  using acc_t = at::opmath_type<scalar_t>;
  __shared__ acc_t partial[kThreads];
  const int64_t n = outer * inner;
  for (int64_t r = blockIdx.x; r < entries; r += gridDim.x) {
    const int64_t o = r / K, k = r - o * K;
    const int64_t i = start[o] + k;
    acc_t acc = 0;
    if (i >= 0 && i < in_len) {
      for (int64_t e = threadIdx.x; e < n; e += blockDim.x) {
        const int64_t b = e / inner, j = e - b * inner;
        acc += static_cast<acc_t>(g[(b * out_len + o) * inner + j]) *
               static_cast<acc_t>(x[(b * in_len + i) * inner + j]);
      }
    }
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (int s = kThreads / 2; s > 0; s >>= 1) {
      if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
      __syncthreads();
    }
    if (threadIdx.x == 0) gw[r] = static_cast<scalar_t>(partial[0]);
    __syncthreads();
  }
}

std::vector<int64_t> with_length(const at::Tensor& t, int64_t dim, int64_t length) {
  std::vector<int64_t> sizes(t.sizes().begin(), t.sizes().end());
  sizes[dim] = length;
  return sizes;
}

at::Tensor band_apply_cuda(const at::Tensor& x_, const at::Tensor& start_,
                           const at::Tensor& weight_, int64_t dim) {
  check_band_apply_args(x_, start_, weight_, dim);
  const c10::cuda::CUDAGuard guard(x_.device());
  const at::Tensor x = x_.contiguous(), start = start_.contiguous(), w = weight_.contiguous();
  const int64_t O = start.size(0), K = w.size(1), I = x.size(dim);
  at::Tensor y = at::empty(with_length(x, dim, O), x.options());
  if (y.numel() == 0) return y;
  const BandShape s = band_shape(x, dim);
  const int64_t total = y.numel();
  auto stream = c10::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, x.scalar_type(), "band_apply", [&] {
    band_apply_kernel<scalar_t><<<blocks_for(total), kThreads, 0, stream>>>(
        x.const_data_ptr<scalar_t>(), y.mutable_data_ptr<scalar_t>(),
        start.const_data_ptr<int64_t>(), w.const_data_ptr<scalar_t>(), total, I, O, s.inner, K);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  });
  return y;
}

// The window starts must be non-decreasing (scale_and_translate's always are); checking that
// here would cost a device sync, so the CUDA kernel trusts it (the CPU kernel checks it).
at::Tensor band_apply_transposed_cuda(const at::Tensor& g_, const at::Tensor& start_,
                                      const at::Tensor& weight_, int64_t dim,
                                      int64_t input_length) {
  check_band_apply_transposed_args(g_, start_, weight_, dim, input_length);
  const c10::cuda::CUDAGuard guard(g_.device());
  const at::Tensor g = g_.contiguous(), start = start_.contiguous(), w = weight_.contiguous();
  const int64_t O = start.size(0), K = w.size(1);
  at::Tensor gx = at::empty(with_length(g, dim, input_length), g.options());
  if (gx.numel() == 0) return gx;
  const BandShape s = band_shape(g, dim);
  const int64_t total = gx.numel();
  auto stream = c10::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, g.scalar_type(),
                                  "band_apply_transposed", [&] {
    band_apply_transposed_kernel<scalar_t><<<blocks_for(total), kThreads, 0, stream>>>(
        g.const_data_ptr<scalar_t>(), gx.mutable_data_ptr<scalar_t>(),
        start.const_data_ptr<int64_t>(), w.const_data_ptr<scalar_t>(), total, input_length, O,
        s.inner, K);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  });
  return gx;
}

at::Tensor band_weight_grad_cuda(const at::Tensor& g_, const at::Tensor& x_,
                                 const at::Tensor& start_, int64_t dim, int64_t taps) {
  check_band_weight_grad_args(g_, x_, start_, dim, taps);
  const c10::cuda::CUDAGuard guard(g_.device());
  const at::Tensor g = g_.contiguous(), x = x_.contiguous(), start = start_.contiguous();
  const int64_t O = start.size(0), I = x.size(dim);
  at::Tensor gw = at::empty({O, taps}, g.options());
  if (gw.numel() == 0) return gw;
  const BandShape s = band_shape(g, dim);
  const int64_t entries = gw.numel();
  const int blocks = static_cast<int>(std::min<int64_t>(entries, kMaxBlocks));
  auto stream = c10::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, g.scalar_type(), "band_weight_grad",
                                  [&] {
    band_weight_grad_kernel<scalar_t><<<blocks, kThreads, 0, stream>>>(
        g.const_data_ptr<scalar_t>(), x.const_data_ptr<scalar_t>(),
        gw.mutable_data_ptr<scalar_t>(), start.const_data_ptr<int64_t>(), entries, s.outer, I, O,
        s.inner, taps);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  });
  return gw;
}

}  // namespace
}  // namespace resize_ad

TORCH_LIBRARY_IMPL(resize_ad, CUDA, m) {
  m.impl("band_apply", &resize_ad::band_apply_cuda);
  m.impl("band_apply_transposed", &resize_ad::band_apply_transposed_cuda);
  m.impl("band_weight_grad", &resize_ad::band_weight_grad_cuda);
}
