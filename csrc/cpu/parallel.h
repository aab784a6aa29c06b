// Threads for the CPU kernels: torch's intra-op pool (at::parallel_for), with the range dealt out
// in chunks.
#pragma once

#include <ATen/Parallel.h>

#include <algorithm>
#include <atomic>
#include <cstdint>

namespace resize_ad {

// at::parallel_for over [begin, end), except that the range is cut into about eight chunks per
// thread (at least `grain` items each), which the threads of torch's pool take one after
// another as they finish the previous one, instead of one fixed share per thread. On a shared
// machine a thread slowed by another process then leaves its work to the others rather than
// holding the whole call up: measured 1.1x-1.2x faster on two busy cores (bilinear and bicubic
// backwards, area and bilinear downscales), never slower beyond the noise. Each item is still
// computed by one call of f in the same arithmetic, so the values do not depend on the split.
template <typename F>
void parallel_chunks(int64_t begin, int64_t end, int64_t grain, const F& f) {
  const int64_t n = end - begin;
  const int64_t threads = at::get_num_threads();
  if (threads <= 1 || n <= grain || at::in_parallel_region()) {
    at::parallel_for(begin, end, grain, f);
    return;
  }
  const int64_t chunk = std::max<int64_t>(grain, (n + 8 * threads - 1) / (8 * threads));
  const int64_t chunks = (n + chunk - 1) / chunk;
  std::atomic<int64_t> next{0};
  at::parallel_for(0, std::min(threads, chunks), 1, [&](int64_t, int64_t) {
    for (int64_t c = next.fetch_add(1); c < chunks; c = next.fetch_add(1))
      f(begin + c * chunk, std::min(end, begin + (c + 1) * chunk));
  });
}

}  // namespace resize_ad
