// CUDA kernels of two executors (common/plan.h): the separable passes and the product gather.
//
// Every dst element is written by exactly one thread that gathers its window of src in table
// order (k = 0, 1, ...), so results are deterministic and need no atomics; the backward pass is
// the same gather over the transposed table (tables.h).
//
// Headers are kept to c10/cuda and light ATen ones on purpose: ATen/cuda/CUDAContext.h pulls
// cuBLAS/cuSPARSE headers this toolkit lacks, and ATen/ATen.h makes nvcc noticeably slower.
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
#include <cstring>
#include <limits>
#include <vector>

#include "../common/plan.h"
#include "../common/product_gather.h"

namespace resize_ad {
namespace {

constexpr int kThreads = 256;
// Grid caps: the y dimension is limited to 65535 by the hardware; x is capped well below its
// 2^31 - 1 limit as well. Both kernels use grid-stride loops, so the caps only bound the grid,
// never the problem size.
constexpr int64_t kMaxGridX = int64_t(1) << 20;
constexpr int64_t kMaxGridY = 65535;
// Widest thread-block extent along `inner` for the strided kernel: 128 consecutive elements
// per row keep warps fully coalesced while leaving >= 2 rows per block to share table loads.
constexpr int kMaxBlockX = 128;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// inner == 1 (the contiguous innermost axis): one thread per output element. Neighbouring
// threads read overlapping / nearby windows, which L1 serves; dst writes are coalesced.
// All offsets are int64: tensors may exceed 2^31 elements.
template <typename src_t, typename dst_t, typename acc_t>
__global__ void __launch_bounds__(kThreads)
    axis_pass_contig_kernel(const src_t* __restrict__ src, dst_t* __restrict__ dst, int64_t rows,
                            int64_t in_len, int64_t out_len, const int64_t* __restrict__ start,
                            const int64_t* __restrict__ len, const acc_t* __restrict__ w,
                            int64_t K) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; r < rows;
       r += stride) {
    const int64_t b = r / out_len;
    const int64_t o = r - b * out_len;
    const src_t* s = src + b * in_len + start[o];
    const acc_t* wo = w + o * K;
    const int64_t n = len[o];  // may be 0 for rows of a transposed table: writes 0
    acc_t sum = 0;
    for (int64_t k = 0; k < n; ++k) sum += wo[k] * static_cast<acc_t>(s[k]);
    dst[r] = static_cast<dst_t>(sum);
  }
}

// inner > 1: threadIdx.x runs along `inner` (contiguous in both src and dst, so loads and
// stores coalesce), threadIdx.y / blockIdx.y over the outer * out_len rows. For small inner
// (e.g. C = 3 in channels-last) blockDim.x shrinks to the next power of two and a warp spans
// several consecutive rows, whose dst elements are still adjacent in memory. All threads of a
// row read the same table entries, which the hardware broadcasts.
template <typename src_t, typename dst_t, typename acc_t>
__global__ void __launch_bounds__(kThreads)
    axis_pass_strided_kernel(const src_t* __restrict__ src, dst_t* __restrict__ dst, int64_t rows,
                             int64_t in_len, int64_t out_len, int64_t inner,
                             const int64_t* __restrict__ start, const int64_t* __restrict__ len,
                             const acc_t* __restrict__ w, int64_t K) {
  const int64_t row_stride = static_cast<int64_t>(gridDim.y) * blockDim.y;
  const int64_t col_stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t col0 = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (int64_t r = static_cast<int64_t>(blockIdx.y) * blockDim.y + threadIdx.y; r < rows;
       r += row_stride) {
    const int64_t b = r / out_len;
    const int64_t o = r - b * out_len;
    const src_t* s = src + (b * in_len + start[o]) * inner;
    dst_t* d = dst + r * inner;
    const acc_t* wo = w + o * K;
    const int64_t n = len[o];
    for (int64_t j = col0; j < inner; j += col_stride) {
      const src_t* sj = s + j;
      acc_t sum = 0;
      for (int64_t k = 0; k < n; ++k) sum += wo[k] * static_cast<acc_t>(sj[k * inner]);
      d[j] = static_cast<dst_t>(sum);
    }
  }
}

