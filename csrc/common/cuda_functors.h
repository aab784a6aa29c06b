// The bodies of every CUDA kernel of resize_ad, as C10_HOST_DEVICE functors, and the one host
// function per kernel kind that gives its launch configuration.
//
// A functor takes the block index, thread index, grid size and block size as arguments instead
// of reading CUDA's built-in variables, so that the same code runs as a kernel
// (cuda/resize_cuda.cu launches `f(blockIdx, threadIdx, gridDim, blockDim)`) and on the CPU in a
// loop over exactly the grid and block its launch function computes
// (cpu/cuda_emulation.cpp, tests/test_cuda_emulated.py). Every store goes through the Store
// policy: DirectStore on the device, a write counter in the emulation (one writer per element
// is checked, not assumed).
//
// Plain C++ besides C10_HOST_DEVICE: this header compiles with nvcc and with the host compiler,
// without CUDA headers.
#pragma once

#include <c10/macros/Macros.h>

#include <cstdint>

#include "product_gather.h"
#include "rows.h"

namespace resize_ad {
namespace cuda {

// CUDA's uint3 / dim3, for the functors' arguments and the launch configurations.
struct Idx3 {
  uint32_t x = 0, y = 0, z = 0;
};

struct LaunchConfig {
  Idx3 grid{1, 1, 1};
  Idx3 block{1, 1, 1};
};

// Threads per block of every kernel (the kernels' __launch_bounds__).
constexpr int kThreads = 256;

// Grid caps. The hardware limits y to 65535 and x to 2^31 - 1; x is capped well below that too.
// Every functor loops grid-stride, so the caps bound the grid, never the problem size; tests
// lower them to run those loops.
struct GridCaps {
  int64_t x = int64_t(1) << 20;
  int64_t y = 65535;
};

// The product gather takes a product window of at most this many taps (cost model, plan.h):
// nearest, linear in 1-3 D, bicubic 2-D and the transposed tables of moderate resizes.
constexpr int64_t kGatherMaxTaps = 16;

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

inline LaunchConfig one_dim_launch(int64_t n, const GridCaps& caps) {
  LaunchConfig c;
  const int64_t blocks = ceil_div(n, kThreads);
  c.grid.x = static_cast<uint32_t>(blocks < caps.x ? (blocks < 1 ? 1 : blocks) : caps.x);
  c.block.x = kThreads;
  return c;
}

// Table builders (BuildRows, BuildTransposed): one thread per table row.
inline LaunchConfig table_launch(int64_t rows, const GridCaps& caps = {}) {
  return one_dim_launch(rows, caps);
}

// PassContig: one thread per output element.
inline LaunchConfig pass_contig_launch(int64_t elements, const GridCaps& caps = {}) {
  return one_dim_launch(elements, caps);
}

// Widest block extent along `inner` for PassStrided: 128 consecutive elements per row keep warps
// fully coalesced while leaving >= 2 rows per block to share table loads.
constexpr int kMaxBlockX = 128;

// PassStrided: x along `inner`, y over the rows. For small inner (e.g. C = 3 in channels-last)
// block.x shrinks to the next power of two and a warp spans several consecutive rows, whose dst
// elements are still adjacent in memory.
inline LaunchConfig pass_strided_launch(int64_t rows, int64_t inner, const GridCaps& caps = {}) {
  LaunchConfig c;
  int64_t bx = 1;
  while (bx < inner && bx < kMaxBlockX) bx *= 2;
  const int64_t by = kThreads / bx;
  const int64_t gx = ceil_div(inner, bx), gy = ceil_div(rows, by);
  c.block.x = static_cast<uint32_t>(bx);
  c.block.y = static_cast<uint32_t>(by);
  c.grid.x = static_cast<uint32_t>(gx < caps.x ? gx : caps.x);
  c.grid.y = static_cast<uint32_t>(gy < caps.y ? (gy < 1 ? 1 : gy) : caps.y);
  return c;
}

// Gather: one thread per output element.
inline LaunchConfig gather_launch(int64_t elements, const GridCaps& caps = {}) {
  return one_dim_launch(elements, caps);
}

struct DirectStore {
  template <typename T>
  C10_HOST_DEVICE static void put(T* p, int64_t i, T v) {
    p[i] = v;
  }
};

C10_HOST_DEVICE inline int64_t first_x(Idx3 block, Idx3 thread, Idx3 bdim) {
  return static_cast<int64_t>(block.x) * bdim.x + thread.x;
}
C10_HOST_DEVICE inline int64_t stride_x(Idx3 grid, Idx3 bdim) {
  return static_cast<int64_t>(grid.x) * bdim.x;
}

// Forward table rows from the row formulas (rows.h, the same code the host table builder runs,
// so a device table is the host's bit for bit): row o into its slot of `scratch` (row_capacity
// doubles: a formula may write that many before its trim), then the exact-zero weights at both
// ends trimmed (tables.cpp trim_zeros: an inf times such a weight must not become NaN) and the
// rest stored in acc_t at stride K. precision > 0 (uint8): the weights are first quantised to
// ATen's int16 fixed point (rows::fixed_point_weight, as the host's quantize_u8), so that a zero
// they round to is trimmed too. key_start / key_end (or null): the untrimmed windows, which
// are non-decreasing in o for every mode (a row without taps lies past the input: its end is
// `in`), the search keys of BuildTransposed.
template <class Store, bool Fma, typename T, typename acc_t>
struct BuildRows {
  rows::AxisParams<T> p;
  int64_t cap = 0;
  int64_t K = 0;
  int precision = 0;
  double* scratch = nullptr;
  int64_t* start = nullptr;
  int64_t* len = nullptr;
  acc_t* w = nullptr;
  int64_t* key_start = nullptr;
  int64_t* key_end = nullptr;

