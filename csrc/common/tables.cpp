#include "tables.h"

#include <c10/util/Exception.h>
#include <c10/util/SmallVector.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <list>
#include <mutex>

namespace resize_ad {
namespace {

// One row of a table. The weights live inline for the usual window sizes, so building a table
// does not allocate per row.
struct Row {
  int64_t start;
  c10::SmallVector<double, 16> w;
};

// Nearest: ATen cpu/UpSampleKernel.cpp HelperInterpNearest::compute_indices_weights
// (source index scale * o, floored in float). Native's 2-D CPU kernel uses UpSample.h
// nearest_idx instead, which special-cases out == in (copy) and out == 2 * in (o >> 1) even
// when an explicit scale says otherwise; we follow each rank as native does.
template <typename T>
Row nearest_row(int64_t o, int64_t in, int64_t out, double s, int spatial_dims) {
  if (spatial_dims == 2 && out == in) return {o, {1.0}};
  if (spatial_dims == 2 && out == 2 * in) return {o >> 1, {1.0}};
  T scale = area_pixel_compute_scale<T>(in, out, false, s);
  T real = area_pixel_compute_source_index<T>(scale, o, /*align_corners=*/true, false);
  int64_t i = static_cast<int64_t>(floorf(static_cast<float>(real)));
  return {std::min(i, in - 1), {1.0}};
}

// Nearest-exact: HelperInterpNearestExact (round half up of the pixel-centre index).
template <typename T>
Row nearest_exact_row(int64_t o, int64_t in, int64_t out, double s) {
  T scale = area_pixel_compute_scale<T>(in, out, false, s);
  T real = area_pixel_compute_source_index<T>(scale, o, /*align_corners=*/false, false);
  int64_t i = static_cast<int64_t>(floorf(static_cast<float>(real + 0.5)));
  return {std::min(i, in - 1), {1.0}};
}

// Linear: UpSample.h compute_source_index_and_lambda.
template <typename T>
Row linear_row(int64_t o, int64_t in, int64_t out, bool ac, double s) {
  if (in == out) return {o, {1.0}};
  T scale = area_pixel_compute_scale<T>(in, out, ac, s);
  T real = area_pixel_compute_source_index<T>(scale, o, ac, /*cubic=*/false);
  int64_t i0;
  T l1;
  guard_index_and_lambda(real, in, i0, l1);
  T l0 = T(1) - l1;
  if (i0 < in - 1) return {i0, {static_cast<double>(l0), static_cast<double>(l1)}};
  // Both taps read the last pixel (ATen's offset 0): one tap holding both weights.
  return {i0, {static_cast<double>(l0) + static_cast<double>(l1)}};
}

// Bicubic (A = -0.75, border taps replicated): HelperInterpCubic::compute_indices_weights.
template <typename T>
Row cubic_row(int64_t o, int64_t in, int64_t out, bool ac, double s) {
  T scale = area_pixel_compute_scale<T>(in, out, ac, s);
  T real = area_pixel_compute_source_index<T>(scale, o, ac, /*cubic=*/true);
  int64_t i;
  T t;
  guard_index_and_lambda(real, in, i, t);
  const T A = static_cast<T>(-0.75);
  T c[4] = {cubic_convolution2<T>(t + T(1), A), cubic_convolution1<T>(t, A),
            cubic_convolution1<T>(T(1) - t, A), cubic_convolution2<T>(T(2) - t, A)};
  auto clampi = [in](int64_t v) { return std::max<int64_t>(0, std::min<int64_t>(v, in - 1)); };
  int64_t lo = clampi(i - 1), hi = clampi(i + 2);
  Row r{lo, c10::SmallVector<double, 16>(hi - lo + 1, 0.0)};
  for (int j = 0; j < 4; ++j) r.w[clampi(i - 1 + j) - lo] += static_cast<double>(c[j]);
  return r;
}

// Area: adaptive average pooling bins [floor(o*I/O), ceil((o+1)*I/O)).
Row area_row(int64_t o, int64_t in, int64_t out) {
  int64_t a = (o * in) / out;
  int64_t b = ((o + 1) * in + out - 1) / out;
  return {a, c10::SmallVector<double, 16>(b - a, 1.0 / static_cast<double>(b - a))};
}

// PIL-style window (antialias and the extra filters): UpSampleKernel.cpp
// _compute_index_ranges_weights / _compute_indices_min_size_weights_aa, PIL precompute_coeffs.
// Like native's separable antialias kernel, an axis whose size does not change is copied,
// whatever scale was passed.
template <typename T>
Row filter_row(Mode mode, bool stretch, int64_t o, int64_t in, int64_t out, bool ac, double s) {
  if (in == out) return {o, {1.0}};
  T scale = area_pixel_compute_scale<T>(in, out, ac, s);
  const double radius = filter_radius(mode);
  const bool wide = stretch && scale >= T(1);
  T support = wide ? static_cast<T>(radius * scale) : static_cast<T>(radius);
  const int64_t max_taps = static_cast<int64_t>(std::ceil(static_cast<double>(support))) * 2 + 1;
  T invscale = wide ? static_cast<T>(1.0 / static_cast<double>(scale)) : T(1);
  T center = static_cast<T>(static_cast<double>(scale) * (o + 0.5));
  int64_t xmin = std::max<int64_t>(static_cast<int64_t>((center - support) + 0.5), 0);
  int64_t xsize = std::min<int64_t>(static_cast<int64_t>((center + support) + 0.5), in) - xmin;
  xsize = std::max<int64_t>(0, std::min<int64_t>(xsize, max_taps));
  Row r{xmin, c10::SmallVector<double, 16>(xsize)};
  T total = 0;
  c10::SmallVector<T, 16> w(xsize);
  for (int64_t j = 0; j < xsize; ++j) {
    T arg = static_cast<T>((static_cast<T>(j + xmin) - center + 0.5) * invscale);
    w[j] = filter_value<T>(mode, arg);
    total += w[j];
  }
  for (int64_t j = 0; j < xsize; ++j) r.w[j] = static_cast<double>(total != T(0) ? w[j] / total : w[j]);
  if (xsize == 0) r.start = std::min<int64_t>(xmin, in - 1);
  return r;
}

template <typename T>
Row make_row(const Options& opt, int64_t o, int64_t in, int64_t out, double s) {
  switch (opt.mode) {
    case Mode::Nearest: return nearest_row<T>(o, in, out, s, opt.spatial_dims);
    case Mode::NearestExact: return nearest_exact_row<T>(o, in, out, s);
    case Mode::Area: return area_row(o, in, out);
    case Mode::Linear:
      return opt.antialias ? filter_row<T>(opt.mode, true, o, in, out, opt.align_corners, s)
                           : linear_row<T>(o, in, out, opt.align_corners, s);
    case Mode::Cubic:
      return opt.antialias ? filter_row<T>(opt.mode, true, o, in, out, opt.align_corners, s)
                           : cubic_row<T>(o, in, out, opt.align_corners, s);
    default:
      return filter_row<T>(opt.mode, opt.antialias, o, in, out, opt.align_corners, s);
  }
}

}  // namespace

Mode parse_mode(const std::string& m) {
  if (m == "nearest") return Mode::Nearest;
  if (m == "nearest-exact") return Mode::NearestExact;
  if (m == "linear" || m == "bilinear" || m == "trilinear") return Mode::Linear;
  if (m == "bicubic" || m == "cubic") return Mode::Cubic;
  if (m == "area") return Mode::Area;
  if (m == "box") return Mode::Box;
  if (m == "hamming") return Mode::Hamming;
  if (m == "lanczos" || m == "lanczos3") return Mode::Lanczos3;
  if (m == "lanczos5") return Mode::Lanczos5;
  if (m == "mitchell") return Mode::Mitchell;
  if (m == "gaussian") return Mode::Gaussian;
  TORCH_CHECK_VALUE(false, "resize_ad: unknown mode '", m,
                    "'; use one of nearest, nearest-exact, linear, bilinear, trilinear, bicubic, "
                    "cubic, area, box, hamming, lanczos, lanczos3, lanczos5, mitchell, gaussian");
}

AxisTable build_table(const Options& opt, int64_t in, int64_t out, double s) {
  TORCH_CHECK(in > 0 && out > 0, "resize_ad: input and output sizes should be greater than 0, got input ",
              in, " and output ", out);
  AxisTable t;
  t.in_size = in;
  t.out_size = out;
  // Rows are appended to flat arrays as they are computed, then packed with the stride K.
  std::vector<double> flat;
  flat.reserve(out * 2);
  t.start.resize(out);
  t.len.resize(out);
  bool identity = in == out;
  for (int64_t o = 0; o < out; ++o) {
    const Row r = opt.double_math ? make_row<double>(opt, o, in, out, s)
                                  : make_row<float>(opt, o, in, out, s);
    t.start[o] = r.start;
    t.len[o] = static_cast<int64_t>(r.w.size());
    t.K = std::max<int64_t>(t.K, t.len[o]);
    flat.insert(flat.end(), r.w.begin(), r.w.end());
    identity = identity && t.len[o] == 1 && r.start == o && r.w[0] == 1.0;
  }
  t.K = std::max<int64_t>(t.K, 1);
  t.w.assign(out * t.K, 0.0);
  const double* f = flat.data();
  for (int64_t o = 0; o < out; ++o) {
    std::copy(f, f + t.len[o], t.w.begin() + o * t.K);
    f += t.len[o];
  }
  t.identity = identity;
  finish_table(t);
  return t;
}

void finish_table(AxisTable& t) {
  static std::atomic<uint64_t> next_id{1};
  t.id = next_id.fetch_add(1, std::memory_order_relaxed);
  t.sum_len = 0;
  t.unit = t.K == 1;
  for (int64_t o = 0; o < t.out_size; ++o) {
    t.sum_len += t.len[o];
    t.unit = t.unit && t.len[o] == 1 && t.w[o] == 1.0;
  }
}

AxisTable transpose(const AxisTable& t) {
  AxisTable r;
  r.in_size = t.out_size;
  r.out_size = t.in_size;
  r.identity = t.identity;
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

std::vector<AxisTable> build_tables(const Options& opt, c10::IntArrayRef in_spatial,
                                    c10::IntArrayRef out_spatial,
                                    std::optional<c10::ArrayRef<double>> scales, bool transposed) {
  TORCH_CHECK(in_spatial.size() == out_spatial.size(), "resize_ad: got ", in_spatial.size(),
              " input spatial sizes but ", out_spatial.size(), " output sizes");
  if (scales.has_value()) {
    TORCH_CHECK(scales->size() == in_spatial.size(), "resize_ad: expected ", in_spatial.size(),
                " scales (one per spatial dimension), got ", scales->size());
  }
  std::vector<AxisTable> tables;
  for (size_t d = 0; d < in_spatial.size(); ++d) {
    double s = scales.has_value() ? (*scales)[d] : 0.0;
    AxisTable t = build_table(opt, in_spatial[d], out_spatial[d], s);
    tables.push_back(transposed ? transpose(t) : std::move(t));
  }
  return tables;
}

namespace {

struct TableKey {
  Mode mode;
  bool align_corners, antialias, double_math, transposed;
  int spatial_dims;
  int64_t in, out;
  double scale;  // 0 when absent
  bool operator==(const TableKey& o) const {
    return mode == o.mode && align_corners == o.align_corners && antialias == o.antialias &&
           double_math == o.double_math && transposed == o.transposed &&
           spatial_dims == o.spatial_dims && in == o.in && out == o.out &&
           std::memcmp(&scale, &o.scale, sizeof(double)) == 0;
  }
};

size_t table_bytes(const AxisTable& t) {
  return t.start.size() * sizeof(int64_t) + t.len.size() * sizeof(int64_t) +
         t.w.size() * sizeof(double);
}

class TableCache {
 public:
  std::shared_ptr<const AxisTable> get(const TableKey& key, const Options& opt) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto it = entries_.begin(); it != entries_.end(); ++it) {
        if (it->first == key) {
          entries_.splice(entries_.begin(), entries_, it);  // most recently used first
          return entries_.front().second;
        }
      }
    }
    AxisTable t = build_table(opt, key.in, key.out, key.scale);
    auto table = std::make_shared<const AxisTable>(key.transposed ? transpose(t) : std::move(t));
    const size_t bytes = table_bytes(*table);
    if (bytes > kMaxBytes / 4) return table;
    std::lock_guard<std::mutex> lock(mu_);
    entries_.emplace_front(key, table);
    bytes_ += bytes;
    while (entries_.size() > kMaxEntries || bytes_ > kMaxBytes) {
      bytes_ -= table_bytes(*entries_.back().second);
      entries_.pop_back();
    }
    return table;
  }