// Packs start, len (int64) and the weights (already in acc_t, so the kernel never converts
// them) into one byte buffer and uploads it with a single H2D copy. Layout:
//   [start: out_size x int64][len: out_size x int64][w: out_size * K x acc_t]
// The weights begin at a multiple of 8 bytes, so they are aligned for float and double.
// The staging buffer is pinned so the copy can be truly asynchronous; the caching host
// allocator records an event on the stream and does not reuse the block before the copy ran.
template <typename acc_t>
at::Tensor upload_table(const AxisTable& t, const c10::Device& device) {
  const int64_t n = t.out_size;
  TORCH_INTERNAL_ASSERT(static_cast<int64_t>(t.start.size()) == n &&
                        static_cast<int64_t>(t.len.size()) == n &&
                        static_cast<int64_t>(t.w.size()) == n * t.K);
  const int64_t idx_bytes = 2 * n * static_cast<int64_t>(sizeof(int64_t));
  const int64_t w_bytes = n * t.K * static_cast<int64_t>(sizeof(acc_t));
  at::Tensor host = at::empty({idx_bytes + w_bytes},
                              at::TensorOptions().dtype(at::kByte).pinned_memory(true));
  uint8_t* p = host.mutable_data_ptr<uint8_t>();
  std::memcpy(p, t.start.data(), n * sizeof(int64_t));
  std::memcpy(p + n * sizeof(int64_t), t.len.data(), n * sizeof(int64_t));
  acc_t* w = reinterpret_cast<acc_t*>(p + idx_bytes);
  for (int64_t i = 0; i < n * t.K; ++i) w[i] = static_cast<acc_t>(t.w[i]);
  return host.to(at::TensorOptions().device(device), /*non_blocking=*/true);
}

template <typename src_t, typename dst_t, typename acc_t>
void launch_axis_pass(const at::Tensor& src, const at::Tensor& dst, int64_t outer, int64_t inner,
                      const AxisTable& t) {
  // Keeps the device table alive until the kernel is enqueued; freeing it afterwards is safe
  // because the caching allocator only hands it out again to work on this same stream.
  const at::Tensor table = upload_table<acc_t>(t, src.device());
  const uint8_t* base = table.const_data_ptr<uint8_t>();
  const int64_t n = t.out_size;
  const int64_t* start = reinterpret_cast<const int64_t*>(base);
  const int64_t* len = start + n;
  const acc_t* w = reinterpret_cast<const acc_t*>(base + 2 * n * sizeof(int64_t));

  const src_t* s = src.const_data_ptr<src_t>();
  dst_t* d = dst.mutable_data_ptr<dst_t>();
  const int64_t rows = outer * t.out_size;
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream().stream();

  if (inner == 1) {
    const dim3 grid(static_cast<unsigned>(std::min(ceil_div(rows, kThreads), kMaxGridX)));
    axis_pass_contig_kernel<src_t, dst_t, acc_t><<<grid, kThreads, 0, stream>>>(
        s, d, rows, t.in_size, t.out_size, start, len, w, t.K);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return;
  }
  int bx = 1;
  while (bx < inner && bx < kMaxBlockX) bx *= 2;
  const int by = kThreads / bx;
  const dim3 block(bx, by);
  const dim3 grid(static_cast<unsigned>(std::min(ceil_div(inner, bx), kMaxGridX)),
                  static_cast<unsigned>(std::min(ceil_div(rows, by), kMaxGridY)));
  axis_pass_strided_kernel<src_t, dst_t, acc_t><<<grid, block, 0, stream>>>(
      s, d, rows, t.in_size, t.out_size, inner, start, len, w, t.K);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

void axis_pass_cuda(const at::Tensor& src, const at::Tensor& dst, at::ScalarType orig,
                    int64_t outer, int64_t inner, const AxisTable& t) {
  // orig: the plan's kernel dtype
  TORCH_INTERNAL_ASSERT(src.is_cuda() && dst.device() == src.device());
  TORCH_INTERNAL_ASSERT(src.is_contiguous() && dst.is_contiguous());
  TORCH_INTERNAL_ASSERT(src.numel() == outer * t.in_size * inner &&
                        dst.numel() == outer * t.out_size * inner);
  if (dst.numel() == 0) return;
  const c10::cuda::CUDAGuard guard(src.device());
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, orig, "resize_ad_axis_pass_cuda", [&] {
    using acc_t = at::opmath_type<scalar_t>;
    const at::ScalarType acc = c10::CppTypeToScalarType<acc_t>::value;
    TORCH_INTERNAL_ASSERT(src.scalar_type() == orig || src.scalar_type() == acc);
    TORCH_INTERNAL_ASSERT(dst.scalar_type() == orig || dst.scalar_type() == acc);
    // For float and double acc_t == scalar_t, so these flags are false and only one
    // instantiation exists; half and bfloat16 get all four combinations.
    const bool src_acc = src.scalar_type() != orig;
    const bool dst_acc = dst.scalar_type() != orig;
    if (src_acc && dst_acc) {
      launch_axis_pass<acc_t, acc_t, acc_t>(src, dst, outer, inner, t);
    } else if (src_acc) {
      launch_axis_pass<acc_t, scalar_t, acc_t>(src, dst, outer, inner, t);
    } else if (dst_acc) {
      launch_axis_pass<scalar_t, acc_t, acc_t>(src, dst, outer, inner, t);
    } else {
      launch_axis_pass<scalar_t, scalar_t, acc_t>(src, dst, outer, inner, t);
    }
  });
}

