// resize_ad::_emulate_cuda: the CUDA executors run on the CPU, for tests on machines without a
// GPU. Everything resize_cuda.cu does but the kernel launch itself — the plan, the dtype
// dispatch, the tables built by the table-builder functors, the launch configurations — is the
// same code (common/cuda_executors.h); each launch here runs its functor in a loop over exactly
// the grid and block its launch function computed, and counts the stores into every buffer the
// launch writes. The op returns the result and these counts (see kStats), and checks each table
// the functors built against the host's table of the same rows.
#include <ATen/ATen.h>
#include <torch/library.h>

#include <initializer_list>
#include <mutex>
#include <vector>

#include "../common/cuda_executors.h"
#include "../common/cuda_functors.h"
#include "../common/plan.h"
#include "../common/tables.h"

namespace resize_ad {
namespace {

// Entries of the op's second result.
enum Stat : int {
  kLaunches = 0,       // kernels launched
  kNotOnce,            // buffers written exactly once per element: elements written 0 or 2+ times
  kTwice,              // other buffers (weights): elements written 2+ times
  kStray,              // stores outside every buffer the launch declared
  kTablesChecked,      // device tables compared with the host's
  kTableMismatch,      // their rows that differ (start, len or a weight)
  kBoundTooSmall,      // tables whose K is below the host table's longest row
  kBadConfig,          // launches whose grid or block exceeds the caps or the thread limit
  kNumStats
};

struct Region {
  const char* begin;
  const char* end;
  int64_t elem;
  bool exact;
  std::vector<int32_t> counts;
};

struct State {
  cuda::GridCaps caps;
  std::vector<Region> regions;
  std::vector<int64_t> stats = std::vector<int64_t>(kNumStats, 0);
};

State* state = nullptr;  // set while the op runs (under `op_mutex`)
std::mutex op_mutex;

void count_store(const void* p) {
  const char* a = static_cast<const char*>(p);
  for (Region& r : state->regions) {
    if (a >= r.begin && a < r.end) {
      ++r.counts[(a - r.begin) / r.elem];
      return;
    }
  }
  ++state->stats[kStray];
}

struct CountingStore {
  template <typename T>
  static void put(T* p, int64_t i, T v) {
    p[i] = v;
    count_store(p + i);
  }
};

template <typename acc_t>
bool same_weight(acc_t a, acc_t b) {
  return a == b || (a != a && b != b);
}

struct EmulatedBackend {
  using Store = CountingStore;
  static cuda::GridCaps caps() { return state->caps; }

  template <class F>
  static void launch(const cuda::LaunchConfig& c, const F& f,
                     std::initializer_list<cuda::Written> written) {
    ++state->stats[kLaunches];
    const int64_t threads = int64_t(c.block.x) * c.block.y * c.block.z;
    if (threads > cuda::kThreads || c.grid.x < 1 || c.grid.y < 1 || c.grid.x > state->caps.x ||
        c.grid.y > state->caps.y || c.grid.y > 65535 || c.grid.z > 65535)
      ++state->stats[kBadConfig];
    state->regions.clear();
    for (const cuda::Written& w : written) {
      const char* b = static_cast<const char*>(w.ptr);
      state->regions.push_back({b, b + w.n * w.elem, w.elem, w.exact,
                                std::vector<int32_t>(static_cast<size_t>(w.n), 0)});
    }
    for (uint32_t gz = 0; gz < c.grid.z; ++gz)
      for (uint32_t gy = 0; gy < c.grid.y; ++gy)
        for (uint32_t gx = 0; gx < c.grid.x; ++gx)
          for (uint32_t tz = 0; tz < c.block.z; ++tz)
            for (uint32_t ty = 0; ty < c.block.y; ++ty)
              for (uint32_t tx = 0; tx < c.block.x; ++tx)
                f(cuda::Idx3{gx, gy, gz}, cuda::Idx3{tx, ty, tz}, c.grid, c.block);
    for (const Region& r : state->regions) {
      for (int32_t n : r.counts) {
        if (r.exact && n != 1) ++state->stats[kNotOnce];
        if (!r.exact && n > 1) ++state->stats[kTwice];
      }
    }
    state->regions.clear();
  }

