#include "plan.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <numeric>
#include <optional>
#include <utility>

#include "capabilities.h"
#include "product_gather.h"

namespace resize_ad {
namespace {

std::atomic<int> forced_executor{static_cast<int>(Executor::Auto)};

// Sizes of a call's dimensions (at most five) and its tables in physical order, on the stack,
// as the Plan's arrays, the passes' outputs and the CPU sweep's arrays (c10::SmallVector): a
// call of 1 x 3 x 4² -> 8² made 26 heap allocations and 8 so, and ran 1.12x-1.15x faster
// (4.7 -> 4.0 us, 1 thread; (1, 16, 16²) x2 1.12x).
using Sizes = c10::SmallVector<int64_t, 5>;
using Tables = c10::SmallVector<const AxisTable*, 3>;

void check_shape(const at::Tensor& t, const char* what, size_t expected_spatial) {
  TORCH_CHECK(t.dim() >= 3 && t.dim() <= 5, "resize_ad: expected a 3-D, 4-D or 5-D ", what,
              " (N, C, spatial...), got ", t.dim(), "-D with shape ", t.sizes());
  TORCH_CHECK(static_cast<size_t>(t.dim() - 2) == expected_spatial, "resize_ad: ", what, " has ",
              t.dim() - 2, " spatial dimensions but ", expected_spatial, " sizes were given");
}

// The capability table's checks, in F.interpolate's order; then the options of the tables.
Options checked_options(c10::string_view mode, int64_t spatial_rank, bool align_corners,
                        bool antialias, at::ScalarType dtype, bool forward, bool native_fma) {
  const ModeCaps& caps = mode_caps(mode);
  check_align_corners(caps, align_corners);
  check_antialias(mode, spatial_rank, antialias);
  check_rank(caps, spatial_rank);
  check_dtype(caps, spatial_rank, dtype, forward);
  Options opt;
  opt.mode = caps.mode;
  opt.align_corners = align_corners;
  opt.antialias = antialias;
  opt.uint8 = dtype == at::kByte;
  opt.fma = native_fma;
  // ATen computes uint8 bilinear/bicubic tables in double, uint8 nearest indices in float.
  opt.double_math = dtype == at::kDouble || (opt.uint8 && uint8_fixed_point(opt.mode));
  return opt;
}

at::MemoryFormat output_format(c10::string_view mode, const at::Tensor& t) {
  return has_rank(mode_caps(mode).contiguous_out, t.dim() - 2) ? at::MemoryFormat::Contiguous
                                                               : t.suggest_memory_format();
}

void check_spatial_sizes(c10::string_view mode, at::IntArrayRef in, at::IntArrayRef out,
                         const char* out_name) {
  // Area is adaptive average pooling, which (as native's) allows an empty output.
  const bool allow_empty_out = mode_caps(mode).mode == Mode::Area;
  for (size_t d = 0; d < in.size(); ++d) {
    TORCH_CHECK(in[d] > 0 && (out[d] > 0 || (allow_empty_out && out[d] == 0)),
                "resize_ad: input and output spatial sizes should be greater than 0, but got "
                "input ", in, " and ", out_name, " ", out);
  }
}

Sizes physical_order(at::MemoryFormat fmt, int64_t dim) {
  if (fmt == at::MemoryFormat::ChannelsLast && dim == 4) return {0, 2, 3, 1};
  if (fmt == at::MemoryFormat::ChannelsLast3d && dim == 5) return {0, 2, 3, 4, 1};
  Sizes p(dim);
  std::iota(p.begin(), p.end(), 0);
  return p;
}

// Mean taps per output row of a table (1 for the identity, which is a copy).
double mean_taps(const AxisTable& t) {
  if (t.identity) return 1.0;
  return static_cast<double>(t.sum_len) / static_cast<double>(std::max<int64_t>(1, t.out_size));
}

// The threads a call's kernels split it over (DeviceKernels::threads; one where it is unset).
int threads_of(const DeviceKernels& k) { return k.threads != nullptr ? k.threads() : 1; }

// Cost model, in multiply-adds along contiguous memory. A multiply-add along the innermost axis
// (inner == 1) gathers scattered elements and costs kGather of those; every element of a scratch
// tensor of the separable passes is written, faulted in and read back again: kScratch.
constexpr double kGather = 4.0;
constexpr double kScratch = 4.0;

double separable_cost(const Plan& p, at::IntArrayRef phys_sizes) {
  Sizes sizes(phys_sizes.begin(), phys_sizes.end());
  double cost = 0;
  for (size_t k = 0; k < p.order.size(); ++k) {
    const AxisTable& t = *p.tables[p.order[k]];
    const int64_t at = p.pos[p.order[k]];
    double outer = 1, inner = 1;
    for (int64_t i = 0; i < at; ++i) outer *= static_cast<double>(sizes[i]);
    for (size_t i = at + 1; i < sizes.size(); ++i) inner *= static_cast<double>(sizes[i]);
    cost += outer * static_cast<double>(t.out_size) * inner * mean_taps(t) *
            (inner == 1 ? kGather : 1.0);
    sizes[at] = t.out_size;
    if (k + 1 < p.order.size()) {
      double n = 1;
      for (int64_t v : sizes) n *= static_cast<double>(v);
      cost += kScratch * n;
    }
  }
  return cost;
}

// [outer, spatial..., inner] of the physical order: the spatial axes are consecutive in every
// layout the plans use (contiguous, channels_last, channels_last_3d).
struct SweepShape {
  int64_t first, last, outer = 1, inner = 1;
};

SweepShape sweep_shape(const Plan& p, at::IntArrayRef phys_sizes) {
  SweepShape s;
  s.first = *std::min_element(p.pos.begin(), p.pos.end());
  s.last = *std::max_element(p.pos.begin(), p.pos.end());
  for (int64_t i = 0; i < s.first; ++i) s.outer *= phys_sizes[i];
  for (size_t i = s.last + 1; i < phys_sizes.size(); ++i) s.inner *= phys_sizes[i];
  return s;
}

// The spatial tables in physical order, identity tables included.
Tables physical_tables(const Plan& p, const SweepShape& s) {
  Tables tabs;
  tabs.reserve(s.last - s.first + 1);
  for (int64_t i = s.first; i <= s.last; ++i) tabs.push_back(p.tables[p.perm[i] - 2].get());
  return tabs;
}

// Per output line along the last spatial axis: a blend of the input lines its leading-axis
// taps select, then the last axis' table along that line; plus `per_line` for each line.
double line_sweep_cost(c10::ArrayRef<const AxisTable*> tabs, double outer, double inner,
                       double per_line = 0.0) {
  const AxisTable& last = *tabs.back();
  double rows = outer, lead_taps = 1;
  bool lead_unit = true;
  for (size_t i = 0; i + 1 < tabs.size(); ++i) {
    rows *= static_cast<double>(tabs[i]->out_size);
    lead_taps *= mean_taps(*tabs[i]);
    lead_unit = lead_unit && tabs[i]->unit;
  }
  const double in_line = static_cast<double>(last.in_size) * inner;
  const double blend = lead_unit ? (inner == 1 ? 0.25 * in_line : 0.0) : lead_taps * in_line;
  const double along = last.identity ? 0.0
                                     : static_cast<double>(last.out_size) * inner *
                                           mean_taps(last) * (inner == 1 ? kGather : 1.0);
  return rows * (blend + along + per_line);
}

// Taps per output of the product window, from the mean taps per row of each table (a device
// table's K is only an upper bound).
double gather_taps(const Plan& p) {
  double taps = 1;
  for (size_t d : p.order) taps *= std::ceil(mean_taps(*p.tables[d]));
  return taps;
}

// Whether the separable passes beat the line sweep outright because their last pass joins the
// short lines of the contiguous axis (DeviceKernels::pass_join_outputs), so that its vector
// blocks run across lines, where the sweep pays a call and a scalar tail per line:
// - weighted lines of 2 to 4 taps (the load plan's gathers) that do not shrink: NCHW x2 upscales
//   of 32 x 32 to 64 x 64 planes (bilinear, bicubic, trilinear, bfloat16) and odd sizes measured
//   1.1x-1.8x faster forward, 1 and 2 threads; on the transposed tables of their backwards
//   (shrinking) and on nearest lines of 64 or more the sweep stays faster (0.7x-0.96x), and so
//   it does on longer lines (bilinear x2 of 256 x 256 planes: 0.62x). Lines of kJoinUpscaleBelow
//   outputs or more go to the cost model: on an Intel Xeon with AVX-512 (1 thread, alternating
//   processes, medians of 3) three planes to 256 x 256 from 200² to 240² measured 1.18x-1.60x
//   faster so (bilinear and bicubic), from 128² and 160² 1.05x-1.19x; 48 planes 0.95x-1.14x
//   (1 thread) and 0.98x-1.30x (2 threads);
// - any line of at most kShortLine outputs: area, bilinear, antialias and nearest resizes of
//   7 x 7 to 20 x 20 planes measured 1.4x-4.9x faster forward, 1.6x-3.3x forward+backward
//   (1 thread);
// - nearest and nearest-exact lines (copies) of fewer than kJoinBelow outputs, where the
//   sweep's work per line outweighs its copies: NCHW planes to 32, 48 and 63 wide, 1 thread
//   1.39x-2.42x faster (a batch of 8 x 64 planes to 128 x 48: 1.0 against 1.38 ms), 2 threads
//   1.04x-1.87x, but (2, 16) planes 64² -> 48 x 32 0.8x (32 against 26 us); to 64 wide the
//   sweep is as fast or faster with many planes ((8, 64) planes 32² -> 64², 1 thread: 0.72x);
// - forward downscales to fewer than kJoinBelow outputs by a factor that is not whole: NCHW
//   bilinear (1, 64) planes 64² -> 40², 1 / 2 threads, 1.84x / 1.65x faster, bicubic (4, 32)
//   planes 128² -> 48² 1.49x / 1.51x, (1, 32) planes 100² -> 60² 1.65x / 1.49x, antialiased
//   bilinear (8, 3) planes 128² -> 40² 1.37x / 1.25x. Whole factors stay with the sweep, whose
//   own loops take halvings (bilinear (8, 64) planes 64² -> 32²: 0.37x / 0.64x; area 128² ->
//   32²: 1.14x / 0.92x), and so do the transposed tables of backwards, not measured apart
//   from the noise (bicubic_odd_ac's, 1 thread: the sweep 820 against 1035 us, then 744
//   against 680 us).
// With several threads, a call whose planes (outer) the threads cannot share out evenly
// (plane_shares; fewer planes than threads, or three on two) and whose plane has at least
// kSplitPlane outputs splits each pass's planes among them: two forks and joins of little work
// each, and the second pass reads lines other threads wrote. There the sweep runs instead, in
// the passes' order (Plan::pass_order): one fork and join, the same values. With 2 threads (an
// AMD EPYC VM, the best of three alternating rounds), one plane's bilinear 224² -> 256² measured
// 1.43x-1.44x faster, 192² -> 256² 1.77x, 180² -> 200² 1.51x; bicubic 180² -> 200² 1.36x,
// 160² -> 256² 1.17x, 224² -> 256² 0.90x-1.25x, 128² -> 256² 0.85x-1.05x (bilinear and
// bicubic). In this VM's slow periods (its cores then share no cache: plane_shares), the
// passes took 52-73 us on 224² -> 256², the sweep 17-35. The values do not depend on the
// threads.
constexpr int64_t kShortLine = 16;
constexpr int64_t kJoinBelow = 64;
constexpr int64_t kJoinUpscaleBelow = 256;
constexpr double kSplitPlane = 32768;

// Copied rows (nearest, nearest-exact along a contiguous last axis of fewer than kJoinBelow
// outputs): the passes join them (no work per row, vector blocks across rows) but copy every
// row the pass reaches, each axis after the other through scratch; the sweep copies only the rows
// its output lines read (run_sweep's copies: a copy_line per line), with a cost per line. Both in
// copies of one output element along the last axis: each row copied costs its outputs and
// kCopyRowLine for each cache line of its input (16 floats); a pass along a leading axis moves
// whole rows (eight floats a unit); every scratch element costs kCopyScratch more; each sweep
// line kCopyLine more. Fitted on 132 NCHW cases (1 thread, an Intel Xeon with AVX-512 and 2 MiB
// of L2: 1 to 8192 planes of 14² to 800², to 7-63 columns): the executor so chosen 1.002x slower
// than the faster of the two in geomean, 1.19x at worst, where always joining was 1.38x and 7.7x
// and never joining 1.03x and 1.48x. The passes keep rows whose leading axes are all kept (one
// joined pass, no scratch: 26 of 27 such cases 1.01x-1.48x faster so).
constexpr double kCopyLine = 16;
constexpr double kCopyRowLine = 1;
constexpr double kCopyScratch = 2;

bool copies_join_pay(const Plan& p, at::IntArrayRef phys_sizes, const AxisTable& last) {
  Sizes sizes(phys_sizes.begin(), phys_sizes.end());
  auto numel = [&] {
    double n = 1;
    for (int64_t v : sizes) n *= static_cast<double>(v);
    return n;
  };
  const double row = static_cast<double>(last.out_size) + kCopyRowLine * static_cast<double>(last.in_size) / 16.0;
  double passes = 0;
  for (size_t i = 0; i < p.order.size(); ++i) {
    const AxisTable& t = *p.tables[p.order[i]];
    const int64_t at = p.pos[p.order[i]];
    const double rows = numel() / static_cast<double>(t.in_size);
    sizes[at] = t.out_size;
    passes += &t == &last ? rows * row : numel() / 8.0;
    if (i + 1 < p.order.size()) passes += kCopyScratch * numel();
  }
  const double lines = numel() / static_cast<double>(last.out_size);
  return passes <= lines * (kCopyLine + row);
}

bool passes_join_pay(const Plan& p, at::IntArrayRef phys_sizes, const AxisTable& last, const DeviceKernels& k) {
  if (k.pass_join_outputs == 0 || last.identity || last.out_size * 2 > k.pass_join_outputs) return false;
  if (last.unit) return last.out_size < kJoinBelow && copies_join_pay(p, phys_sizes, last);
  if (last.out_size <= kShortLine) return true;
  if (!last.transposed && last.out_size < kJoinBelow && last.out_size < last.in_size &&
      last.in_size % last.out_size != 0)
    return true;
  return last.K >= 2 && last.K <= 4 && last.out_size >= last.in_size && last.out_size < kJoinUpscaleBelow;
}

// Whether the separable passes run as one task per thread over its own share of the planes
// (outer), every pass (run): the shares must be even, or many planes each. Each thread then reads
// only what it wrote. Split pass by pass among the threads, the second pass reads lines other
// threads wrote, at a cost where the cores share no cache: a 2-vCPU AMD EPYC VM's host at
// times runs the two on such cores (a round trip between them 340-390 ns against 52 ns), and
// there, with 2 threads, NCHW bilinear 32² -> 64² of (4, 16) planes took 147 us, 58 us so;
// bicubic 64² -> 128² of (8, 3) planes 362 and 155 us. On cores that share their L3: 77.5 and
// 50.2 us, 124 and 112 us.
bool plane_shares(int64_t outer, int threads) {
  return threads > 1 && (outer % threads == 0 || outer >= 4 * threads);
}

// Whether the sweep in the passes' order has the separable passes' values and pays for the
// threads alone (above): one leading axis, which the passes resample first, and planes that
// the threads cannot share out evenly (plane_shares): with 2 threads, three planes' bicubic
// 224² -> 256² took 63.6 us against the passes' 62.9 us on cores that share their L3, 69.8
// against 164.1 us on cores that do not.
bool split_plane(const Plan& p, const SweepShape& s, c10::ArrayRef<const AxisTable*> tabs,
                 const DeviceKernels& k) {
  const int threads = threads_of(k);
  if (threads <= 1 || s.inner != 1 || plane_shares(s.outer, threads) || tabs.size() != 2 ||
      p.order.size() != 2 || p.pos[p.order[0]] > p.pos[p.order[1]])
    return false;
  return static_cast<double>(tabs[0]->out_size) * static_cast<double>(tabs[1]->out_size) >= kSplitPlane;
}

// A sweep line's own work besides its multiply-adds (its taps, the tests, a call), in the cost
// model's units: about 512 multiply-adds, measured on sweeps whose last axis is kept, where the
// lines only blend input lines and nothing else differs from the separable passes (1 thread,
// an AMD EPYC; 20-32 ns a line). Lines that also resample the last axis are not charged it:
// the passes pay per line there too, on their last pass, and own_lines runs such plane lines
// without it.
constexpr double kSweepLine = 512;
constexpr double kShortFolded = 128;

// The last axis kept (resizes of the leading axes alone): the sweep's lines are blends of input
// lines, with the separable passes' multiply-adds and none of their scratch. The cost model
// charges the sweep its work per line (kSweepLine), and one pass the threads' idle share where
// they cannot share out its planes evenly (plane_shares; fewer planes than threads are cut into
// segments). Measured, sweep against passes: 1 thread, NCHW bilinear (8, 64, 64, 64) -> 128 x 64
// 2.5-2.8 ms against 0.62-0.69 ms, bicubic 256² -> 224 x 256 14.3 against 9.9 us; NCDHW
// trilinear (2, 16, 16, 16, 16) -> 32 x 32 x 16 1.1-1.7 ms against 96 us, 32³ -> 64 x 64 x 32
// 5.2-6.9 against 1.0-1.1 ms; 512-float lines, NCDHW 32 x 32 x 512 -> 64 x 64 x 512 and
// channels_last_3d 32³ of 16 channels -> 64 x 64 x 32, 0.85-0.91 against 1.02-1.36 ms; 2
// threads, three planes' bilinear 1000² -> 400 x 1000, 130 against 161 us.
Executor kept_last_axis(const Plan& p, at::IntArrayRef phys_sizes, const SweepShape& s,
                        c10::ArrayRef<const AxisTable*> tabs, const DeviceKernels& k) {
  double passes = separable_cost(p, phys_sizes);
  const int threads = threads_of(k);
  if (p.order.size() == 1 && threads > 1 && s.outer >= threads && !plane_shares(s.outer, threads)) {
    const int64_t rounds = (s.outer + threads - 1) / threads;
    passes *= static_cast<double>(rounds * threads) / static_cast<double>(s.outer);
  }
  const double sweep =
      line_sweep_cost(tabs, static_cast<double>(s.outer), static_cast<double>(s.inner), kSweepLine);
  return sweep <= passes ? Executor::LineSweep : Executor::Separable;
}

Executor choose_executor(const Plan& p, const at::ScalarType input_dtype,
                         at::IntArrayRef phys_sizes, const DeviceKernels& k, bool* pass_order) {
  // Only the separable passes stage a non-floating input and round after each pass.
  if (!at::isFloatingType(input_dtype)) return Executor::Separable;
  const bool sweep_ok = k.line_sweep != nullptr;
  const bool gather_ok = k.product_gather != nullptr &&
                         p.order.size() <= static_cast<size_t>(kMaxGatherAxes);
  switch (static_cast<Executor>(forced_executor.load(std::memory_order_relaxed))) {
    case Executor::Separable: return Executor::Separable;
    case Executor::LineSweep: if (sweep_ok) return Executor::LineSweep; break;
    case Executor::ProductGather: if (gather_ok) return Executor::ProductGather; break;
    case Executor::Auto: break;
  }
  if (gather_ok && gather_taps(p) <= static_cast<double>(k.gather_max_taps)) return Executor::ProductGather;
  if (sweep_ok) {
    const SweepShape s = sweep_shape(p, phys_sizes);
    const Tables tabs = physical_tables(p, s);
    if (s.inner == 1 && passes_join_pay(p, phys_sizes, *tabs.back(), k)) {
      *pass_order = split_plane(p, s, tabs, k);
      return *pass_order ? Executor::LineSweep : Executor::Separable;
    }
    if (tabs.back()->identity) return kept_last_axis(p, phys_sizes, s, tabs, k);
    // Weighted lines below two leading axes (3-D) pay the sweep's work per line (kSweepLine)
    // where they are of one channel per position, or short ones of fewer than eight channels
    // folded into one line (Line::step; under kShortFolded outputs): own_lines, which runs
    // plane lines without it, takes one leading axis only. Trilinear backwards measured 1.9x
    // slower on the sweep uncharged ((4, 4, 9, 7, 12) -> (32, 22, 43): 473 against 248 us, 1
    // thread), and channels_last_3d ones of two to seven channels to lines of 12 to 110 floats
    // 1.2x-6.4x ((365, 3, 5, 32, 4) -> (3, 19, 2), backward: 3.2 against 0.49 ms); folded lines
    // of about 200 floats (6 and 7 channels) and more, and lines of eight channels and more,
    // whose blocks run across the channels, measured as fast or faster on the sweep. (Copies:
    // their own count, copies_join_pay, has weighed the sweep's lines.)
    const double out_line = static_cast<double>(tabs.back()->out_size * s.inner);
    const bool charged = s.inner == 1 || (s.inner < 8 && out_line < kShortFolded);
    const double per_line = tabs.size() > 2 && charged && !tabs.back()->unit ? kSweepLine : 0.0;
    if (line_sweep_cost(tabs, static_cast<double>(s.outer), static_cast<double>(s.inner), per_line) <=
        separable_cost(p, phys_sizes))
      return Executor::LineSweep;
  }
  return Executor::Separable;
}

Plan make_plan(const at::Tensor& x, at::MemoryFormat fmt,
               std::vector<std::shared_ptr<const AxisTable>> tables, const DeviceKernels& k) {
  Plan p;
  p.tables = std::move(tables);
  p.perm = physical_order(fmt, x.dim());
  p.pos.reserve(p.tables.size());
  p.order.reserve(p.tables.size());
  for (size_t d = 0; d < p.tables.size(); ++d) {
    p.pos.push_back(std::find(p.perm.begin(), p.perm.end(), static_cast<int64_t>(d + 2)) -
                    p.perm.begin());
    if (!p.tables[d]->identity) p.order.push_back(d);
  }
  bool fixed_point = false;
  for (const auto& t : p.tables) fixed_point = fixed_point || t->precision > 0;
  if (fixed_point) {
    // Native's uint8 pass order: the last (contiguous) axis first, then the others inwards.
    std::reverse(p.order.begin(), p.order.end());
  } else {
    // Shrinking axes first: every later pass then reads and writes less. A stable insertion
    // sort of at most three axes (std::stable_sort allocates a buffer).
    auto ratio = [&](size_t d) { return static_cast<double>(p.tables[d]->out_size) / p.tables[d]->in_size; };
    for (size_t i = 1; i < p.order.size(); ++i)
      for (size_t j = i; j > 0 && ratio(p.order[j]) < ratio(p.order[j - 1]); --j)
        std::swap(p.order[j], p.order[j - 1]);
  }
  p.kernel_dtype = x.scalar_type();
  bool u8_ok = p.kernel_dtype == at::kByte && k.pass_u8 != nullptr;
  for (size_t d : p.order) {
    const AxisTable& t = *p.tables[d];
    u8_ok = u8_ok && (t.precision > 0 ? (k.pass_u8_fits != nullptr && k.pass_u8_fits(t)) : t.unit);
  }
  Sizes phys_sizes;
  for (int64_t d : p.perm) phys_sizes.push_back(x.size(d));
  if (u8_ok && !fixed_point && p.order.size() > 1) {
    // Element copies (nearest): the cheapest order by the cost model, which charges the
    // gather along the contiguous axis more than a row copy (upsampling: that axis first).
    c10::SmallVector<size_t, 3> o = p.order, best = p.order;
    std::sort(o.begin(), o.end());
    double best_cost = separable_cost(p, phys_sizes);
    do {
      Plan q = p;
      q.order = o;
      const double c = separable_cost(q, phys_sizes);
      if (c < best_cost) best_cost = c, best = o;
    } while (std::next_permutation(o.begin(), o.end()));
    p.order = best;
  }
  if (!u8_ok && !at::isFloatingType(p.kernel_dtype)) {
    // uint8: fixed-point sums (and the +0.5 of the rounding) are exact in float while the sum's
    // numerator over 2^precision stays below 2^23; double holds any of them exactly.
    p.kernel_dtype = at::kFloat;
    for (size_t d : p.order)
      if (p.tables[d]->fixed_point_bound >= 8388608.0) p.kernel_dtype = at::kDouble;
  }
  p.executor = p.order.empty() ? Executor::Separable
                               : choose_executor(p, x.scalar_type(), phys_sizes, k, &p.pass_order);
  return p;
}

at::ScalarType accumulation_type(at::ScalarType t) {
  return (t == at::kHalf || t == at::kBFloat16) ? at::kFloat : t;
}

// The input as the passes read it: in the kernel dtype (a uint8 input staged to float or
// double), contiguous.
at::Tensor pass_input(const Plan& p, const at::Tensor& cur) {
  if (cur.scalar_type() != p.kernel_dtype) return at::empty(cur.sizes(), cur.options().dtype(p.kernel_dtype)).copy_(cur);
  return cur.contiguous();
}

// Whether the last pass writes out_phys itself (it has the kernel dtype) rather than scratch
// that run_passes then converts into it.
bool last_pass_into_out(const Plan& p, const at::Tensor& out_phys) {
  return out_phys.scalar_type() == p.kernel_dtype;
}

// What each pass writes, in order: scratch in the accumulation type, the last pass out_phys
// itself where last_pass_into_out. A uint8 kernel dtype (the device's fixed-point passes) keeps
// uint8 between the passes: those kernels round and saturate as they store.
c10::SmallVector<at::Tensor, 3> pass_outputs(const Plan& p, const at::Tensor& in, const at::Tensor& out_phys) {
  const at::ScalarType acc = accumulation_type(p.kernel_dtype);
  c10::SmallVector<at::Tensor, 3> dsts;
  Sizes sizes(in.sizes().begin(), in.sizes().end());
  for (size_t i = 0; i < p.order.size(); ++i) {
    sizes[p.pos[p.order[i]]] = p.tables[p.order[i]]->out_size;
    const bool into_out = i + 1 == p.order.size() && last_pass_into_out(p, out_phys);
    dsts.push_back(into_out ? out_phys : at::empty(sizes, in.options().dtype(acc)));
  }
  return dsts;
}

// The passes from `in` through `dsts` (pass_outputs, or the same slices of its tensors), then
// into out_phys. Float kernels on a fixed-point table (uint8 staged to float or double) round
// half up and saturate to [0, 255] after their pass, as native's uint8 kernels store each pass
// in uint8.
void run_passes(const Plan& p, at::Tensor cur, c10::ArrayRef<at::Tensor> dsts, const at::Tensor& out_phys,
                const DeviceKernels& k) {
  for (size_t i = 0; i < p.order.size(); ++i) {
    const AxisTable& t = *p.tables[p.order[i]];
    const int64_t at = p.pos[p.order[i]];
    int64_t outer = 1, inner = 1;
    for (int64_t j = 0; j < at; ++j) outer *= cur.size(j);
    for (int64_t j = at + 1; j < cur.dim(); ++j) inner *= cur.size(j);
    if (p.kernel_dtype == at::kByte) {
      k.pass_u8(cur, dsts[i], outer, inner, t);
    } else {
      k.pass(cur, dsts[i], p.kernel_dtype, outer, inner, t);
      if (t.precision > 0) dsts[i].add_(0.5).floor_().clamp_(0, 255);
    }
    cur = dsts[i];
  }
  // uint8: integers in [0, 255] by now, so the conversion is exact.
  if (!last_pass_into_out(p, out_phys)) out_phys.copy_(cur);
}

// Separable passes: one pass per resampled axis, through scratch tensors (pass_outputs).
void run_separable(const Plan& p, const at::Tensor& cur, const at::Tensor& out_phys, const DeviceKernels& k) {
  const at::Tensor in = pass_input(p, cur);
  run_passes(p, in, pass_outputs(p, in, out_phys), out_phys, k);
}

void run_line_sweep(const Plan& p, at::Tensor cur, const at::Tensor& out_phys,
                    const DeviceKernels& k) {
  if (!cur.is_contiguous()) cur = cur.contiguous();
  const SweepShape s = sweep_shape(p, cur.sizes());
  k.line_sweep(cur, out_phys, s.outer, s.inner, physical_tables(p, s), p.pass_order);
}

void run_product_gather(const Plan& p, at::Tensor cur, const at::Tensor& out_phys,
                        const DeviceKernels& k) {
  if (!cur.is_contiguous()) cur = cur.contiguous();
  std::vector<int64_t> pos;
  std::vector<const AxisTable*> tabs;
  for (size_t d : p.order) {
    pos.push_back(p.pos[d]);
    tabs.push_back(p.tables[d].get());
  }
  k.product_gather(cur, out_phys, pos, tabs);
}

// Whether plane shares (plane_shares) pay for a call's passes:
// - results of kShareBytes and more take the passes split pass by pass, as one tensor each: the
//   CPU kernels treat such a result fresh from mmap as a whole (resize_cpu.cpp run advises huge
//   pages over it). Cut in shares, each share's ends fell to 4 KiB pages, a fault each: NCHW
//   bilinear x2 of (8, 64) planes of 64², a 33.5 MB result, took about 1000 faults per call and
//   5-107 ms against 1.7-1.9 ms (2 threads);
// - a share per thread needs about kShareWork multiply-adds per thread, the work a pass gives
//   each of its chunks (resize_cpu.cpp make_sweep): below it the passes run on one thread, and
//   a fork and join of two shares made NCHW bilinear x2 of (1, 16) planes of 16² (48K) 0.87x as
//   fast forward, 0.60x on cores that share no cache.
constexpr double kShareBytes = 4 << 20;
constexpr double kShareWork = 65536;

bool shares_pay(const Plan& p, const at::Tensor& cur, const at::Tensor& out_phys, int threads) {
  const double elem = static_cast<double>(c10::elementSize(accumulation_type(p.kernel_dtype)));
  double numel = static_cast<double>(cur.numel()), largest = static_cast<double>(out_phys.nbytes()), work = 0;
  for (size_t d : p.order) {
    const AxisTable& t = *p.tables[d];
    numel = numel / static_cast<double>(t.in_size) * static_cast<double>(t.out_size);
    largest = std::max(largest, numel * elem);
    work += numel * mean_taps(t);
  }
  return largest < kShareBytes && work >= kShareWork * threads;
}

// The passes' input (pass_input) and out_phys, their outer axes (before the first resampled
// one) as one of s.outer planes: the passes then run over slices of planes.
std::pair<at::Tensor, at::Tensor> by_planes(const Plan& p, const at::Tensor& cur, const at::Tensor& out_phys,
                                            const SweepShape& s) {
  Sizes in_sizes(cur.sizes().begin(), cur.sizes().end()), out_sizes(out_phys.sizes().begin(), out_phys.sizes().end());
  for (int64_t j = 1; j < s.first; ++j) in_sizes[j] = out_sizes[j] = 1;
  in_sizes[0] = out_sizes[0] = s.outer;
  return {pass_input(p, cur).view(in_sizes), out_phys.view(out_sizes)};
}

// Planes per chunk of the chunked passes (run_chunked), or 0: none. The separable passes write
// every pass's result whole before the next pass reads it; where that scratch (all of a chunk's
// intermediate results together, in the accumulation type) exceeds DeviceKernels::
// pass_chunk_bytes, the planes go a chunk at a time through every pass instead, so that a
// chunk's scratch is read back from the cache it was just written to rather than from memory.
int64_t chunk_planes(const Plan& p, const at::Tensor& cur, const SweepShape& s, const DeviceKernels& k) {
  const int64_t bytes = k.pass_chunk_bytes != nullptr ? k.pass_chunk_bytes() : 0;
  if (bytes <= 0 || p.order.size() < 2 || s.outer < 2) return 0;
  const double elem = static_cast<double>(c10::elementSize(accumulation_type(p.kernel_dtype)));
  double numel = static_cast<double>(cur.numel()) / static_cast<double>(s.outer), scratch = 0;
  for (size_t i = 0; i + 1 < p.order.size(); ++i) {
    const AxisTable& t = *p.tables[p.order[i]];
    numel = numel / static_cast<double>(t.in_size) * static_cast<double>(t.out_size);
    scratch += numel * elem;
  }
  const double budget = static_cast<double>(bytes);
  if (scratch * static_cast<double>(s.outer) <= budget) return 0;
  return std::clamp<int64_t>(static_cast<int64_t>(budget / scratch), 1, s.outer);
}

// The separable passes a chunk of `chunk` planes (chunk_planes) at a time, every pass over a
// chunk before the next chunk: each worker reuses its own chunk of the scratch, chunk after
// chunk. The scratch is allocated as the whole passes allocate it (here, once), its other planes
// never touched: allocated a chunk large, a 33.5 MB result that glibc had served warm from its
// heap after the whole passes' 16.8 MB scratch came fresh from mmap in every call instead (NCHW
// bilinear x2 of (8, 64) planes of 64² in a loop: 537 page faults per call against 17, 2.0 ms
// then 5.3 ms with 2 threads). With several threads the workers take chunks in turn from a
// shared counter (a thread another process slows takes fewer); a chunk's passes run on one
// thread, which reads only what it wrote. A plane's values are those of the whole passes.
void run_chunked(const Plan& p, const at::Tensor& cur, const at::Tensor& out_phys, const DeviceKernels& k,
                 const SweepShape& s, int64_t chunk, int threads) {
  const std::pair<at::Tensor, at::Tensor> planes = by_planes(p, cur, out_phys, s);
  const at::Tensor& in = planes.first;
  const at::Tensor& out = planes.second;
  if (k.prepare_result != nullptr) k.prepare_result(out_phys);
  const int64_t chunks = (s.outer + chunk - 1) / chunk;
  // Each worker's chunk of the scratch a whole chunk inside it: at most outer / chunk workers.
  const int workers = static_cast<int>(std::min<int64_t>(std::max(threads, 1), std::max<int64_t>(1, s.outer / chunk)));
  const bool into_out = last_pass_into_out(p, out_phys);
  const c10::SmallVector<at::Tensor, 3> scratch = pass_outputs(p, in, out);  // worker w: planes from w * chunk
  auto one = [&](int w, int64_t c) {
    const int64_t a = c * chunk, n = std::min(chunk, s.outer - a);
    c10::SmallVector<at::Tensor, 3> dsts;
    for (size_t i = 0; i < p.order.size(); ++i)
      dsts.push_back(i + 1 == p.order.size() && into_out ? out.narrow(0, a, n) : scratch[i].narrow(0, w * chunk, n));
    run_passes(p, in.narrow(0, a, n), dsts, out.narrow(0, a, n), k);
  };
  if (workers == 1) {
    for (int64_t c = 0; c < chunks; ++c) one(0, c);
    return;
  }
  std::atomic<int64_t> next{0};
  at::parallel_for(0, workers, 1, [&](int64_t w0, int64_t w1) {
    for (int64_t w = w0; w < w1; ++w)
      for (int64_t c = next++; c < chunks; c = next++) one(static_cast<int>(w), c);
  });
}

// out = (W_1 (x) W_2 (x) ...) x by the plan's executor. `out` is allocated by the caller
// (before the tables, so that an impossible output size fails first, and cheaply).
void run(const Plan& p, const at::Tensor& x, const at::Tensor& out, const DeviceKernels& k) {
  if (p.order.empty()) {
    out.copy_(x);
    return;
  }
  // In physical order (no view needed where that is the logical one).
  const bool logical = std::is_sorted(p.perm.begin(), p.perm.end());
  const at::Tensor cur = logical ? x : x.permute(p.perm);
  const at::Tensor out_phys = logical ? out : out.permute(p.perm);
  TORCH_INTERNAL_ASSERT(out_phys.is_contiguous());
  switch (p.executor) {
    case Executor::LineSweep: return run_line_sweep(p, cur, out_phys, k);
    case Executor::ProductGather: return run_product_gather(p, cur, out_phys, k);
    default: break;
  }
  const int threads = threads_of(k);
  const SweepShape s = sweep_shape(p, cur.sizes());
  const int64_t chunk = chunk_planes(p, cur, s, k);
  if (threads <= 1 || at::in_parallel_region()) {
    if (chunk > 0) return run_chunked(p, cur, out_phys, k, s, chunk, 1);
    return run_separable(p, cur, out_phys, k);
  }
  // Several threads: plane shares where they pay (each thread's scratch is then its share's),
  // else chunks where there are enough for the threads to take in turn, else the passes split.
  if (!plane_shares(s.outer, threads) || !shares_pay(p, cur, out_phys, threads)) {
    if (chunk > 0 && (s.outer + chunk - 1) / chunk >= 2 * threads)
      return run_chunked(p, cur, out_phys, k, s, chunk, threads);
    return run_separable(p, cur, out_phys, k);
  }
  // One task per thread, all the passes over its share of the planes (plane_shares): the outer
  // axes as one, sliced. Inside the task the passes' kernels run on its thread alone. The
  // scratch is allocated here, once: allocated in the tasks, the worker's (another malloc arena)
  // came fresh from mmap in every call, its pages zeroed anew (NCHW bilinear x2 of (8, 64)
  // planes of 64², 2 threads: 1.4 ms became 7.6-24 ms).
  const std::pair<at::Tensor, at::Tensor> planes = by_planes(p, cur, out_phys, s);
  const at::Tensor& in = planes.first;
  const at::Tensor& out_planes = planes.second;
  const c10::SmallVector<at::Tensor, 3> dsts = pass_outputs(p, in, out_planes);
  at::parallel_for(0, threads, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t a = s.outer * t / threads, n = s.outer * (t + 1) / threads - a;
      if (n == 0) continue;
      c10::SmallVector<at::Tensor, 3> share;
      for (const at::Tensor& d : dsts) share.push_back(d.narrow(0, a, n));
      run_passes(p, in.narrow(0, a, n), share, out_planes.narrow(0, a, n), k);
    }
  });
}