// The product gather (common/product_gather.h): one thread per output element reads the
// product window of every resampled axis directly from the input, skipping the scratch tensors
// of the separable passes. The element function is the one the CPU reference runs in tests.
template <typename scalar_t, typename acc_t, typename index_t>
__global__ void __launch_bounds__(kThreads)
    gather_element_kernel(const GatherPlan<acc_t> plan, const scalar_t* __restrict__ src,
                        scalar_t* __restrict__ dst, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    dst[i] = static_cast<scalar_t>(
        gather_element<scalar_t, acc_t, index_t>(plan, src, static_cast<index_t>(i)));
  }
}

// All axes' tables in one buffer and one H2D copy:
//   [start_0, len_0, start_1, len_1, ... : int64][w_0, w_1, ... : acc_t]
template <typename acc_t>
at::Tensor upload_tables(const std::vector<const AxisTable*>& tables, const c10::Device& device,
                         std::vector<int64_t>& int_offsets, std::vector<int64_t>& w_offsets) {
  int64_t ints = 0, ws = 0;
  for (const AxisTable* t : tables) {
    int_offsets.push_back(ints);
    w_offsets.push_back(ws);
    ints += 2 * t->out_size;
    ws += t->out_size * t->K;
  }
  const int64_t int_bytes = ints * static_cast<int64_t>(sizeof(int64_t));
  at::Tensor host = at::empty({int_bytes + ws * static_cast<int64_t>(sizeof(acc_t))},
                              at::TensorOptions().dtype(at::kByte).pinned_memory(true));
  uint8_t* p = host.mutable_data_ptr<uint8_t>();
  int64_t* ip = reinterpret_cast<int64_t*>(p);
  acc_t* wp = reinterpret_cast<acc_t*>(p + int_bytes);
  for (size_t a = 0; a < tables.size(); ++a) {
    const AxisTable& t = *tables[a];
    std::memcpy(ip + int_offsets[a], t.start.data(), t.out_size * sizeof(int64_t));
    std::memcpy(ip + int_offsets[a] + t.out_size, t.len.data(), t.out_size * sizeof(int64_t));
    for (int64_t i = 0; i < t.out_size * t.K; ++i)
      wp[w_offsets[a] + i] = static_cast<acc_t>(t.w[i]);
  }
  return host.to(at::TensorOptions().device(device), /*non_blocking=*/true);
}

