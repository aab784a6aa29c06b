// Threads for the CPU kernels: torch's intra-op pool (at::parallel_for), with the range dealt out
// in chunks.
#pragma once

#include <ATen/Parallel.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>

namespace resize_ad {

namespace detail {
// The chunks [lo, hi) of a share that no thread has taken yet, packed as lo | hi << 32 so that
// its owner (from the front) and another thread (from the back) each take one with a single
// compare-exchange. Returns the chunk's index in the share, or -1 when none is left.
inline int64_t take_front(std::atomic<uint64_t>& share) {
  uint64_t v = share.load(std::memory_order_relaxed);
  for (;;) {
    const uint64_t lo = v & 0xffffffffu, hi = v >> 32;
    if (lo >= hi) return -1;
    if (share.compare_exchange_weak(v, (lo + 1) | (hi << 32), std::memory_order_relaxed))
      return static_cast<int64_t>(lo);
  }
}
inline int64_t take_back(std::atomic<uint64_t>& share) {
  uint64_t v = share.load(std::memory_order_relaxed);
  for (;;) {
    const uint64_t lo = v & 0xffffffffu, hi = v >> 32;
    if (lo >= hi) return -1;
    if (share.compare_exchange_weak(v, lo | ((hi - 1) << 32), std::memory_order_relaxed))
      return static_cast<int64_t>(hi - 1);
  }
}
// One share's chunks, alone in its cache line: each thread takes its own share's chunks without
// moving another thread's line between the cores. Packed side by side, every take moved the
// line, which costs most where the cores share no cache: on a 2-vCPU AMD EPYC VM whose host at
// times runs the two on such cores, a round trip between them measured 340-390 ns there
// against 52 ns.
struct alignas(64) Share {
  std::atomic<uint64_t> left{0};
};
}  // namespace detail

// at::parallel_for over [begin, end), with the range cut into about eight chunks per thread (at
// least `grain` items each). Task s of torch's pool owns the chunks s, s + T, s + 2T, ... (T
// tasks) and computes them in order; a task that has finished its own takes what is left of the
// others' from their ends.
// - Taking leftovers: on a shared machine a thread slowed by another process leaves its work to
//   the others rather than holding the whole call up (1.1x-1.2x on two busy cores against one
//   fixed share per thread).
// - Owning a fixed set: the same thread computes the same part of the result from call to call,
//   so a call whose data fits in the cores' L2 caches finds its part still there. Against
//   chunks dealt first come first served, on two threads: a (4, 64, 56, 56) channels_last
//   bilinear halving 0.75x -> 0.95x-1.0x of native; the whole bench 1.04x (forward) and 1.07x
//   (forward and backward) faster in geomean.
// - Interleaved sets (`interleave`): the threads work on neighbouring parts of memory at any
//   time, as with the deal; contiguous sets made large upscales slower (channels_last nearest
//   x2 of 4 channels, 33.5 MB result: 0.85x).
// - Contiguous sets otherwise, for data the caches keep: a thread's chunks border the others'
//   in one place only, not at every chunk, where the cores' prefetchers reach into lines the
//   other core writes. On cores that share no cache (a 2-vCPU AMD EPYC VM's host at times runs
//   its two on such cores), the (4, 64, 56, 56) channels_last bilinear halving measured
//   0.96x-1.14x of native against 0.85x-0.87x interleaved; on cores that share their L3,
//   1.00x-1.02x against 0.99x-1.00x.
// Each item is still computed by one call of f in the same arithmetic, so the values do not
// depend on the split.
template <typename F>
void parallel_chunks(int64_t begin, int64_t end, int64_t grain, const F& f, bool interleave = true) {
  const int64_t n = end - begin;
  const int64_t threads = at::get_num_threads();
  if (threads <= 1 || n <= grain || at::in_parallel_region()) {
    at::parallel_for(begin, end, grain, f);
    return;
  }
  const int64_t chunk = std::max<int64_t>(grain, (n + 8 * threads - 1) / (8 * threads));
  const int64_t chunks = (n + chunk - 1) / chunk;
  const int64_t shares = std::min(threads, chunks);
  constexpr int64_t kLocal = 64;
  detail::Share local[kLocal];
  std::unique_ptr<detail::Share[]> heap;
  if (shares > kLocal) heap.reset(new detail::Share[shares]);
  detail::Share* const share = heap ? heap.get() : local;
  // Share s: chunks s + k * shares (interleaved) or s * per + k (contiguous), k in [0, count).
  const int64_t per = (chunks + shares - 1) / shares;
  for (int64_t s = 0; s < shares; ++s) {
    const int64_t count = interleave ? (chunks - s + shares - 1) / shares
                                     : std::max<int64_t>(0, std::min(per, chunks - s * per));
    share[s].left.store(static_cast<uint64_t>(count) << 32, std::memory_order_relaxed);
  }
  auto run = [&](int64_t s, int64_t k) {
    const int64_t c = interleave ? s + k * shares : s * per + k;
    f(begin + c * chunk, std::min(end, begin + (c + 1) * chunk));
  };
  at::parallel_for(0, shares, 1, [&](int64_t s0, int64_t s1) {
    for (int64_t s = s0; s < s1; ++s)
      for (int64_t k = detail::take_front(share[s].left); k >= 0; k = detail::take_front(share[s].left))
        run(s, k);
    for (int64_t i = 1; i < shares; ++i) {
      const int64_t s = (s0 + i) % shares;
      for (int64_t k = detail::take_back(share[s].left); k >= 0; k = detail::take_back(share[s].left))
        run(s, k);
    }
  });
}

}  // namespace resize_ad