  C10_HOST_DEVICE void operator()(Idx3 block, Idx3 thread, Idx3 grid, Idx3 bdim) const {
    for (int64_t o = first_x(block, thread, bdim); o < p.out; o += stride_x(grid, bdim)) {
      double* r = scratch + o * cap;
      int64_t s = 0;
      double wmax = 0.0;
      const int64_t n = rows::table_row<Fma>(p, o, s, r, wmax);
      if (precision > 0)
        for (int64_t k = 0; k < n; ++k) r[k] = rows::fixed_point_weight(r[k], precision);
      if (key_start != nullptr) {
        Store::put(key_start, o, s);
        Store::put(key_end, o, n > 0 ? s + n : p.in);
      }
      int64_t lo = 0, hi = n;
      while (lo < hi && r[lo] == 0.0) ++lo;
      while (hi > lo && r[hi - 1] == 0.0) --hi;
      // K bounds every trimmed row (tables.cpp forward_taps_bound); the clamp only keeps a
      // broken bound from writing past the row.
      const int64_t m = hi - lo < K ? hi - lo : K;
      const int64_t trimmed = s + lo < p.in - 1 ? s + lo : p.in - 1;
      Store::put(start, o, (lo == 0 && hi == n) ? s : trimmed);
      Store::put(len, o, m);
      for (int64_t k = 0; k < m; ++k) Store::put(w, o * K + k, static_cast<acc_t>(r[lo + k]));
    }
  }
};

// The transposed table: for input sample i, the outputs whose rows read it. The windows are
// monotone, so two binary searches over the untrimmed windows bound them; outputs at either end
// whose (trimmed) row holds no non-zero weight for i are dropped, and the weights are the
// forward rows' own, looked up. Rows = the forward table's in_size; stride K (an upper bound:
// tables.cpp transposed_taps_bound).
template <class Store, typename acc_t>
struct BuildTransposed {
  int64_t rows = 0;      // forward input size
  int64_t fwd_rows = 0;  // forward output size
  const int64_t* key_start = nullptr;
  const int64_t* key_end = nullptr;
  const int64_t* fstart = nullptr;
  const int64_t* flen = nullptr;
  const acc_t* fw = nullptr;
  int64_t fK = 0;
  int64_t K = 0;
  int64_t* start = nullptr;
  int64_t* len = nullptr;
  acc_t* w = nullptr;

  C10_HOST_DEVICE acc_t weight(int64_t o, int64_t i) const {
    const int64_t k = i - fstart[o];
    return (k >= 0 && k < flen[o]) ? fw[o * fK + k] : acc_t(0);
  }

