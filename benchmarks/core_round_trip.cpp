// The round trip of one cache line between two CPUs, sampled over time: tells whether the two
// share a cache (tens of ns) or not (hundreds), which a VM's host may change from second to
// second. With 2 threads, work that one thread writes and the other reads (the separable
// passes split pass by pass, a shared counter) costs several times as much in the second state;
// docs/performance.md quotes the 2-thread results by it.
//
//   g++ -O2 -pthread -o /tmp/core_round_trip benchmarks/core_round_trip.cpp
//   /tmp/core_round_trip [seconds=10] [cpu_a=0] [cpu_b=1]
//
// One line per 0.4 s: the time since the start and the mean round trip over 200000 exchanges.
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace {

alignas(64) std::atomic<int> flag{0};

void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0) {
    std::fprintf(stderr, "core_round_trip: cannot run on CPU %d\n", cpu);
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 10.0;
  const int a = argc > 2 ? std::atoi(argv[2]) : 0, b = argc > 3 ? std::atoi(argv[3]) : 1;
  std::atomic<bool> stop{false};
  std::thread echo([&] {  // answers each odd value with the next even one
    pin(b);
    while (!stop.load(std::memory_order_relaxed)) {
      const int v = flag.load(std::memory_order_acquire);
      if (v & 1) flag.store(v + 1, std::memory_order_release);
    }
  });
  pin(a);
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  while (std::chrono::duration<double>(clock::now() - start).count() < seconds) {
    constexpr int kTrips = 200000;
    const auto t0 = clock::now();
    for (int i = 0; i < kTrips; ++i) {
      const int v = flag.load(std::memory_order_relaxed);
      flag.store(v + 1, std::memory_order_release);
      while (flag.load(std::memory_order_acquire) == v + 1) {
      }
    }
    const double ns = std::chrono::duration<double, std::nano>(clock::now() - t0).count() / kTrips;
    std::printf("%6.1f s  round trip %4.0f ns\n", std::chrono::duration<double>(clock::now() - start).count(), ns);
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
  }
  stop = true;
  echo.join();
  return 0;
}
