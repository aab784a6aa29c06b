// CUDA kernels of two executors (common/plan.h): the separable passes and the product gather.
//
// Every kernel body is a functor of common/cuda_functors.h and every launch configuration comes
// from its launch function there; the host side (dispatch, tables, pointers) is
// common/cuda_executors.h. This file only launches them, so the CPU emulation of these kernels
// (cpu/cuda_emulation.cpp) runs everything but the launch itself.
//
// Every dst element is written by exactly one thread that gathers its window of src in table
// order, so results are deterministic and need no atomics; the backward is the same gather over
// the transposed tables. The tables are built on the device by the table-builder functors into
// buffers of torch's caching allocator on the current stream: no host staging, no copy and no
// synchronisation per call, so a captured CUDA graph replays them (a fixed-point uint8 table
// takes its int16 precision, a kernel argument, from the host's cached table).
//
// Headers are kept to c10/cuda and light ATen ones on purpose: ATen/cuda/CUDAContext.h pulls
// cuBLAS/cuSPARSE headers this toolkit lacks, and ATen/ATen.h makes nvcc noticeably slower.
#include <ATen/core/Tensor.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/library.h>

#include <initializer_list>

#include "../common/cuda_executors.h"
#include "../common/cuda_functors.h"
#include "../common/plan.h"

namespace resize_ad {
namespace {

template <class F>
__global__ void __launch_bounds__(cuda::kThreads) run_functor(const F f) {
  f(cuda::Idx3{blockIdx.x, blockIdx.y, blockIdx.z}, cuda::Idx3{threadIdx.x, threadIdx.y, threadIdx.z},
    cuda::Idx3{gridDim.x, gridDim.y, gridDim.z}, cuda::Idx3{blockDim.x, blockDim.y, blockDim.z});
}

struct CudaBackend {
  using Store = cuda::DirectStore;
  static cuda::GridCaps caps() { return {}; }
  template <class F>
  static void launch(const cuda::LaunchConfig& c, const F& f, std::initializer_list<cuda::Written>) {
    const dim3 grid(c.grid.x, c.grid.y, c.grid.z), block(c.block.x, c.block.y, c.block.z);
    run_functor<F><<<grid, block, 0, c10::cuda::getCurrentCUDAStream().stream()>>>(f);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  }
  template <typename acc_t>
  static void built(const AxisTable&, const cuda::DeviceTable<acc_t>&) {}
};

const DeviceKernels& cuda_kernels() {
  static const DeviceKernels k = cuda::device_kernels<CudaBackend>();
  return k;
}

at::Tensor resize_cuda(const at::Tensor& input, at::IntArrayRef output_size,
                       c10::string_view mode, bool align_corners,
                       std::optional<at::ArrayRef<double>> scales, bool antialias) {
  // Outputs, scratch tensors and tables are allocated on input's device: guard it so that they
  // land there and the current stream is that device's.
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