// The layout x is dense in, of those the plans use; nullopt where none.
std::optional<at::MemoryFormat> stored_format(const at::Tensor& x) {
  if (x.is_contiguous()) return at::MemoryFormat::Contiguous;
  if (x.dim() == 4 && x.is_contiguous(at::MemoryFormat::ChannelsLast)) return at::MemoryFormat::ChannelsLast;
  if (x.dim() == 5 && x.is_contiguous(at::MemoryFormat::ChannelsLast3d)) return at::MemoryFormat::ChannelsLast3d;
  return std::nullopt;
}

// out = the resize of x, out allocated in `fmt` (native's layout for the result). An x stored
// densely in another layout (a channels_last image of batch 1 whose batch stride makes torch
// suggest the contiguous layout: an HWC array permuted to CHW and unsqueezed; a channels_last_3d
// input of a mode whose result is contiguous) would be copied into fmt's order first, a strided
// copy of the whole input. Where the result is no larger, the resize runs in x's own layout
// into a scratch result instead, and that is copied into out: fewer bytes strided.
void resize_into(const at::Tensor& x, at::MemoryFormat fmt, const at::Tensor& out,
                 std::vector<std::shared_ptr<const AxisTable>> tables, const DeviceKernels& k) {
  const std::optional<at::MemoryFormat> stored = stored_format(x);
  if (stored && *stored != fmt && !x.is_contiguous(fmt) && out.numel() <= x.numel()) {
    at::Tensor scratch = at::empty(out.sizes(), out.options().memory_format(*stored));
    run(make_plan(x, *stored, std::move(tables), k), x, scratch, k);
    const bool planar = *stored != at::MemoryFormat::Contiguous && fmt == at::MemoryFormat::Contiguous;
    if (!(planar && k.planar_copy && k.planar_copy(scratch, out))) out.copy_(scratch);
    return;
  }
  run(make_plan(x, fmt, std::move(tables), k), x, out, k);
}

