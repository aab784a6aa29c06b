// uint8 passes of the separable executor on the CPU: the tables prepared for the kernels
// (U8Axis), the choice of kernel form per pass, and the two compiled copies of the kernels.
#include "fixed_point.h"

#include <ATen/Parallel.h>

#include "isa.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "../common/lru_cache.h"

namespace resize_ad {
namespace {

// How a pass is split and which kernel runs it (fixed_point_kernels.h).
// Unit: element gather per line. Generic (any inner) and Rows (inner >= 32, AVX2): per output
// row. Planar (inner == 1), Interleaved3 / 4 (inner == C): per line, AVX2. Shuffle: a unit
// table of fewer than kShuffleInner bytes per position, per line, AVX2 (the byte shuffles of
// U8Axis::vstart / shuf).
enum class U8Form : int { Unit, Generic, Rows, Planar, Interleaved3, Interleaved4, Shuffle };

// Positions of fewer bytes than this (nearest along the last axis of planes, of RGB and RGBA
// pixels) are copied by the Shuffle form; longer ones are a memcpy each.
constexpr int64_t kShuffleInner = 16;

// One axis table in integers, for the kernels. Immutable once built; cached per table and form.
struct U8Axis {
  int64_t in = 0, out = 0, K = 1;
  int precision = 0;
  std::vector<int64_t> start, len;
  std::vector<int32_t> w;  // [out * K]: the int16 weights n of n / 2^precision
  // Rows: vw holds kp (K rounded up to even) int16 weights per output row, zero-padded.
  // Vector forms of a line (Planar, Interleaved*): output pixels [0, nvec) read kp taps from
  // vstart[o], a start moved left where the window would run past the line (the weights move
  // right with it, zeros around them), so that every load stays inside the line. Planar: kp
  // weights per pixel. Interleaved: kp / 4 blocks of 16: (w_4c, w_4c+1) four times, then
  // (w_4c+2, w_4c+3) four times (the pair order of interleaved_window). Pixels from nvec on run
  // the scalar form.
  int64_t kp = 0, nvec = 0;
  std::vector<int32_t> vstart;
  std::vector<int16_t> vw;
  // Shuffle (a unit table; a line of `inner` bytes per position): the output line's bytes in
  // blocks of 16 (the last block ends at the line's end, overlapping the one before). Block i
  // whose bytes lie within 16 of each other: the 16 bytes from vstart[i] >= 0 of the input line
  // shuffled by shuf[32 i ..]; within 32 (downscales by up to two): the 32 from -vstart[i] - 2,
  // each half shuffled by its 16 of shuf[32 i ..] (zeros where the other half has the byte) and
  // the two or-ed; vstart[i] = -1 where they lie further apart (copied byte by byte). nvec: the
  // blocks that shuffle.
  int64_t inner = 0;
  std::vector<uint8_t> shuf;
};

// Bytes a load of the vector form reads past the kp pixels of its window: interleaved_window
// loads 16 bytes for four 3-byte pixels.
int64_t slack_pixels(U8Form f) { return f == U8Form::Interleaved3 ? 2 : 0; }

// The blocks of the Shuffle form (U8Axis::shuf) for positions of `inner` bytes.
void build_shuffles(U8Axis& A, int64_t inner) {
  A.inner = inner;
  const int64_t in_bytes = A.in * inner, out_bytes = A.out * inner;
  if (in_bytes < 16 || out_bytes < 16) return;  // no block: every byte copied one by one
  const int64_t blocks = (out_bytes + 15) / 16;
  A.vstart.assign(blocks, -1);
  A.shuf.assign(blocks * 32, 0);
  int64_t src[16];
  for (int64_t i = 0; i < blocks; ++i) {
    const int64_t j0 = std::min(16 * i, out_bytes - 16);
    int64_t lo = in_bytes, hi = 0;
    for (int64_t j = 0; j < 16; ++j) {
      const int64_t o = (j0 + j) / inner;
      src[j] = A.start[o] * inner + (j0 + j) % inner;
      lo = std::min(lo, src[j]);
      hi = std::max(hi, src[j]);
    }
    uint8_t* m = A.shuf.data() + 32 * i;
    if (hi - lo < 16) {
      const int64_t base = std::min(lo, in_bytes - 16);  // the load stays inside the line
      A.vstart[i] = static_cast<int32_t>(base);
      for (int64_t j = 0; j < 16; ++j) m[j] = static_cast<uint8_t>(src[j] - base);
    } else if (hi - lo < 32 && in_bytes >= 32) {
      const int64_t base = std::min(lo, in_bytes - 32);
      A.vstart[i] = static_cast<int32_t>(-base - 2);
      for (int64_t j = 0; j < 16; ++j) {
        const int64_t r = src[j] - base;  // 0x80: the shuffle's zero
        m[j] = static_cast<uint8_t>(r < 16 ? r : 0x80);
        m[16 + j] = static_cast<uint8_t>(r < 16 ? 0x80 : r - 16);
      }
    } else {
      continue;
    }
    ++A.nvec;
  }
}

std::shared_ptr<const U8Axis> build_axis(const AxisTable& t, U8Form form, int64_t inner) {
  auto axis = std::make_shared<U8Axis>();
  U8Axis& A = *axis;
  A.in = t.in_size;
  A.out = t.out_size;
  A.K = t.K;
  A.precision = t.precision;
  A.start = t.start;
  A.len = t.len;
  if (form == U8Form::Shuffle) {
    build_shuffles(A, inner);
    return axis;
  }
  A.w.resize(t.w.size());
  const double one = std::ldexp(1.0, t.precision);
  for (size_t i = 0; i < t.w.size(); ++i) A.w[i] = static_cast<int32_t>(std::lround(t.w[i] * one));
  if (form == U8Form::Rows) {
    // (w_2j, w_2j+1) int16 pairs per output row, a zero after an odd last tap: one broadcast
    // per pair of input rows.
    A.kp = (A.K + 1) / 2 * 2;
    A.vw.assign(A.out * A.kp, 0);
    for (int64_t o = 0; o < A.out; ++o)
      for (int64_t k = 0; k < A.len[o]; ++k) A.vw[o * A.kp + k] = static_cast<int16_t>(A.w[o * A.K + k]);
    return axis;
  }
  const bool planar = form == U8Form::Planar;
  if (!planar && form != U8Form::Interleaved3 && form != U8Form::Interleaved4) return axis;
  A.kp = planar ? (A.K <= 8 ? 8 : (A.K + 15) / 16 * 16) : (A.K + 3) / 4 * 4;
  const int64_t limit = A.in - A.kp - slack_pixels(form);  // the largest start a full load allows
  A.vstart.assign(A.out, 0);
  A.vw.assign(A.out * (planar ? A.kp : A.kp * 4), 0);
  for (int64_t o = 0; o < A.out; ++o) {
    const int64_t vs = std::min(A.start[o], limit);
    if (vs < 0 || vs + A.kp < A.start[o] + A.len[o]) break;  // windows only move right
    A.vstart[o] = static_cast<int32_t>(vs);
    const int64_t shift = A.start[o] - vs;
    for (int64_t k = 0; k < A.len[o]; ++k) {
      const int64_t tap = k + shift;
      const int16_t wk = static_cast<int16_t>(A.w[o * A.K + k]);
      if (planar) {
        A.vw[o * A.kp + tap] = wk;
      } else {
        // block tap / 4; within it, lane (tap % 4) / 2 and pair slot tap % 2, four channels
        int16_t* blk = A.vw.data() + o * A.kp * 4 + (tap / 4) * 16 + ((tap % 4) / 2) * 8 + (tap % 2);
        for (int c = 0; c < 4; ++c) blk[2 * c] = wk;
      }
    }
    A.nvec = o + 1;
  }
  return axis;
}

struct U8Key {
  uint64_t id;
  U8Form form;
  int64_t inner;  // Shuffle's bytes per position; 0 for the other forms
  bool operator==(const U8Key& o) const { return id == o.id && form == o.form && inner == o.inner; }
};

std::shared_ptr<const U8Axis> axis_for(const AxisTable& t, U8Form form, int64_t inner) {
  // Leaked: usable during static destruction.
  static auto* cache = new LruCache<U8Key, U8Axis>(64, size_t{128} << 20);
  auto bytes = [](const U8Axis& A) {
    return (A.start.size() + A.len.size()) * sizeof(int64_t) +
           (A.w.size() + A.vstart.size()) * sizeof(int32_t) + A.vw.size() * sizeof(int16_t) + A.shuf.size();
  };
  if (form != U8Form::Shuffle) inner = 0;
  return cache->get(U8Key{t.id, form, inner}, [&] { return build_axis(t, form, inner); }, bytes);
}

#define RESIZE_AD_KERNELS "fixed_point_kernels.h"
#include "isa_twice.h"

U8Form form_of(const AxisTable& t, int64_t inner, bool avx2) {
  if (t.unit) return avx2 && inner < kShuffleInner ? U8Form::Shuffle : U8Form::Unit;
  if (avx2 && inner == 1) return U8Form::Planar;
  if (avx2 && inner == 3) return U8Form::Interleaved3;
  if (avx2 && inner == 4) return U8Form::Interleaved4;
  if (avx2 && inner >= 32) return U8Form::Rows;  // vertical_rows: 32 bytes of a row at a time
  return U8Form::Generic;
}

}  // namespace

bool fixed_point_fits_int32(const AxisTable& t) {
  // The rounding term plus the largest |sum| a row reaches over inputs in [0, 255].
  return t.precision < 31 && t.fixed_point_bound + std::ldexp(0.5, t.precision) < 2147483647.0;
}

void axis_pass_u8_cpu(const at::Tensor& src, const at::Tensor& dst, int64_t outer, int64_t inner,
                      const AxisTable& t) {
  const bool avx2 = cpu_has_avx2();
  U8Form form = form_of(t, inner, avx2);
  std::shared_ptr<const U8Axis> axis = axis_for(t, form, inner);
  if (form == U8Form::Shuffle && 2 * axis->nvec < static_cast<int64_t>(axis->vstart.size())) {
    // Mostly blocks whose bytes lie too far apart (downscales): a copy per position.
    form = U8Form::Unit;
    axis = axis_for(t, form, inner);
  }
  const U8Axis& A = *axis;
  const uint8_t* s = src.const_data_ptr<uint8_t>();
  uint8_t* d = dst.mutable_data_ptr<uint8_t>();
  // Lines (of out * inner bytes) for the line forms, output rows (of inner bytes) otherwise.
  const bool by_line = form != U8Form::Rows && form != U8Form::Generic;
  const int64_t items = by_line ? outer : outer * A.out;
  const double taps = t.unit ? 1.0 : static_cast<double>(t.sum_len) / static_cast<double>(A.out);
  const double item_work = static_cast<double>(by_line ? A.out * inner : inner) * taps;
  const int64_t grain = std::max<int64_t>(1, static_cast<int64_t>(32768.0 / std::max(1.0, item_work)));
  at::parallel_for(0, items, grain, [&](int64_t i0, int64_t i1) {
#if RESIZE_AD_HAVE_AVX2_BUILD
    if (avx2) return avx2::run_range(form, A, s, d, inner, i0, i1);
#endif
    base::run_range(form, A, s, d, inner, i0, i1);
  });
}

}  // namespace resize_ad