  // The device table against the host's table of the same spec (tables.cpp: build_table /
  // transpose): the same rows once exact-zero weights at either end are dropped from both (the
  // host keeps those where it rounded a double weight to a zero float, or where a transposed
  // row reaches a zero weight inside a forward row), weights compared in acc_t.
  template <typename acc_t>
  static void built(const AxisTable& t, const cuda::DeviceTable<acc_t>& d) {
    const TableSpec& s = *t.spec;
    const std::vector<int64_t> in{s.in}, out{s.out};
    std::optional<std::vector<double>> sc;
    if (s.scale > 0) sc = std::vector<double>{s.scale};
    const auto host = cached_tables(s.opt, in, out,
                                    sc ? std::optional<at::ArrayRef<double>>(*sc) : std::nullopt,
                                    s.transposed)[0];
    ++state->stats[kTablesChecked];
    int64_t longest = 0;
    for (int64_t o = 0; o < host->out_size; ++o) longest = std::max(longest, host->len[o]);
    if (longest > d.K) ++state->stats[kBoundTooSmall];
    const int64_t* ds = d.start_ptr();
    const int64_t* dl = d.len_ptr();
    const acc_t* dw = d.w_ptr();
    for (int64_t o = 0; o < host->out_size; ++o) {
      int64_t lo = 0, hi = host->len[o];
      const double* hw = host->w.data() + o * host->K;
      while (lo < hi && static_cast<acc_t>(hw[lo]) == acc_t(0)) ++lo;
      while (hi > lo && static_cast<acc_t>(hw[hi - 1]) == acc_t(0)) --hi;
      int64_t dlo = 0, dhi = dl[o];
      while (dlo < dhi && dw[o * d.K + dlo] == acc_t(0)) ++dlo;
      while (dhi > dlo && dw[o * d.K + dhi - 1] == acc_t(0)) --dhi;
      bool same = hi - lo == dhi - dlo && (hi == lo || host->start[o] + lo == ds[o] + dlo);
      for (int64_t k = 0; same && k < hi - lo; ++k)
        same = same_weight(static_cast<acc_t>(hw[lo + k]), dw[o * d.K + dlo + k]);
      if (!same) ++state->stats[kTableMismatch];
    }
  }
};

const DeviceKernels& emulated_kernels() {
  static const DeviceKernels k = cuda::device_kernels<EmulatedBackend>();
  return k;
}

std::tuple<at::Tensor, at::Tensor> emulate_cuda(const at::Tensor& x, at::IntArrayRef size,
                                                c10::string_view mode, bool align_corners,
                                                std::optional<at::ArrayRef<double>> scales,
                                                bool antialias, bool backward,
                                                at::IntArrayRef grid_caps) {
  TORCH_CHECK(x.device().is_cpu(), "resize_ad._emulate_cuda runs on CPU tensors");
  TORCH_CHECK(grid_caps.empty() || grid_caps.size() == 2,
              "resize_ad._emulate_cuda: grid_caps is [] or [max_grid_x, max_grid_y]");
  std::lock_guard<std::mutex> lock(op_mutex);
  State st;
  if (grid_caps.size() == 2) {
    TORCH_CHECK(grid_caps[0] >= 1 && grid_caps[1] >= 1, "resize_ad._emulate_cuda: caps >= 1");
    st.caps.x = grid_caps[0];
    st.caps.y = grid_caps[1];
  }
  state = &st;
  at::Tensor y;
  try {
    y = backward ? resize_backward(x, size, mode, align_corners, scales, antialias, emulated_kernels())
                 : resize_forward(x, size, mode, align_corners, scales, antialias, emulated_kernels());
  } catch (...) {
    state = nullptr;
    throw;
  }
  state = nullptr;
  at::Tensor stats = at::tensor(st.stats, at::kLong);
  return {y, stats};
}

}  // namespace

// A test-only op: registered for CPU tensors next to its kernels.
TORCH_LIBRARY_IMPL(resize_ad, CPU, m) {
  m.impl("_emulate_cuda", &emulate_cuda);
}

}  // namespace resize_ad
