// A small work-sharing pool for the CPU kernels, in place of at::parallel_for.
//
// at::parallel_for (OpenMP) ends every region with a barrier that waits for all the team's
// threads, including one that has not been scheduled yet: where the machine runs more threads
// than it has cores, a resize of a few hundred microseconds then takes a scheduler time slice
// (milliseconds). Here the calling thread starts on the work at once; helper threads claim
// chunks as they get to run, and the call returns as soon as every chunk is done: a helper
// that has not woken up by then is not waited for (it finds nothing left to claim).
#pragma once

#include <cstdint>
#include <functional>

namespace resize_ad {

// Runs fn(begin, end) over [0, n) in chunks of at least `grain` items, on the calling thread
// and up to at::get_num_threads() - 1 helpers. Serial for small n, inside a parallel region,
// or while another thread is using the pool. An exception thrown by fn reaches the caller once
// every chunk has finished.
void parallel_chunks(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

}  // namespace resize_ad
