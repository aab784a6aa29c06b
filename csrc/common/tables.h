// Per-axis banded weight tables: the only mode-specific part of resize_ad.
//
// For one spatial axis (input length I, output length O) row o of the O x I matrix W has its
// non-zeros in the contiguous window [start[o], start[o] + len[o]) with weights
// w[o * K + 0 .. len[o]). The forward pass applies W along the axis; the backward applies W^T,
// which is again a table of the same shape (built by transpose()), so both run on the same
// gather engine with one writer per output element: no atomics, deterministic.
#pragma once

#include <c10/util/ArrayRef.h>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "filters.h"
#include "rows.h"

namespace resize_ad {

// Everything a table depends on besides the sizes and the scale: each field must also be part of
// TableKey in tables.cpp (the table cache).
struct Options {
  Mode mode = Mode::Nearest;
  bool align_corners = false;
  bool antialias = false;
  bool double_math = false;  // arithmetic precision of ATen's opmath for this dtype
  // uint8 input: linear and cubic build ATen's uint8 tables (UpSampleKernel.cpp
  // _compute_index_ranges_int16_weights: double math, an axis whose size does not change is
  // skipped, weights quantised to int16); nearest tables are the float ones.
  bool uint8 = false;
  // Round a * b + c once where native's kernel is compiled with FMA contraction (rows.h): on the
  // CPU, native_cpu_kernels_fma(); nvcc contracts too.
  bool fma = false;
};

// The arguments of one axis' row formulas (rows.h), for tables that a device builds itself
// (DeviceKernels::device_tables): the table of `in -> out` samples, or its transpose.
struct TableSpec {
  Options opt;
  int64_t in = 0, out = 0;  // forward sizes of the axis
  double scale = 0.0;       // 0 when absent
  bool transposed = false;
};

struct AxisTable {
  int64_t in_size = 0;
  int64_t out_size = 0;
  int64_t K = 0;                // max taps per row (stride of w)
  std::vector<int64_t> start;   // [out_size]
  std::vector<int64_t> len;     // [out_size]
  std::vector<double> w;        // [out_size * K]
  bool identity = false;        // row o is exactly x[o] * 1
  // uint8 bilinear/bicubic: the weights are ATen's int16 fixed-point weights n / 2^precision
  // (exact in float and double), and every pass rounds half up and saturates to [0, 255].
  // 0 for every other table.
  int precision = 0;
  // Fixed-point tables: the largest |sum| of a row's integer weights n times 255, the largest
  // partial sum (in units of 2^-precision) a pass reaches over inputs in [0, 255]. 0 otherwise.
  double fixed_point_bound = 0.0;
  // Summaries, set by build_table / transpose (finish_table):
  uint64_t id = 0;              // unique per built table (never reused): a key for derived data
  int64_t sum_len = 0;          // sum of len
  bool unit = false;            // every row is one tap of weight exactly 1 (nearest, identity)
  bool transposed = false;      // a backward's table (transpose, or a transposed spec)
  // Set for a table the device builds from its row formulas (table_specs): then start, len and
  // w are empty, K is an upper bound on the taps of every row (rows carry len <= K), identity
  // is known from the sizes and scale alone, and sum_len is an estimate for the cost model. A
  // fixed-point spec carries its host table's precision, fixed_point_bound, identity, unit and
  // sum_len: the device quantises its rows with that precision.
  std::optional<TableSpec> spec;
};

// Sets id, sum_len and unit from the rows.
void finish_table(AxisTable& t);


// Whether the CPU kernels torch dispatches to in this process (its CPU capability, fixed at
// start-up) contract a * b + c into fused multiply-adds.
bool native_cpu_kernels_fma();

// Modes with a uint8 forward, as native torch has them: nearest and nearest-exact copy
// elements; linear, cubic and lanczos run ATen's int16 fixed-point arithmetic.
inline bool uint8_fixed_point(Mode m) {
  return m == Mode::Linear || m == Mode::Cubic || m == Mode::Lanczos3;
}
inline bool uint8_supported(Mode m) {
  return m == Mode::Nearest || m == Mode::NearestExact || uint8_fixed_point(m);
}

// Table for one axis in the forward direction.
AxisTable build_table(const Options& opt, int64_t in_size, int64_t out_size, double scale);

// Transposed table: for each input index the window of outputs that read it.
AxisTable transpose(const AxisTable& t);

// Whether an axis' table is computed in double whatever the dtype (the filters only PIL or TF
// define: tables.cpp).
bool table_in_double(const Options& opt);

// The fixed per-axis inputs of the row formulas (rows.h), as native derives them: the scale by
// UpSample.h area_pixel_compute_scale in T; for the PIL-style windows the support, the inverse
// scale and the tap bound of UpSampleKernel.cpp _compute_index_ranges_weights.
template <typename T>
rows::AxisParams<T> axis_params(const Options& opt, int64_t in, int64_t out, double s) {
  rows::AxisParams<T> p;
  p.mode = opt.mode;
  const bool nearest = opt.mode == Mode::Nearest || opt.mode == Mode::NearestExact;
  p.align_corners = opt.align_corners && !nearest;
  p.stretch = opt.antialias;
  p.uint8 = opt.uint8 && (opt.mode == Mode::Linear || opt.mode == Mode::Cubic) && !opt.antialias;
  p.in = in;
  p.out = out;
  p.scale = area_pixel_compute_scale<T>(in, out, p.align_corners, s);
  const double radius = filter_radius(opt.mode);
  const bool wide = p.stretch && p.scale >= T(1);
  p.support = wide ? static_cast<T>(radius * p.scale) : static_cast<T>(radius);
  p.max_taps = static_cast<int64_t>(std::ceil(static_cast<double>(p.support))) * 2 + 1;
  p.invscale = wide ? static_cast<T>(1.0 / static_cast<double>(p.scale)) : T(1);
  return p;
}

// Upper bounds on the taps per row of an axis' forward table (after trimming: <= in) and of its
// transpose, from the sizes, options and scale alone: a device allocates its tables with them
// before any row exists.
int64_t forward_taps_bound(const Options& opt, int64_t in, int64_t out, double s);
int64_t transposed_taps_bound(const Options& opt, int64_t in, int64_t out, double s);

// Tables a device builds itself (AxisTable::spec): one per spatial axis, the transposed ones when
// `transposed`. O(1) per axis on the host; no rows are computed, except for the fixed-point
// (uint8) tables, whose int16 precision ATen derives from the largest weight of all rows: those
// take it (and their summaries) from the host's cached table, and the device builds the rows.
std::vector<std::shared_ptr<const AxisTable>> table_specs(
    const Options& opt, c10::IntArrayRef in_spatial, c10::IntArrayRef out_spatial,
    std::optional<c10::ArrayRef<double>> scales, bool transposed);

// Fails (c10::Error) when the tables for these sizes would need more memory than the machine
// has available: a table costs ~ (16 + 8 K) bytes per row, one row per output sample of its
// axis (per input sample when transposed), so a 1-D axis of ~10^9 samples needs tens of GB.
// Checked before the output is allocated, so that such a call fails instead of exhausting
// memory. Cheap: only estimates above 256 MiB read /proc/meminfo.
void check_table_memory(const Options& opt, c10::IntArrayRef in_spatial,
                        c10::IntArrayRef out_spatial, std::optional<c10::ArrayRef<double>> scales,
                        bool transposed);

// One table per spatial axis (the transposed ones when `transposed`), from a small process-wide
// LRU cache of immutable tables (thread-safe): repeated calls with the same sizes and options
// (every training step) do not rebuild them. Scales may be absent, or hold non-positive
// entries (absent).
std::vector<std::shared_ptr<const AxisTable>> cached_tables(
    const Options& opt, c10::IntArrayRef in_spatial, c10::IntArrayRef out_spatial,
    std::optional<c10::ArrayRef<double>> scales, bool transposed);

}  // namespace resize_ad