  C10_HOST_DEVICE void operator()(Idx3 block, Idx3 thread, Idx3 grid, Idx3 bdim) const {
    for (int64_t i = first_x(block, thread, bdim); i < rows; i += stride_x(grid, bdim)) {
      int64_t lo = 0, hi = fwd_rows;
      while (lo < hi) {  // first o with key_end[o] > i
        const int64_t mid = lo + (hi - lo) / 2;
        if (key_end[mid] > i) hi = mid; else lo = mid + 1;
      }
      int64_t first = lo;
      hi = fwd_rows;
      while (lo < hi) {  // first o with key_start[o] > i
        const int64_t mid = lo + (hi - lo) / 2;
        if (key_start[mid] > i) hi = mid; else lo = mid + 1;
      }
      int64_t last = lo - 1;
      while (first <= last && weight(first, i) == acc_t(0)) ++first;
      while (last >= first && weight(last, i) == acc_t(0)) --last;
      int64_t n = last - first + 1;
      n = n < K ? n : K;  // K bounds n; the clamp keeps a broken bound inside the row
      Store::put(start, i, n > 0 ? first : int64_t(0));
      Store::put(len, i, n);
      for (int64_t j = 0; j < n; ++j) Store::put(w, i * K + j, weight(first + j, i));
    }
  }
};

// Separable pass, inner == 1 (the contiguous innermost axis): one thread per output element.
// Neighbouring threads read overlapping or nearby windows, which L1 serves; dst writes coalesce.
// Offsets are int64: tensors may exceed 2^31 elements.
template <class Store, typename src_t, typename dst_t, typename acc_t>
struct PassContig {
  const src_t* src = nullptr;
  dst_t* dst = nullptr;
  int64_t rows = 0;  // outer * out_len
  int64_t in_len = 0, out_len = 0;
  const int64_t* start = nullptr;
  const int64_t* len = nullptr;
  const acc_t* w = nullptr;
  int64_t K = 0;

  C10_HOST_DEVICE void operator()(Idx3 block, Idx3 thread, Idx3 grid, Idx3 bdim) const {
    for (int64_t r = first_x(block, thread, bdim); r < rows; r += stride_x(grid, bdim)) {
      const int64_t b = r / out_len;
      const int64_t o = r - b * out_len;
      const src_t* s = src + b * in_len + start[o];
      const acc_t* wo = w + o * K;
      const int64_t n = len[o];  // 0 for an input no output reads (transposed): writes 0
      acc_t sum = 0;
      for (int64_t k = 0; k < n; ++k) sum += wo[k] * static_cast<acc_t>(s[k]);
      Store::put(dst, r, static_cast<dst_t>(sum));
    }
  }
};

// Separable pass, inner > 1: x along `inner` (contiguous in src and dst: loads and stores
// coalesce), y over the outer * out_len rows. All threads of a row read the same table entries,
// which the hardware broadcasts.
template <class Store, typename src_t, typename dst_t, typename acc_t>
struct PassStrided {
  const src_t* src = nullptr;
  dst_t* dst = nullptr;
  int64_t rows = 0;
  int64_t in_len = 0, out_len = 0, inner = 0;
  const int64_t* start = nullptr;
  const int64_t* len = nullptr;
  const acc_t* w = nullptr;
  int64_t K = 0;

  C10_HOST_DEVICE void operator()(Idx3 block, Idx3 thread, Idx3 grid, Idx3 bdim) const {
    const int64_t row_stride = static_cast<int64_t>(grid.y) * bdim.y;
    const int64_t col_stride = static_cast<int64_t>(grid.x) * bdim.x;
    const int64_t col0 = static_cast<int64_t>(block.x) * bdim.x + thread.x;
    for (int64_t r = static_cast<int64_t>(block.y) * bdim.y + thread.y; r < rows; r += row_stride) {
      const int64_t b = r / out_len;
      const int64_t o = r - b * out_len;
      const src_t* s = src + (b * in_len + start[o]) * inner;
      const acc_t* wo = w + o * K;
      const int64_t n = len[o];
      for (int64_t j = col0; j < inner; j += col_stride) {
        const src_t* sj = s + j;
        acc_t sum = 0;
        for (int64_t k = 0; k < n; ++k) sum += wo[k] * static_cast<acc_t>(sj[k * inner]);
        Store::put(dst, r * inner + j, static_cast<dst_t>(sum));
      }
    }
  }
};

// Product gather (product_gather.h): one thread per output element reads the product window of
// every resampled axis directly. index_t: int32_t when every offset fits (cheaper division).
template <class Store, typename scalar_t, typename acc_t, typename index_t>
struct Gather {
  GatherPlan<acc_t> plan;
  const scalar_t* src = nullptr;
  scalar_t* dst = nullptr;
  int64_t n = 0;

  C10_HOST_DEVICE void operator()(Idx3 block, Idx3 thread, Idx3 grid, Idx3 bdim) const {
    for (int64_t i = first_x(block, thread, bdim); i < n; i += stride_x(grid, bdim)) {
      Store::put(dst, i, static_cast<scalar_t>(gather_element<scalar_t, acc_t, index_t>(
                             plan, src, static_cast<index_t>(i))));
    }
  }
};

}  // namespace cuda
}  // namespace resize_ad