 private:
  static constexpr size_t kMaxEntries = 64;
  static constexpr size_t kMaxBytes = size_t{32} << 20;
  std::mutex mu_;
  std::list<std::pair<TableKey, std::shared_ptr<const AxisTable>>> entries_;
  size_t bytes_ = 0;
};

}  // namespace

std::vector<std::shared_ptr<const AxisTable>> cached_tables(
    const Options& opt, c10::IntArrayRef in_spatial, c10::IntArrayRef out_spatial,
    std::optional<c10::ArrayRef<double>> scales, bool transposed) {
  TORCH_CHECK(in_spatial.size() == out_spatial.size(), "resize_ad: got ", in_spatial.size(),
              " input spatial sizes but ", out_spatial.size(), " output sizes");
  if (scales.has_value()) {
    TORCH_CHECK(scales->size() == in_spatial.size(), "resize_ad: expected ", in_spatial.size(),
                " scales (one per spatial dimension), got ", scales->size());
  }
  static TableCache* cache = new TableCache();  // leaked: usable during static destruction
  std::vector<std::shared_ptr<const AxisTable>> tables;
  tables.reserve(in_spatial.size());
  for (size_t d = 0; d < in_spatial.size(); ++d) {
    const double s = scales.has_value() && (*scales)[d] > 0 ? (*scales)[d] : 0.0;
    TableKey key{opt.mode, opt.align_corners, opt.antialias, opt.double_math, transposed,
                 opt.spatial_dims, in_spatial[d], out_spatial[d], s};
    tables.push_back(cache->get(key, opt));
  }
  return tables;
}

}  // namespace resize_ad
