#include "tables.h"

#include <ATen/Version.h>

#include "lru_cache.h"

#include <c10/util/Exception.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <new>
#include <stdexcept>
#include <atomic>
#include <cstring>
#include <limits>

#include "rows.h"

namespace resize_ad {

// Precision of a mode's table arithmetic. The modes native torch has (linear, cubic, lanczos)
// follow ATen's opmath type (float for float32 and the half types), so float32 results match
// native's. The filters only PIL or TF define are computed in double for every dtype, as PIL's
// precompute_coeffs does: in float, the support edges of box (|x| = 0.5) and gaussian
// (|x| = 1.5) move by rounding, and a tap that PIL keeps can be dropped (or the converse).
bool table_in_double(const Options& opt) {
  switch (opt.mode) {
    case Mode::Box:
    case Mode::Hamming:
    case Mode::Lanczos5:
    case Mode::Mitchell:
    case Mode::Gaussian:
      return true;
    default:
      return opt.double_math;
  }
}

namespace {

struct Row {
  int64_t start;
  std::vector<double> w;
  double wmax = -1.0;  // uint8 tables: the value ATen's int16 precision is derived from
};

// ATen _compute_index_ranges_int16_weights: the largest precision p (< 22) with
// round(wmax * 2^(p + 1)) < 2^15, each weight rounded half away from zero to an int16 n, so
// the weight is n / 2^p (exact in float and double).
int quantize_u8(std::vector<Row>& rows) {
  double wmax = 0.0;
  for (const auto& r : rows) {
    double m = r.wmax;
    if (m < 0) {
      m = 0.0;
      for (double v : r.w) m = std::max(m, v);
    }
    wmax = std::max(wmax, m);
  }
  int p = 0;
  for (p = 0; p < 22; ++p) {
    const int next = static_cast<int>(0.5 + wmax * (1 << (p + 1)));
    if (next >= (1 << 15)) break;
  }
  p = std::max(p, 1);
  for (auto& r : rows)
    for (double& w : r.w) w = rows::fixed_point_weight(w, p);
  return p;
}

template <bool Fma, typename T>
std::vector<Row> make_rows(const Options& opt, int64_t in, int64_t out, double s) {
  const rows::AxisParams<T> p = axis_params<T>(opt, in, out, s);
  std::vector<double> buf(rows::row_capacity(p));
  std::vector<Row> result;
  result.reserve(out);
  for (int64_t o = 0; o < out; ++o) {
    int64_t start = 0;
    double wmax = -1.0;
    const int64_t n = rows::table_row<Fma>(p, o, start, buf.data(), wmax);
    result.push_back({start, std::vector<double>(buf.begin(), buf.begin() + n), wmax});
  }
  return result;
}

std::vector<Row> make_rows(const Options& opt, int64_t in, int64_t out, double s) {
  if (table_in_double(opt))
    return opt.fma ? make_rows<true, double>(opt, in, out, s) : make_rows<false, double>(opt, in, out, s);
  return opt.fma ? make_rows<true, float>(opt, in, out, s) : make_rows<false, float>(opt, in, out, s);
}

// Drops the exact-zero weights at both ends of a row. A weight of exactly 0 means the output
// does not depend on that input, and the kernels skip zero weights anyway (an inf there must
// not turn into 0 * inf = NaN); trimming just saves the reads.
void trim_zeros(Row& r, int64_t in) {
  size_t lo = 0, hi = r.w.size();
  while (lo < hi && r.w[lo] == 0.0) ++lo;
  while (hi > lo && r.w[hi - 1] == 0.0) --hi;
  if (lo == 0 && hi == r.w.size()) return;
  r.start = std::min<int64_t>(r.start + static_cast<int64_t>(lo), in - 1);
  r.w = std::vector<double>(r.w.begin() + lo, r.w.begin() + hi);
}

}  // namespace

bool native_cpu_kernels_fma() {
  // x86: the DEFAULT kernels target SSE2 only (no FMA instructions, nothing to contract into);
  // AVX2 and AVX512 are built with -mfma. Elsewhere (aarch64, ppc64le, s390x) FMA is part of the
  // base instruction set and GCC contracts in every kernel.
  static const bool fma = [] {
#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
    return at::get_cpu_capability() != "DEFAULT";
#else
    return true;
#endif
  }();
  return fma;
}

AxisTable build_table(const Options& opt, int64_t in, int64_t out, double s) {
  TORCH_CHECK(in > 0 && out > 0, "resize_ad: input and output sizes should be greater than 0, got input ",
              in, " and output ", out);
  AxisTable t;
  t.in_size = in;
  t.out_size = out;
  std::vector<Row> rows = make_rows(opt, in, out, s);
  if (opt.uint8 && uint8_fixed_point(opt.mode))
    t.precision = quantize_u8(rows);
  for (auto& r : rows) trim_zeros(r, in);
  for (const auto& r : rows) t.K = std::max<int64_t>(t.K, static_cast<int64_t>(r.w.size()));
  t.K = std::max<int64_t>(t.K, 1);
  t.start.resize(out);
  t.len.resize(out);
  t.w.assign(out * t.K, 0.0);
  bool identity = in == out;
  for (int64_t o = 0; o < out; ++o) {
    const Row& r = rows[o];
    t.start[o] = r.start;
    t.len[o] = static_cast<int64_t>(r.w.size());
    std::copy(r.w.begin(), r.w.end(), t.w.begin() + o * t.K);
    identity = identity && t.len[o] == 1 && r.start == o && r.w[0] == 1.0;
  }
  t.identity = identity;
  finish_table(t);
  return t;
}

static uint64_t new_table_id() {
  static std::atomic<uint64_t> next_id{1};
  return next_id.fetch_add(1, std::memory_order_relaxed);
}

void finish_table(AxisTable& t) {
  t.id = new_table_id();
  t.sum_len = 0;
  t.unit = t.K == 1;
  t.fixed_point_bound = 0.0;
  const double one = std::ldexp(1.0, t.precision);
  for (int64_t o = 0; o < t.out_size; ++o) {
    t.sum_len += t.len[o];
    t.unit = t.unit && t.len[o] == 1 && t.w[o] == 1.0;
    if (t.precision == 0) continue;
    double s = 0.0;
    for (int64_t k = 0; k < t.len[o]; ++k) s += std::abs(t.w[o * t.K + k]) * one;
    t.fixed_point_bound = std::max(t.fixed_point_bound, s * 255.0);
  }
}

AxisTable transpose(const AxisTable& t) {
  AxisTable r;
  r.in_size = t.out_size;
  r.out_size = t.in_size;
  r.identity = t.identity;
  r.precision = t.precision;
  r.transposed = true;
  std::vector<int64_t> first(t.in_size, -1), last(t.in_size, -2);
  for (int64_t o = 0; o < t.out_size; ++o) {
    for (int64_t k = 0; k < t.len[o]; ++k) {
      int64_t i = t.start[o] + k;
      if (first[i] < 0) first[i] = o;
      last[i] = o;
    }
  }
  r.K = 1;
  for (int64_t i = 0; i < t.in_size; ++i) r.K = std::max<int64_t>(r.K, last[i] - first[i] + 1);
  r.start.resize(t.in_size);
  r.len.resize(t.in_size);
  r.w.assign(t.in_size * r.K, 0.0);
  for (int64_t i = 0; i < t.in_size; ++i) {
    r.start[i] = first[i] < 0 ? 0 : first[i];
    r.len[i] = first[i] < 0 ? 0 : last[i] - first[i] + 1;
  }
  for (int64_t o = 0; o < t.out_size; ++o) {
    for (int64_t k = 0; k < t.len[o]; ++k) {
      int64_t i = t.start[o] + k;
      r.w[i * r.K + (o - r.start[i])] += t.w[o * t.K + k];
    }
  }
  finish_table(r);
  return r;
}

namespace {

// Upper estimate of the taps per row of an axis' forward table.
double taps_estimate(const Options& opt, int64_t in, int64_t out, double s) {
  switch (opt.mode) {
    case Mode::Nearest:
    case Mode::NearestExact:
      return 1.0;
    case Mode::Area:
      return std::ceil(static_cast<double>(in) / static_cast<double>(out)) + 1.0;
    case Mode::Linear:
      if (!opt.antialias) return 2.0;
      break;
    case Mode::Cubic:
      if (!opt.antialias) return 4.0;
      break;
    default:
      break;
  }
  double scale = s > 0.0 ? 1.0 / s : static_cast<double>(in) / static_cast<double>(out);
  if (opt.align_corners) scale = out > 1 ? static_cast<double>(in - 1) / (out - 1) : 0.0;
  const bool stretch = opt.antialias;  // linear / cubic only reach here with antialias
  const double support = filter_radius(opt.mode) * (stretch ? std::max(scale, 1.0) : 1.0);
  return std::min(2.0 * std::ceil(support) + 1.0, static_cast<double>(in));
}

// MemAvailable of /proc/meminfo in bytes, or -1 where it cannot be read.
double available_memory() {
  std::FILE* f = std::fopen("/proc/meminfo", "r");
  if (f == nullptr) return -1.0;
  char line[256];
  double kb = -1.0;
  while (std::fgets(line, sizeof(line), f) != nullptr) {
    if (std::sscanf(line, "MemAvailable: %lf kB", &kb) == 1) break;
  }
  std::fclose(f);
  return kb < 0.0 ? -1.0 : kb * 1024.0;
}

}  // namespace

void check_table_memory(const Options& opt, c10::IntArrayRef in_spatial,
                        c10::IntArrayRef out_spatial, std::optional<c10::ArrayRef<double>> scales,
                        bool transposed) {
  if (in_spatial.size() != out_spatial.size()) return;  // build_tables reports it
  double worst = 0.0;
  size_t worst_axis = 0;
  for (size_t d = 0; d < in_spatial.size(); ++d) {
    const int64_t in = in_spatial[d], out = out_spatial[d];
    if (in <= 0 || out <= 0) continue;
    const double s = (scales.has_value() && d < scales->size()) ? (*scales)[d] : 0.0;
    const double k = taps_estimate(opt, in, out, s);
    // forward table + its flat staging + the kernel's copy of the weights: 16 + 24 K per row
    double bytes = static_cast<double>(out) * (16.0 + 24.0 * k);
    if (transposed) {  // plus the transposed table, alive at the same time
      const double kt = std::min(std::ceil(k * out / static_cast<double>(in)) + 1.0, static_cast<double>(out));
      bytes += static_cast<double>(in) * (16.0 + 16.0 * kt);
    }
    if (bytes > worst) {
      worst = bytes;
      worst_axis = d;
    }
  }
  if (worst < 256.0 * 1024 * 1024) return;
  const double avail = available_memory();
  TORCH_CHECK(avail < 0.0 || worst < avail, "resize_ad: the interpolation weight table of spatial axis ",
              worst_axis, " (", in_spatial[worst_axis], " -> ", out_spatial[worst_axis],
              " samples) would need about ", worst / (1024.0 * 1024 * 1024), " GiB, more than the ",
              avail / (1024.0 * 1024 * 1024), " GiB of memory available. Resize this axis to a smaller size, or in overlapping pieces "
              "(the tables of an axis are ~(16 + 8 * taps) bytes per sample).");
}

// One size per spatial axis on both sides, and one finite scale per axis when scales are given.
static void check_table_args(c10::IntArrayRef in_spatial, c10::IntArrayRef out_spatial,
                             std::optional<c10::ArrayRef<double>> scales) {
  TORCH_CHECK(in_spatial.size() == out_spatial.size(), "resize_ad: got ", in_spatial.size(),
              " input spatial sizes but ", out_spatial.size(), " output sizes");
  if (scales.has_value()) {
    TORCH_CHECK(scales->size() == in_spatial.size(), "resize_ad: expected ", in_spatial.size(),
                " scales (one per spatial dimension), got ", scales->size());
    for (double s : *scales) {
      TORCH_CHECK(std::isfinite(s), "resize_ad: scales must be finite (non-positive entries mean "
                  "'absent'), got ", *scales);
    }
  }
}

namespace {

struct TableKey {
  Mode mode;
  bool align_corners, antialias, double_math, transposed;
  bool uint8;
  bool fma;
  int64_t in, out;
  double scale;  // 0 when absent
  bool operator==(const TableKey& o) const {
    return mode == o.mode && align_corners == o.align_corners && antialias == o.antialias &&
           double_math == o.double_math && transposed == o.transposed &&
           uint8 == o.uint8 && fma == o.fma && in == o.in && out == o.out &&
           std::memcmp(&scale, &o.scale, sizeof(double)) == 0;
  }
};

size_t table_bytes(const AxisTable& t) {
  return t.start.size() * sizeof(int64_t) + t.len.size() * sizeof(int64_t) +
         t.w.size() * sizeof(double);
}

// The table of one axis. A table costs ~ (16 + 8 K) bytes per output row of its axis (K = taps
// per row); running out of memory here is reported like an allocation failure of the output:
// a RuntimeError.
std::shared_ptr<const AxisTable> make_table(const Options& opt, const TableKey& key, size_t d) {
  try {
    AxisTable t = build_table(opt, key.in, key.out, key.scale);
    return std::make_shared<const AxisTable>(key.transposed ? transpose(t) : std::move(t));
  } catch (const std::bad_alloc&) {
    TORCH_CHECK(false, "resize_ad: out of memory building the weight table of spatial axis ", d,
                " (", key.in, " -> ", key.out, " samples; about 16 + 8 * taps "
                "bytes per sample of the longer side). Resize along this axis in pieces.");
  } catch (const std::length_error&) {
    TORCH_CHECK(false, "resize_ad: the weight table of spatial axis ", d, " (", key.in,
                " -> ", key.out, " samples) is too large to allocate");
  }
}

}  // namespace

std::vector<std::shared_ptr<const AxisTable>> cached_tables(
    const Options& opt, c10::IntArrayRef in_spatial, c10::IntArrayRef out_spatial,
    std::optional<c10::ArrayRef<double>> scales, bool transposed) {
  check_table_args(in_spatial, out_spatial, scales);
  static auto* cache = new LruCache<TableKey, AxisTable>(64, size_t{32} << 20);  // leaked: usable during static destruction
  std::vector<std::shared_ptr<const AxisTable>> tables;
  tables.reserve(in_spatial.size());
  for (size_t d = 0; d < in_spatial.size(); ++d) {
    const double s = scales.has_value() && (*scales)[d] > 0 ? (*scales)[d] : 0.0;
    const TableKey key{opt.mode, opt.align_corners, opt.antialias, opt.double_math, transposed,
                       opt.uint8, opt.fma, in_spatial[d], out_spatial[d], s};
    tables.push_back(cache->get(key, [&] { return make_table(opt, key, d); }, table_bytes));
  }
  return tables;
}

namespace {

template <typename T>
int64_t forward_taps(const Options& opt, int64_t in, int64_t out, double s) {
  const int64_t cap = rows::row_capacity(axis_params<T>(opt, in, out, s));
  return std::max<int64_t>(1, std::min(cap, in));
}

// Whether the rows are exactly x[o] * 1, from the row formulas' copy cases (rows.h): linear and
// the PIL-style windows copy an axis whose size does not change, area's bins are single samples
// then, and nearest, nearest-exact and bicubic (whose off-centre weights are exactly 0 at
// integer positions) read sample o alone when the scale is exactly 1.
template <typename T>
bool identity_rows(const Options& opt, int64_t in, int64_t out, double s) {
  if (in != out) return false;
  const rows::AxisParams<T> p = axis_params<T>(opt, in, out, s);
  switch (opt.mode) {
    case Mode::Nearest:
    case Mode::NearestExact:
      return p.scale == T(1);
    case Mode::Cubic:
      return p.stretch || p.uint8 || p.scale == T(1);
    default:
      return true;
  }
}

// Outputs that can read one input sample. Row o reads sample i only where its source position
// real(o) = sc * o + c lies in [i - A, i + B] (for every mode the window is a fixed reach around
// real(o), UpSample.h / UpSampleKernel.cpp); clamped taps add the rows beyond the borders to the
// first sample (real(o) <= bottom) and to the last (real(o) >= top). Counts are over o in
// [0, out) and widened by the rounding of real(o) in T.
template <typename T>
int64_t transposed_taps(const Options& opt, int64_t in, int64_t out, double s) {
  if (identity_rows<T>(opt, in, out, s)) return 1;
  const rows::AxisParams<T> p = axis_params<T>(opt, in, out, s);
  const double inf = std::numeric_limits<double>::infinity();
  double sc = static_cast<double>(p.scale), c = 0.0, A = 0.0, B = 1.0;
  double bottom = -inf, top = inf;
  const bool window = p.stretch || !(opt.mode == Mode::Nearest || opt.mode == Mode::NearestExact ||
                                     opt.mode == Mode::Area || opt.mode == Mode::Linear ||
                                     opt.mode == Mode::Cubic);
  const double centred = p.align_corners ? 0.0 : 0.5 * sc - 0.5;
  if (window) {  // [xmin, xmax) of the centre sc * (o + 0.5), +-support
    c = 0.5 * sc;
    A = static_cast<double>(p.support) - 0.5;
    B = static_cast<double>(p.support) + 0.5;
  } else if (opt.mode == Mode::Nearest) {  // floor(sc * o), clamped to in - 1
    top = static_cast<double>(in - 1);
  } else if (opt.mode == Mode::NearestExact) {  // floor(sc * (o + 0.5)), clamped
    c = 0.5 * sc;
    top = static_cast<double>(in - 1);
  } else if (opt.mode == Mode::Area) {  // [floor(o * in / out), ceil((o + 1) * in / out))
    sc = static_cast<double>(in) / static_cast<double>(out);
    A = sc;
  } else if (opt.mode == Mode::Linear) {  // floor(real) and floor(real) + 1, clamped
    c = centred;
    A = 1.0;
    top = static_cast<double>(in - 2);
  } else {  // cubic: floor(real) - 1 .. floor(real) + 2, clamped at both ends
    c = centred;
    A = 2.0;
    B = 2.0;
    bottom = 2.0;
    top = static_cast<double>(in - 3);
  }
  const double eps = sizeof(T) == sizeof(double) ? 1e-12 : 1e-5;
  const double m = eps * (static_cast<double>(in) + A + B + 2.0);
  const double n = static_cast<double>(out);
  if (!(sc > 0.0) || (A + B + 2 * m) / sc >= n) return out;
  double k = std::floor((A + B + 2 * m) / sc) + 1.0;
  if (bottom > -inf) k = std::max(k, std::floor((bottom + m - c) / sc) + 1.0);
  if (top < inf) k = std::max(k, n - std::max(0.0, std::ceil((top - m - c) / sc)));
  return std::max<int64_t>(1, static_cast<int64_t>(std::min(n, k)));
}

}  // namespace

int64_t forward_taps_bound(const Options& opt, int64_t in, int64_t out, double s) {
  return table_in_double(opt) ? forward_taps<double>(opt, in, out, s)
                              : forward_taps<float>(opt, in, out, s);
}

int64_t transposed_taps_bound(const Options& opt, int64_t in, int64_t out, double s) {
  return table_in_double(opt) ? transposed_taps<double>(opt, in, out, s)
                              : transposed_taps<float>(opt, in, out, s);
}

std::vector<std::shared_ptr<const AxisTable>> table_specs(
    const Options& opt, c10::IntArrayRef in_spatial, c10::IntArrayRef out_spatial,
    std::optional<c10::ArrayRef<double>> scales, bool transposed) {
  check_table_args(in_spatial, out_spatial, scales);
  std::vector<std::shared_ptr<const AxisTable>> tables;
  if (opt.uint8 && uint8_fixed_point(opt.mode)) {
    TORCH_INTERNAL_ASSERT(!transposed, "resize_ad: uint8 has no backward");
    const auto host = cached_tables(opt, in_spatial, out_spatial, scales, false);
    for (size_t d = 0; d < in_spatial.size(); ++d) {
      const int64_t in = in_spatial[d], out = out_spatial[d];
      const double s = scales.has_value() && (*scales)[d] > 0 ? (*scales)[d] : 0.0;
      AxisTable t;
      t.spec = TableSpec{opt, in, out, s, false};
      t.in_size = in;
      t.out_size = out;
      // the device's rows are untrimmed until it trims them: the host's K may be smaller
      t.K = forward_taps_bound(opt, in, out, s);
      t.identity = host[d]->identity;
      t.unit = host[d]->unit;
      t.sum_len = host[d]->sum_len;
      t.precision = host[d]->precision;
      t.fixed_point_bound = host[d]->fixed_point_bound;
      t.id = new_table_id();
      tables.push_back(std::make_shared<const AxisTable>(std::move(t)));
    }
    return tables;
  }
  for (size_t d = 0; d < in_spatial.size(); ++d) {
    const int64_t in = in_spatial[d], out = out_spatial[d];
    const double s = scales.has_value() && (*scales)[d] > 0 ? (*scales)[d] : 0.0;
    AxisTable t;
    t.spec = TableSpec{opt, in, out, s, transposed};
    t.transposed = transposed;
    t.identity = table_in_double(opt) ? identity_rows<double>(opt, in, out, s)
                                      : identity_rows<float>(opt, in, out, s);
    const int64_t k = forward_taps_bound(opt, in, out, s);
    t.in_size = transposed ? out : in;
    t.out_size = transposed ? in : out;
    t.K = transposed ? transposed_taps_bound(opt, in, out, s) : k;
    // The forward and the transposed table hold the same taps: out * (taps per forward row).
    const double taps = std::min(static_cast<double>(k), taps_estimate(opt, in, out, s));
    t.sum_len = t.identity ? t.out_size
                           : static_cast<int64_t>(std::min(static_cast<double>(out) * taps,
                                                           static_cast<double>(t.out_size * t.K)));
    t.unit = t.identity || (!transposed && (opt.mode == Mode::Nearest || opt.mode == Mode::NearestExact));
    t.id = new_table_id();
    tables.push_back(std::make_shared<const AxisTable>(std::move(t)));
  }
  return tables;
}

}  // namespace resize_ad
