#include "work_pool.h"

#include <ATen/Parallel.h>

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace resize_ad {
namespace {

class Pool {
 public:
  void run(int64_t n, int64_t grain, int helpers_wanted,
           const std::function<void(int64_t, int64_t)>& fn) {
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) {  // another thread's job is running: do this one serially
      fn(0, n);
      return;
    }
    const int threads = helpers_wanted + 1;
    const int64_t chunk = std::max<int64_t>(grain, (n + 4 * threads - 1) / (4 * threads));
    const int64_t nchunks = (n + chunk - 1) / chunk;
    uint64_t gen;
    {
      std::lock_guard<std::mutex> lock(mu_);
      while (static_cast<int>(helpers_.size()) < helpers_wanted) {
        const int index = static_cast<int>(helpers_.size());
        helpers_.emplace_back([this, index] { helper(index); });
        helpers_.back().detach();
      }
      gen = ++gen_;
      fn_ = &fn;
      n_ = n;
      chunk_ = chunk;
      nchunks_ = nchunks;
      active_helpers_ = helpers_wanted;
      done_.store(0, std::memory_order_relaxed);
      error_ = nullptr;
      state_.store(gen << 32, std::memory_order_release);
    }
    cv_.notify_all();
    work(gen, &fn, n, chunk, nchunks);
    // Wait for the chunks helpers claimed (never for a helper that claimed none).
    for (int spins = 0; done_.load(std::memory_order_acquire) < nchunks; ++spins) {
      if (spins > 64) std::this_thread::yield();
    }
    std::exception_ptr error;
    {
      std::lock_guard<std::mutex> lock(mu_);
      error = error_;
      fn_ = nullptr;
    }
    if (error) std::rethrow_exception(error);
  }

  // After fork(): the helpers did not survive; start over with a fresh pool.
  static Pool*& instance() {
    static Pool* pool = new Pool();  // leaked: helpers may outlive static destruction
    return pool;
  }

 private:
  // Claims chunks of job `gen` until none is left. state_ = gen << 32 | next chunk, so a
  // claim made for a finished job fails instead of taking a chunk of the next one.
  void work(uint64_t gen, const std::function<void(int64_t, int64_t)>* fn, int64_t n,
            int64_t chunk, int64_t nchunks) {
    for (;;) {
      uint64_t s = state_.load(std::memory_order_acquire);
      if ((s >> 32) != gen) return;
      const int64_t c = static_cast<int64_t>(s & 0xffffffffu);
      if (c >= nchunks) return;
      if (!state_.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel)) continue;
      const int64_t begin = c * chunk;
      try {
        (*fn)(begin, std::min(n, begin + chunk));
      } catch (...) {  // kept for the caller, which rethrows it once every chunk is done
        std::lock_guard<std::mutex> lock(mu_);
        if (!error_) error_ = std::current_exception();
      }
      done_.fetch_add(1, std::memory_order_release);
    }
  }

  void helper(int index) {
    uint64_t seen = 0;
    for (;;) {
      const std::function<void(int64_t, int64_t)>* fn;
      int64_t n, chunk, nchunks;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return gen_ != seen; });
        seen = gen_;
        if (index >= active_helpers_) continue;
        fn = fn_;
        n = n_;
        chunk = chunk_;
        nchunks = nchunks_;
      }
      work(seen, fn, n, chunk, nchunks);
    }
  }

  std::mutex busy_;  // one job at a time
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::thread> helpers_;
  uint64_t gen_ = 0;
  const std::function<void(int64_t, int64_t)>* fn_ = nullptr;
  int64_t n_ = 0, chunk_ = 1, nchunks_ = 0;
  int active_helpers_ = 0;
  std::exception_ptr error_;
  std::atomic<uint64_t> state_{0};
  std::atomic<int64_t> done_{0};
};

void reset_after_fork() { Pool::instance() = new Pool(); }

}  // namespace

void parallel_chunks(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  const int threads = at::get_num_threads();
  if (n <= grain || threads <= 1 || at::in_parallel_region()) {
    fn(0, n);
    return;
  }
  static const bool registered = [] {
    pthread_atfork(nullptr, nullptr, reset_after_fork);
    return true;
  }();
  (void)registered;
  Pool::instance()->run(n, grain, threads - 1, fn);
}

}  // namespace resize_ad