void product_gather_cuda(const at::Tensor& src, const at::Tensor& dst,
                         const std::vector<int64_t>& pos, const std::vector<const AxisTable*>& tables) {
  TORCH_INTERNAL_ASSERT(src.is_cuda() && dst.device() == src.device());
  TORCH_INTERNAL_ASSERT(src.is_contiguous() && dst.is_contiguous());
  const at::ScalarType orig = src.scalar_type();
  TORCH_INTERNAL_ASSERT(dst.scalar_type() == orig);
  const int64_t n = dst.numel();
  if (n == 0) return;
  const c10::cuda::CUDAGuard guard(src.device());
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, orig, "resize_ad_product_gather_cuda", [&] {
    using acc_t = at::opmath_type<scalar_t>;
    std::vector<int64_t> int_off, w_off;
    const at::Tensor buf = upload_tables<acc_t>(tables, src.device(), int_off, w_off);
    const uint8_t* base = buf.const_data_ptr<uint8_t>();
    int64_t ints = 0;
    for (const AxisTable* t : tables) ints += 2 * t->out_size;
    const int64_t* ip = reinterpret_cast<const int64_t*>(base);
    const acc_t* wp = reinterpret_cast<const acc_t*>(base + ints * sizeof(int64_t));
    std::vector<const int64_t*> starts, lens;
    std::vector<const acc_t*> ws;
    for (size_t a = 0; a < tables.size(); ++a) {
      starts.push_back(ip + int_off[a]);
      lens.push_back(ip + int_off[a] + tables[a]->out_size);
      ws.push_back(wp + w_off[a]);
    }
    const auto plan =
        make_gather_plan<acc_t>(src.sizes(), dst.sizes(), pos, tables, starts, lens, ws);
    const dim3 grid(static_cast<unsigned>(std::min(ceil_div(n, kThreads), kMaxGridX)));
    cudaStream_t stream = c10::cuda::getCurrentCUDAStream().stream();
    const int64_t int32_max = std::numeric_limits<int32_t>::max();
    if (src.numel() <= int32_max && n <= int32_max) {
      gather_element_kernel<scalar_t, acc_t, int32_t><<<grid, kThreads, 0, stream>>>(
          plan, src.const_data_ptr<scalar_t>(), dst.mutable_data_ptr<scalar_t>(), n);
    } else {
      gather_element_kernel<scalar_t, acc_t, int64_t><<<grid, kThreads, 0, stream>>>(
          plan, src.const_data_ptr<scalar_t>(), dst.mutable_data_ptr<scalar_t>(), n);
    }
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

// The cost model takes the product gather when the product window has at most 16 taps
// (nearest, linear in 1-3 D, bicubic 2-D, and the transposed tables of moderate resizes);
// wider windows (antialias, area and large downscales) go through the separable passes, whose
// work is a sum of widths.
const DeviceKernels& cuda_kernels() {
  static const DeviceKernels k = [] {
    DeviceKernels d;
    d.pass = axis_pass_cuda;
    d.product_gather = product_gather_cuda;
    d.gather_max_taps = 16;
    d.native_fma = true;  // nvcc contracts native's kernels (--fmad=true is its default)
    return d;
  }();
  return k;
}

at::Tensor resize_cuda(const at::Tensor& input, at::IntArrayRef output_size,
                       c10::string_view mode, bool align_corners,
                       std::optional<at::ArrayRef<double>> scales, bool antialias) {
  // Outputs and scratch tensors are allocated by the executors on input's device: guard it so
  // that they land there and the current stream is that device's.
  const c10::cuda::CUDAGuard guard(input.device());
  return resize_forward(input, output_size, mode, align_corners, scales, antialias, cuda_kernels());
}

at::Tensor resize_backward_cuda(const at::Tensor& grad_output, at::IntArrayRef input_size,
                                c10::string_view mode, bool align_corners,
                                std::optional<at::ArrayRef<double>> scales, bool antialias) {
  const c10::cuda::CUDAGuard guard(grad_output.device());
  return resize_backward(grad_output, input_size, mode, align_corners, scales, antialias,
                         cuda_kernels());
}

}  // namespace

TORCH_LIBRARY_IMPL(resize_ad, CUDA, m) {
  m.impl("resize", &resize_cuda);
  m.impl("resize_backward", &resize_backward_cuda);
}

}  // namespace resize_ad