// The host's cached tables, or the specs of the tables the device builds itself.
std::vector<std::shared_ptr<const AxisTable>> tables_for(
    const Options& opt, at::IntArrayRef in, at::IntArrayRef out,
    std::optional<at::ArrayRef<double>> scales, bool transposed, const DeviceKernels& k) {
  if (k.device_tables) return table_specs(opt, in, out, scales, transposed);
  return cached_tables(opt, in, out, scales, transposed);
}

}  // namespace

void set_forced_executor(Executor e) {
  forced_executor.store(static_cast<int>(e), std::memory_order_relaxed);
}

at::Tensor resize_forward(const at::Tensor& input, at::IntArrayRef output_size,
                          c10::string_view mode, bool align_corners,
                          std::optional<at::ArrayRef<double>> scales, bool antialias,
                          const DeviceKernels& kernels) {
  check_shape(input, "input", output_size.size());
  const Options opt = checked_options(mode, input.dim() - 2, align_corners, antialias,
                                      input.scalar_type(), /*forward=*/true, kernels.native_fma);
  check_spatial_sizes(mode, input.sizes().slice(2), output_size, "output");
  Sizes out_sizes{input.size(0), input.size(1)};
  out_sizes.insert(out_sizes.end(), output_size.begin(), output_size.end());
  if (input.numel() > 0 &&
      std::all_of(output_size.begin(), output_size.end(), [](int64_t s) { return s > 0; })) {
    check_table_memory(opt, input.sizes().slice(2), output_size, scales, false);
  }
  const at::MemoryFormat fmt = output_format(mode, input);
  at::Tensor out = at::empty(out_sizes, input.options().memory_format(fmt));
  if (out.numel() == 0) return out;
  auto tables = tables_for(opt, input.sizes().slice(2), output_size, scales, false, kernels);
  resize_into(input, fmt, out, std::move(tables), kernels);
  return out;
}

at::Tensor resize_backward(const at::Tensor& grad_output, at::IntArrayRef input_size,
                           c10::string_view mode, bool align_corners,
                           std::optional<at::ArrayRef<double>> scales, bool antialias,
                           const DeviceKernels& kernels) {
  TORCH_CHECK(input_size.size() == static_cast<size_t>(grad_output.dim()),
              "resize_ad: input_size has ", input_size.size(), " entries but grad_output is ",
              grad_output.dim(), "-D");
  check_shape(grad_output, "grad_output", input_size.size() - 2);
  const Options opt = checked_options(mode, grad_output.dim() - 2, align_corners, antialias,
                                      grad_output.scalar_type(), /*forward=*/false,
                                      kernels.native_fma);
  TORCH_CHECK(grad_output.size(0) == input_size[0] && grad_output.size(1) == input_size[1],
              "resize_ad: grad_output batch and channel sizes ", grad_output.sizes().slice(0, 2),
              " do not match input_size ", input_size.slice(0, 2));
  check_spatial_sizes(mode, input_size.slice(2), grad_output.sizes().slice(2), "grad_output");
  if (grad_output.numel() > 0) {
    check_table_memory(opt, input_size.slice(2), grad_output.sizes().slice(2), scales, true);
  }
  const at::MemoryFormat fmt = grad_output.suggest_memory_format();
  at::Tensor grad_input = at::empty(input_size, grad_output.options().memory_format(fmt));
  if (grad_input.numel() == 0) return grad_input;
  if (grad_output.numel() == 0) return grad_input.zero_();  // an empty output reads nothing
  auto tables = tables_for(opt, input_size.slice(2), grad_output.sizes().slice(2), scales, true, kernels);
  resize_into(grad_output, fmt, grad_input, std::move(tables), kernels);
  return grad_input;
}

}  // namespace resize_ad
