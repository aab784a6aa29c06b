// CPU kernels of the three executors (common/plan.h) and the CPU op registration.
//
// The input is viewed in its physical order as [outer, S_1, ..., S_k, inner]; a line is the
// in_k * inner contiguous elements along the last spatial axis S_k. The line sweep computes one
// output line (b, o_1, ..., o_{k-1}) as
//   blend:  tmp = sum over the taps of the leading axes (products of their weights) of the
//           input lines those taps select, a contiguous multiply-add;
//   along:  out[o] = sum_j w_k[o, j] * tmp[start_k[o] + j] (per inner element),
// so each table is applied as in a separable pass, but the intermediate is one line in L1
// instead of a tensor. A separable pass is the same kernel with k = 1. The product gather here
// is the CPU reference of the CUDA one (common/product_gather.h), run when tests force it.
// All of them read the tables of tables.h and nothing else: no mode-specific code here.
#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <ATen/Parallel.h>
#include <ATen/core/Tensor.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>
#include <torch/library.h>

#include "isa.h"


#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <type_traits>
#include <unistd.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#include <vector>

#include "../common/lru_cache.h"
#include "../common/plan.h"
#include "../common/product_gather.h"
#include "fixed_point.h"
#include "parallel.h"
#include "planar_copy.h"

namespace resize_ad {
namespace {

// Line::blk_rel of a padding tap that reads the zero slot: past every load (8 * 4 floats), so
// pick_padded reads it as 0.
constexpr uint8_t kPadRel = 255;
// Line::blk_loads of a block whose taps each take every second position from their first
// (halvings): tap j's eight are the even floats of the sixteen at blk_pos + blk_rel[j * 8].
constexpr uint8_t kStride2 = 5;
// A kStride2 block whose taps go in pairs one position apart (bilinear and bicubic halvings):
// taps 2m and 2m + 1 are the even and the odd floats of the same two loads.
constexpr uint8_t kStride2Pairs = 6;
// Line::blk_loads of a block of two or more taps per output (kRowsTaps at most), each output's
// taps the positions from its first (idx) on: four floats at a time from each output's first,
// transposed (downscales whose blocks span sixteen positions or more). blk_rel marks its
// padding taps kPadRel.
constexpr uint8_t kRows = 7;
// Line::blk_loads of a block whose taps follow one another in every output, tap j at its first
// plus j line steps (interpolation inside the line), and whose first taps lie within eight
// floats: tap j's eight are the same picks (blk_rel's first eight) from the eight floats at
// blk_pos + j * step. One index vector and one permute per tap, and one kind of block along a
// line where the taps' spans alternate between one load and two.
constexpr uint8_t kShifted = 8;

// One axis table, prepared for the kernels in the accumulation type. Built once per table and
// use (line_for), then shared: immutable.
template <typename acc_t>
struct Line {
  int64_t in = 0, out = 0, K = 1;
  bool identity = false;
  bool unit = false;  // every row: one tap of weight exactly 1 (nearest, identity)
  std::vector<int64_t> start, len;
  int64_t sum_len = 0;  // the sum of len
  std::vector<acc_t> w;            // [out * K], row o at o * K
  // Tap j of row o reads position start[o] + j * step. step > 1: a last axis folded with its
  // `step` contiguous channels into one line (make_sweep), channel c of position p at p * step + c.
  int64_t step = 1;
  int64_t lo = 0, hi = 0;          // input positions read by all rows: [lo, hi)
  std::vector<uint8_t> same_prev;  // leading axes: row o has exactly the taps of row o - 1
  // Gather form (last axis, inner == 1): tap j of row o reads position idx[j * out + o] with
  // weight wt[j * out + o]. Rows with fewer than K taps ("ragged") are padded with weight-0 taps,
  // kept exact (no 0 * inf) one of two ways:
  // - few ragged rows: the padding reads positions inside the line (where the row's taps would
  //   go on, else its last tap), and the rows (packed in `ragged_runs`, in order) are recomputed
  //   exactly after the vector sweep;
  // - many (transposed tables): the padding taps are at position `in`, past the line, the zero
  //   slot (zero_slot): the kernels read them as 0 without a load (masked), so that the line
  //   can be the input line itself, read in place, as well as a blend in scratch.
  std::vector<int32_t> idx;
  std::vector<acc_t> wt;
  // One past the last position row o reads (len[o] > 0): its padding taps' too where they go
  // on past its taps (a ragged row without the zero slot, build_line), so that the span blended
  // into scratch (lo, hi; Sweep::seg_lo, seg_hi) holds every position the kernels load.
  int64_t reach(int64_t o) const {
    const int64_t last = start[o] + (len[o] - 1) * step + 1;
    return idx.empty() || zero_slot ? last : std::max<int64_t>(last, idx[(K - 1) * out + o] + 1);
  }
  // The ragged rows packed for fix_ragged, which reads them after the vector sweep has pushed
  // start, len and w out of the nearest caches (a line's borders: a cache line or two, fetched
  // ahead): run r is the outputs [o, o + width) of one position, which share its taps, position
  // start + c + j * step with weight ragged_w[r * K + j] for output o + c (width: the folded
  // channels, step, where all of them are ragged; else 1).
  struct RaggedRun {
    int64_t o;
    int32_t start, len, width;
  };
  std::vector<RaggedRun> ragged_runs;
  std::vector<acc_t> ragged_w;
  bool zero_slot = false;
  // The vector gather's load plan (float gather form, K <= kPlanTaps; line_sweep.h
  // gather_line), per block of eight rows o = 8 b .. 8 b + 7: when their taps all lie in
  // blk_loads[b] (1, 2 or 4)
  // eight-float loads from position blk_pos[b], inside the line, tap j of row 8 b + i is at
  // blk_pos[b] + blk_rel[(b * K + j) * 8 + i], or is a padding tap of the zero slot where
  // blk_rel is kPadRel (its value is 0); blk_loads[b] == kRows: each output's taps are the
  // floats from its first on (kRows); blk_loads[b] == kStride2: tap j's eight positions
  // are every second one from blk_pos[b] + blk_rel[(b * K + j) * 8] (halvings: two loads and
  // a shuffle per tap; kStride2Pairs, two loads per pair of taps); blk_loads[b] == kShifted:
  // tap j of row 8 b + i is at blk_pos[b] + j * step + blk_rel[b * K * 8 + i] (tap 0's eight
  // alone are set); blk_loads[b] == 0: they do
  // not (downscales by more than four, lines shorter than the loads), and the block gathers.
  std::vector<int32_t> blk_pos;
  std::vector<uint8_t> blk_loads, blk_rel;
  // blk_run_end[b]: the first block after b with another load count than b's (or the count of
  // blocks), so that gather_line takes a run of blocks without scanning it.
  std::vector<int32_t> blk_run_end;
  // A downscale whose every block loads its taps (no block gathers; one block at least): on a
  // CPU with AVX-512VL gather_line then picks each tap by one permute (line_sweep.h
  // planned_run512), which folded RGB and RGBA lines take rather than pixel_pairs (plan_loads).
  bool picked = false;
  // Folded gather lines of 3 or 4 channels (line_sweep.h pixel_pairs): the pixels before
  // output pairs_end all have every tap's 128-bit load (4 floats from idx) inside the line.
  int64_t pairs_end = 0;
  // RGB and RGBA lines of two or four taps (line_sweep.h pairs_of): span_pairs[i]
  // for the pixels i and i + 1 (outputs C i .. C i + 2 C - 1), nonzero where both have each tap
  // one pixel after the one before and the 4 K floats from the first inside the line; of two
  // taps, a pixel's second may instead be the zero slot's padding, read as 0 (bit 1: pixel i's,
  // bit 2: pixel i + 1's); of four, its last taps (bits 1-2: how many of pixel i's, bits 3-4:
  // of pixel i + 1's).
  std::vector<uint8_t> span_pairs;
  // RGBA lines with span_pairs: pixel i's first tap, idx[4 i], alone (pairs_of's runs of span
  // pairs read these instead of idx, a sixteenth of its bytes for four taps).
  std::vector<int32_t> span_first;
  // RGBA lines with span_pairs: span_run_end[i], the first of the pixels i, i + 2, i + 4, ...
  // whose pair is not a span of code 1 (pixel i itself where its pair is not), so that pairs_of
  // takes a run of span pairs without reading a code per pair.
  std::vector<int32_t> span_run_end;
  // RGB and RGBA lines of two or four taps: at least seven in eight of the pairs pairs_of takes
  // (pixels 2 m and 2 m + 1) load K vectors, spans or step pairs (blended_pairs_pay counts
  // their loads so).
  bool k_load_pairs = false;
  // Lines of two taps whose first weight is exactly 1 minus the second, in float, at every
  // output but the ragged ones (linear's lambda0 = 1 - lambda1; fix_ragged rewrites those):
  // pairs_of's span runs and the 512-bit picks compute it rather than load it.
  bool lerp = false;
  // Folded lines of 3 or 4 channels (pairs_of): step_pairs[i] for the pixels i and i + 1, 1
  // where each tap of pixel i + 1 is one pixel after the same tap of pixel i and the eight floats
  // from each tap of pixel i lie inside the line: the pair's tap is then one eight-float load
  // (x2 upscales, from their third pixel on: every pair of pixels 2 m, 2 m + 1). RGB step pairs
  // have no span (span_pairs[i] 0); RGBA ones keep theirs.
  std::vector<uint8_t> step_pairs;
  // Outputs [steady_lo, steady_hi) (empty: none) of such a line (of at most four taps, no zero
  // slot): step pairs from steady_lo on, each pair's taps one pixel after the pair before's, with
  // its weights (x2 upscales, linear and cubic: line_sweep.h steady_pairs); at least kSteadyPairs.
  int64_t steady_lo = 0, steady_hi = 0;
  // Outputs [halving_lo, halving_hi) (empty: none) of an RGBA line of four taps (bicubic and
  // antialiased bilinear halvings): pixel lo / 4 + i reads the four pixels from idx[halving_lo]
  // + 8 i (tap j, 4 j floats on), all with the first's weights, inside the line; a multiple of
  // four pixels, at least kHalvingPixels (line_sweep.h halving_quads).
  int64_t halving_lo = 0, halving_hi = 0;
  // RGB and RGBA lines of two or four taps with span_pairs (line_sweep.h rgba_quads, rgb_quads
  // with AVX-512; rgba_quads8, rgb_quads8 with AVX2 alone): quad q, the pixels 4 q .. 4 q + 3
  // (outputs 4 C q .. 4 C q + 4 C - 1), where each of them is a span (span_pairs' kind):
  // first[k], pixel 4 q + k's first tap (idx); keep[j - 1], the lanes of tap j that are not the
  // zero slot's padding (four bits per pixel, a 128-bit lane each), and pair_keep[j - 1][p] the
  // same of the pair of pixels 2 p, 2 p + 1 in two bits (the 256-bit kernels' masks).
  // quad_w[K q + j]: tap j's weights of the quad's pixels (wt's), channel c of pixel k in lane
  // 4 k + c (RGB: lane 4 k + 3 0), in one aligned cache line. quad_run_end[q]: the first quad
  // from q on that is not one (q itself where it is not). Empty: none.
  struct Quad {
    int32_t first[4];
    uint16_t keep[3];
    uint8_t pair_keep[3][2];  // keep per pair of pixels (AVX2): bit 0, the first keeps the tap
  };
  struct alignas(64) Weights16 {
    float w[16];
  };
  std::vector<Quad> quads;
  std::vector<Weights16> quad_w;
  std::vector<int32_t> quad_run_end;
  // Exact halvings: every output reads the taps of the one before two positions further on,
  // with the same weights (float gather lines of two taps: of one channel, every block
  // kStride2Pairs, 16 floats after the one before; RGBA, every pixel's span of both taps 8
  // floats after the one before; RGB, pixel o reading pixels 2 o and 2 o + 1 from idx[0]).
  // line_sweep.h own_lines then computes the positions and broadcasts the weights instead of
  // loading them per block; RGB lines take rgb_halving.
  bool regular = false;
  // Folded RGB float lines (Line::step = C = 3) of two to four taps: runs of consecutive
  // pixels each of whose taps are one pixel after the same tap of the one before, tap j of
  // pixel i at idx[C i] + C j (slight up- and downscales: pixels of one input step between
  // those that step zero or two). Within a run every tap's C * count outputs read consecutive
  // floats with their weights (line_sweep.h unit_runs_of), whole vectors of eight outputs.
  // unit_runs[r]: outputs [o, e) of the run, its first output's first tap at p. Only runs of at
  // least kUnitRunFloats outputs, and only where they follow one another without a gap
  // (unit_vecs) or hold on average 2 * kUnitRunFloats outputs or more (else empty). RGB bilinear
  // and bicubic channels_last 256² -> 224² measured 1.12x-1.19x faster so, bicubic 224² -> 256²
  // 1.15x, bilinear 224² -> 256² as fast (1 thread, an AMD EPYC with AVX2); RGBA lines keep their
  // spans (pairs_of), 1.15x-1.3x faster there. Gapless runs of three to five pixels (downscales
  // by 1.2 to 1.33, upscales by 1.33 to 1.5) measured 1.02x-1.4x faster than pairs_of (bilinear
  // 375 x 500 -> 300 x 400 1.4x, 1080 x 1920 -> 800 x 1500 1.19x, 256² -> 200² 1.24x, bicubic
  // 256² -> 200² 1.11x); with gaps (a ragged pixel every few runs: 375 x 500 -> 300 x 420) the
  // work per run made them 0.84x as fast.
  struct UnitRun {
    int32_t o, e, p;
  };
  std::vector<UnitRun> unit_runs;
  // Where the unit runs follow one another without a gap: every vector of them in order, each
  // its output offset and its first tap's input offset (a run's whole vectors, then the one
  // ending at its end), for one loop over the line without work per run (unit_runs_of); else
  // empty.
  std::vector<std::array<int32_t, 2>> unit_vecs;
};

// The fewest outputs that make a unit run (Line::unit_runs): one vector.
constexpr int64_t kUnitRunFloats = 8;

// The fewest pairs of pixels that make a steady run (Line::steady_lo).
constexpr int64_t kSteadyPairs = 8;
// The fewest pixels that make a halving run (Line::halving_lo).
constexpr int64_t kHalvingPixels = 16;

// Float gather lines of at most this many taps get a load plan (plan_loads): with five to
// sixteen taps (antialiased downscales by less than four) measured 1.2x-1.5x faster forward and
// forward+backward than gathers, 1 and 2 threads (bilinear, bicubic and lanczos 512 -> 224).
constexpr int64_t kPlanTaps = 16;
// ... and those of at most this many taps, kRows blocks (antialiased downscales by more than
// about three, whose eight outputs' taps span more than the four loads; plan_loads).
constexpr int64_t kRowsTaps = 64;

// Whether each output of a line is one pair of floats (two taps, one position apart) in every
// block: its load plan is two-tap kRows blocks throughout (plane downscales by more than two;
// from 2 to about 2.3 some blocks take two loads instead). The AVX2 build blends the leading
// taps at those pairs (line_sweep.h blended_blocks), which make_sweep counts when it weighs the
// ring.
template <typename acc_t>
bool pair_rows(const Line<acc_t>& L);

// The load plan of a gather line (Line::blk_pos, blk_loads, blk_rel): per block, the loads
// start at its lowest tap, or earlier where they would pass the line's end. The zero slot's
// padding taps are left out of the span and marked kPadRel.
template <typename acc_t>
void plan_loads(Line<acc_t>& L) {
  const int64_t nb = L.out / 8, K = L.K;
  const int64_t pad = L.zero_slot ? L.in : -1;
  L.blk_pos.assign(nb, 0);
  L.blk_loads.assign(nb, 0);
  L.blk_rel.assign(nb * K * 8, 0);
  // kShifted blocks: where block b's taps follow one another (each output's tap j its first
  // plus j line steps, no padding tap), its first taps within eight floats and every shifted
  // load inside the line, shifted[b] is the first load's position (else -1). Used along lines
  // where some such block would take two loads or more (one index vector and one permute per
  // tap, in place of two permutes, a compare and a blend; and one kind of block along a line
  // whose taps' spans alternate between one load and two: bicubic plane upscales by 8/7
  // measured 1.20x-1.25x faster, bilinear 1.04x-1.08x); lines of one-load blocks keep them
  // (their permutes one load: bilinear and bicubic plane x2 upscales measured 0.8x-0.9x
  // shifted; 1 thread, an AMD EPYC with AVX2). Not with AVX-512VL, whose two-load blocks pick
  // each tap by one two-source permute (planned_run512), measured against this on no machine.
  std::vector<int64_t> shifted;
  if (K >= 2 && K <= kPlanTaps && !cpu_has_avx512vl()) {
    shifted.assign(nb, -1);
    bool wide = false;
    for (int64_t b = 0; b < nb; ++b) {
      int64_t lo0 = L.in, hi0 = 0;
      bool follow = true;
      for (int64_t i = 0; i < 8 && follow; ++i) {
        const int64_t q = L.idx[8 * b + i];
        follow = q != pad;
        for (int64_t j = 1; j < K && follow; ++j) follow = L.idx[j * L.out + 8 * b + i] == q + j * L.step;
        lo0 = std::min(lo0, q);
        hi0 = std::max(hi0, q);
      }
      const int64_t base = std::min(lo0, L.in - 8 - (K - 1) * L.step);
      if (!follow || base < 0 || hi0 - base >= 8) continue;
      shifted[b] = base;
      wide = wide || L.idx[(K - 1) * L.out + 8 * b + 7] - L.idx[8 * b] >= 8;
    }
    if (!wide) shifted.clear();
  }
  for (int64_t b = 0; b < nb; ++b) {
    int64_t lo = L.in, hi = 0;
    for (int64_t j = 0; j < K; ++j) {
      for (int64_t i = 0; i < 8; ++i) {
        const int64_t p = L.idx[j * L.out + 8 * b + i];
        if (p == pad) continue;
        lo = std::min(lo, p);
        hi = std::max(hi, p);
      }
    }
    if (lo > hi) lo = hi = 0;  // padding only: any loads inside the line
    // Every tap two positions from the same tap of the previous output (halvings): each tap's
    // eight positions are the even floats of two loads at its first one (kStride2).
    // Taps 2m and 2m + 1 one position apart (pairs) share the loads at tap 2m, so only those
    // must end inside the line (the last block of a halving's line included).
    bool even = true, pairs = K % 2 == 0;
    int64_t last = lo, last_pair = lo;
    for (int64_t j = 0; j < K && even; ++j) {
      const int64_t q = L.idx[j * L.out + 8 * b];
      for (int64_t i = 0; i < 8 && even; ++i) even = L.idx[j * L.out + 8 * b + i] == q + 2 * i && q != pad;
      last = std::max(last, q);
      if (j % 2 == 0) last_pair = std::max(last_pair, q);
      if (j % 2 == 1) pairs &= q == L.idx[(j - 1) * L.out + 8 * b] + 1;
    }
    pairs &= last_pair + 16 <= L.in;
    if (even && (pairs || last + 16 <= L.in) && last - lo < 255) {
      L.blk_pos[b] = static_cast<int32_t>(lo);
      for (int64_t j = 0; j < K; ++j)
        L.blk_rel[(b * K + j) * 8] = static_cast<uint8_t>(L.idx[j * L.out + 8 * b] - lo);
      L.blk_loads[b] = pairs ? kStride2Pairs : kStride2;
      continue;
    }
    if (!shifted.empty() && shifted[b] >= 0) {  // tap 0's picks alone (the kernel reads no others)
      L.blk_pos[b] = static_cast<int32_t>(shifted[b]);
      L.blk_loads[b] = kShifted;
      for (int64_t i = 0; i < 8; ++i) L.blk_rel[b * K * 8 + i] = static_cast<uint8_t>(L.idx[8 * b + i] - shifted[b]);
      continue;
    }
    const int64_t span = hi - lo;
    const int nl = span < 8 ? 1 : span < 16 ? 2 : span < 32 ? 4 : 0;
    const int64_t base = std::min(lo, L.in - 8 * nl);
    const bool picks = K <= kPlanTaps && nl != 0 && base >= 0 && hi - base < 8 * nl;
    // Four loads or gathers: each output's taps the floats from its first, where they are
    // (kRows: four at a time). Not for four loads where one 512-bit permute picks a tap from
    // their 32 floats (cpu_has_avx512vl, line_sweep.h pick): bicubic plane downscales by 2.5
    // measured 1.03x faster picked (1 thread, the AMD EPYC).
    bool rows = K >= 2 && K <= kRowsTaps && ((nl == 4 && !cpu_has_avx512vl()) || !picks);
    const int64_t width = K == 2 ? 2 : 4 * ((K + 3) / 4);  // the floats read from each output's first
    for (int64_t i = 0; i < 8 && rows; ++i) {
      const int64_t q = L.idx[8 * b + i];
      rows = q != pad && q + width <= L.in;
      for (int64_t j = 1; j < K && rows; ++j) {
        const int64_t p = L.idx[j * L.out + 8 * b + i];
        rows = p == q + j || p == pad;
      }
    }
    if (rows) {
      L.blk_loads[b] = kRows;
      for (int64_t j = 0; j < K; ++j)
        for (int64_t i = 0; i < 8; ++i)
          L.blk_rel[(b * K + j) * 8 + i] = L.idx[j * L.out + 8 * b + i] == pad ? kPadRel : 0;
      continue;
    }
    if (!picks) continue;
    L.blk_pos[b] = static_cast<int32_t>(base);
    L.blk_loads[b] = static_cast<uint8_t>(nl);
    for (int64_t j = 0; j < K; ++j) {
      for (int64_t i = 0; i < 8; ++i) {
        const int64_t p = L.idx[j * L.out + 8 * b + i];
        L.blk_rel[(b * K + j) * 8 + i] = p == pad ? kPadRel : static_cast<uint8_t>(p - base);
      }
    }
  }
  // Picked, folded lines measured: RGB bilinear 256² -> 224² 74 -> 55 us, bicubic 125 -> 96 us,
  // area 512² -> 400² 442 -> 220 us; RGBA area 512² -> 400² 430 -> 295 us (1 thread, an EPYC;
  // RGBA upscales by 1.5 were 1.3x slower picked). RGBA downscales by less than 2 of two or four
  // taps stay with pixel_pairs, whose runs of span pairs measured faster: bilinear 256² -> 224²
  // 1.06x, 512² -> 384² and 512² -> 300² 1.14x-1.16x (area 512² -> 400², of three taps, 0.65x;
  // bilinear 1000² -> 300² and bicubic 600x800 -> 224² 0.96x-0.98x).
  L.picked = nb > 0 && L.in >= L.out && !(L.step == 4 && (K == 2 || K == 4) && L.in < 2 * L.out) &&
             std::none_of(L.blk_loads.begin(), L.blk_loads.end(), [](uint8_t l) { return l == 0; });
  L.blk_run_end.assign(nb, static_cast<int32_t>(nb));
  for (int64_t b = nb - 2; b >= 0; --b)
    L.blk_run_end[b] = L.blk_loads[b + 1] == L.blk_loads[b] ? L.blk_run_end[b + 1] : static_cast<int32_t>(b + 1);
}

template <typename acc_t>
bool pair_rows(const Line<acc_t>& L) {
  return L.step == 1 && L.K == 2 && L.ragged_runs.empty() && !L.blk_loads.empty() && L.blk_loads[0] == kRows &&
         L.blk_run_end[0] == static_cast<int32_t>(L.blk_loads.size());
}

// Whether sweep_segment resamples a folded RGB / RGBA line (as gather_sweep does, two pixels
// at a time) from the T input lines directly, blending each tap's pixel as it goes
// (blended_pairs), rather than blending the whole span into scratch first: downscales whose
// taps read a fraction of the span. Counted in vector operations per line: staged, the blend
// of the in floats (2 T + 1 per eight); blended, 2 T - 1 more per load of a pair of pixels (T
// loads and multiply-adds in place of one load): one per tap and pixel, or one per pixel and
// two taps for RGBA of two or four taps and RGB of two whose pairs mostly load two vectors
// (Line::k_load_pairs: spans, step pairs; pairs_of). RGB of two taps so measured (1 thread, an
// AMD EPYC with AVX2) 1.09x-1.29x faster blended than staged through pairs_of from downscales
// by 1.25 on (300 x 400 -> 224²; 720 x 1280 -> 600 x 1000 and 1000² -> 800², before they took
// unit runs), 0.7x-0.9x by 1.14 (375 x 500 -> 300 x 440, against its unit runs), which the
// count puts on either side (two taps, two lines: blended beyond 1.2). RGB lines of four
// taps count seven loads per pixel (their spans' permutes): staged, bicubic RGB 600 x 800 ->
// 224², 600 x 1000 -> 224² and 1000² -> 300² measured 1.06x-1.19x faster than blended (1 and
// 2 threads), 1000 x 1400 and 1000 x 2000 -> 224² 1.2x-1.3x slower; seven puts the line
// between them. Not lines of unit runs (Line::unit_runs), whose gather from scratch costs
// little: staged with them, bilinear RGB 375 x 500 -> 300 x 400, 256² -> 200² and 1000² ->
// 800² measured 1.07x-1.25x faster than blended (720 x 1280 -> 600 x 1000 and 1080 x 1920 ->
// 800 x 1500, read from memory, 0.93x-0.96x). Ragged pixels (Line::ragged_runs) are rewritten after the
// line from the blend at their taps (blended_ragged). make_sweep counts these lines when it
// weighs the ring, as pair_rows.
template <typename acc_t>
bool blended_pairs_pay(const Line<acc_t>& L, int64_t T) {
  const bool spans = L.K == 4 || (L.K == 2 && (L.step == 4 || L.k_load_pairs));
  const int64_t loads = L.step == 3 && L.K == 4 ? 7 : spans ? L.K : 2 * L.K;
  return (L.step == 4 || (L.step == 3 && L.in >= L.out)) && L.K > 1 && T >= 2 && T <= 4 && L.unit_runs.empty() &&
         L.out * loads * (2 * T - 1) < L.in * (2 * T + 1);
}

// fold > 1 (a gather form only): the line of the table's axis with its `fold` contiguous
// channels, in * fold positions long, each row repeated per channel with tap stride fold.
// join > 1: `join` consecutive such lines as one (make_sweep), in * fold * join positions long:
// line q's rows follow line q - 1's, reading positions q * in * fold on.
template <typename acc_t>
std::shared_ptr<const Line<acc_t>> build_line(const AxisTable& t, bool lead, bool gather, int64_t fold,
                                              int64_t join) {
  auto line = std::make_shared<Line<acc_t>>();
  Line<acc_t>& L = *line;
  L.in = t.in_size * fold * join;
  L.out = t.out_size * fold * join;
  L.K = t.K;
  L.step = fold;
  L.identity = t.identity;
  L.unit = t.unit;
  L.start.resize(L.out);
  L.len.resize(L.out);
  L.w.resize(L.out * L.K);
  for (int64_t q = 0; q < join; ++q) {
    for (int64_t o = 0; o < t.out_size; ++o) {
      for (int64_t c = 0; c < fold; ++c) {
        const int64_t r = (q * t.out_size + o) * fold + c;
        L.start[r] = (q * t.in_size + t.start[o]) * fold + c;
        L.len[r] = t.len[o];
        for (int64_t j = 0; j < L.K; ++j) L.w[r * L.K + j] = static_cast<acc_t>(t.w[o * t.K + j]);
      }
    }
  }
  L.lo = L.in;
  L.hi = 0;
  for (int64_t o = 0; o < L.out; ++o) {
    L.sum_len += L.len[o];
    if (L.len[o] == 0) continue;
    L.lo = std::min(L.lo, L.start[o]);
    L.hi = std::max(L.hi, L.start[o] + (L.len[o] - 1) * L.step + 1);
  }
  if (lead) {
    TORCH_INTERNAL_ASSERT(join == 1, "resize_ad: a leading axis' line is never joined");
    L.same_prev.assign(L.out, 0);
    for (int64_t o = 1; o < L.out; ++o) {
      bool same = t.start[o] == t.start[o - 1] && t.len[o] == t.len[o - 1];
      for (int64_t j = 0; same && j < t.len[o]; ++j)
        same = t.w[o * t.K + j] == t.w[(o - 1) * t.K + j];
      L.same_prev[o] = same;
    }
  }
  if (gather) {
    TORCH_CHECK(L.in < (int64_t{1} << 31), "resize_ad: spatial size ", t.in_size, " is too large");
    L.idx.resize(L.K * L.out);
    L.wt.resize(L.K * L.out);
    const int64_t nragged = L.K * t.out_size - t.sum_len > 0
                                ? std::count_if(L.len.begin(), L.len.end(),
                                                [&](int64_t n) { return n != L.K; })
                                : 0;
    L.zero_slot = nragged * 8 > L.out;
    std::vector<int64_t> ragged;  // the ragged rows, in order (without a zero slot)
    for (int64_t o = 0; o < L.out; ++o) {
      const int64_t n = L.len[o];
      if (n != L.K && !L.zero_slot) ragged.push_back(o);
      // A ragged row's padding taps where its taps would go on, one step apart, if those lie
      // inside the line (so that its taps stay consecutive: unit runs, kRows blocks, spans),
      // else at its last tap; L.hi counts them (Line::reach).
      const bool on = !L.zero_slot && n > 0 && L.start[o] + (L.K - 1) * L.step < L.in;
      const int64_t pad = L.zero_slot ? L.in : (n > 0 ? L.start[o] + (n - 1) * L.step : 0);
      for (int64_t j = 0; j < L.K; ++j) {
        L.idx[j * L.out + o] = static_cast<int32_t>(j < n || on ? L.start[o] + j * L.step : pad);
        L.wt[j * L.out + o] = j < n ? L.w[o * L.K + j] : acc_t(0);
      }
      if (n > 0 && !L.zero_slot) L.hi = std::max(L.hi, L.reach(o));
    }
    for (size_t r = 0; r < ragged.size();) {
      const int64_t o = ragged[r], n = L.len[o];
      // the position's channels: all ragged, with the same taps one element apart
      bool whole = L.step > 1 && o % L.step == 0 && r + L.step <= ragged.size();
      for (int64_t c = 1; whole && c < L.step; ++c) {
        whole = ragged[r + c] == o + c && L.len[o + c] == n && L.start[o + c] == L.start[o] + c;
        for (int64_t j = 0; whole && j < n; ++j) whole = L.w[(o + c) * L.K + j] == L.w[o * L.K + j];
      }
      const int64_t width = whole ? L.step : 1;
      L.ragged_runs.push_back({o, static_cast<int32_t>(L.start[o]), static_cast<int32_t>(n),
                               static_cast<int32_t>(width)});
      L.ragged_w.insert(L.ragged_w.end(), L.w.begin() + o * L.K, L.w.begin() + (o + 1) * L.K);
      r += width;
    }
    if (std::is_same_v<acc_t, float> && L.K <= kRowsTaps) plan_loads(L);
    if (std::is_same_v<acc_t, float> && L.K == 2) {
      L.lerp = true;  // fix_ragged rewrites the ragged rows (sorted)
      for (int64_t o = 0; o < L.out && L.lerp; ++o)
        L.lerp = std::binary_search(ragged.begin(), ragged.end(), o) ||
                 static_cast<float>(L.wt[o]) == 1.0f - static_cast<float>(L.wt[L.out + o]);
    }
    if (std::is_same_v<acc_t, float> && (L.step == 3 || L.step == 4) && (L.K == 2 || L.K == 4)) {
      const int64_t C = L.step, px = L.out / C;
      // 0: not a span; 1: a span; 2: a span whose second tap is the zero slot's padding (two
      // taps: a ragged row, its one tap followed by a tap of weight 0 that reads 0).
      // Four taps: 1 plus the count of its last taps that are the zero slot's padding (a ragged
      // pixel, its taps before them one pixel apart), read as 0.
      auto spans = [&](int64_t i) -> int {
        const int64_t p = L.idx[C * i];
        if (p + 4 * L.K > L.in) return 0;
        if (L.K == 2 && L.zero_slot && L.idx[L.out + C * i] == L.in) return 2;
        int64_t n = L.K;  // the taps before the padding
        for (int64_t j = 1; j < L.K; ++j) {
          const int64_t q = L.idx[j * L.out + C * i];
          if (q == L.in && L.zero_slot && L.K == 4) {
            n = std::min(n, j);
            continue;
          }
          if (q != p + C * j || n < L.K) return 0;
        }
        return 1 + static_cast<int>(L.K - n);
      };
      std::vector<uint8_t> kind(px);
      for (int64_t i = 0; i < px; ++i) kind[i] = spans(i);
      L.span_pairs.assign(px, 0);
      for (int64_t i = 0; i + 1 < px; ++i) {
        if (!kind[i] || !kind[i + 1]) continue;
        L.span_pairs[i] = L.K == 2 ? 1 | (kind[i] == 2 ? 2 : 0) | (kind[i + 1] == 2 ? 4 : 0)
                                   : 1 | (kind[i] - 1) << 1 | (kind[i + 1] - 1) << 3;
      }
      if (px >= 4 && cpu_has_avx2()) {
        // kind k: 1 + the pixel's padding taps, its last K - (k - 1) taps kept.
        const int64_t nq = px / 4;
        L.quads.resize(nq);
        L.quad_w.resize(nq * L.K);
        L.quad_run_end.resize(nq);
        for (int64_t q = nq - 1; q >= 0; --q) {
          auto& Q = L.quads[q];
          bool whole = true;
          Q.keep[0] = Q.keep[1] = Q.keep[2] = 0;
          for (int64_t k = 0; k < 4; ++k) {
            const int64_t i = 4 * q + k;
            whole = whole && kind[i] != 0;
            Q.first[k] = L.idx[C * i];
            for (int64_t j = 1; j < L.K; ++j)
              if (kind[i] != 0 && j < L.K - (kind[i] - 1)) Q.keep[j - 1] |= static_cast<uint16_t>(0xF << (4 * k));
          }
          for (int64_t j = 0; j < L.K; ++j)
            for (int64_t k = 0; k < 4; ++k)
              for (int64_t c = 0; c < 4; ++c)
                L.quad_w[L.K * q + j].w[4 * k + c] = c < C ? static_cast<float>(L.wt[j * L.out + C * (4 * q + k) + c]) : 0.0f;
          for (int64_t j = 0; j < 3; ++j)
            for (int64_t pr = 0; pr < 2; ++pr)
              Q.pair_keep[j][pr] = static_cast<uint8_t>(((Q.keep[j] >> (8 * pr)) & 1) | ((Q.keep[j] >> (8 * pr + 3)) & 2));
          L.quad_run_end[q] = static_cast<int32_t>(!whole ? q : q + 1 < nq ? L.quad_run_end[q + 1] : nq);
        }
      }
      if (C == 4) {
        L.span_first.resize(px);
        for (int64_t i = 0; i < px; ++i) L.span_first[i] = L.idx[C * i];
        L.span_run_end.resize(px);
        for (int64_t i = px - 1; i >= 0; --i)
          L.span_run_end[i] = static_cast<int32_t>(L.span_pairs[i] != 1 ? i : i + 2 < px ? L.span_run_end[i + 2] : i + 2);
      }
    }
    if (std::is_same_v<acc_t, float> && (L.step == 3 || L.step == 4)) {
      const int64_t C = L.step, px = L.out / C;
      L.step_pairs.assign(px, 0);
      for (int64_t i = 0; i + 1 < px; ++i) {
        bool step = true;
        for (int64_t j = 0; j < L.K && step; ++j) {
          const int64_t p = L.idx[j * L.out + C * i];
          step = L.idx[j * L.out + C * (i + 1)] == p + C && p + 8 <= L.in;
        }
        L.step_pairs[i] = step;
        // pairs_of: an RGB step pair takes the step's loads rather than the span's permutes; an
        // RGBA pair keeps its span, so that runs of them take the loop of spans alone.
        if (step && C == 3 && !L.span_pairs.empty()) L.span_pairs[i] = 0;
      }
      if (!L.span_pairs.empty()) {
        int64_t whole = 0;
        for (int64_t i = 0; i + 1 < px; i += 2) whole += L.span_pairs[i] != 0 || L.step_pairs[i];
        L.k_load_pairs = 8 * whole >= 7 * (px / 2);
      }
      // The longest run of pairs at pixels i, i + 2, ... that each repeat the one before a pixel on.
      auto repeats = [&](int64_t i) {
        bool same = L.step_pairs[i] && L.step_pairs[i - 2];
        for (int64_t j = 0; j < L.K && same; ++j) {
          const int64_t q = j * L.out + C * i;
          same = L.idx[q] == L.idx[q - 2 * C] + C;
          for (int64_t c = 0; c < 2 * C && same; ++c) same = L.wt[q + c] == L.wt[q - 2 * C + c];
        }
        return same;
      };
      int64_t best = 0;
      if (L.K <= 4 && !L.zero_slot) {
        for (int64_t first = 0; first < 2; ++first) {
          for (int64_t i = first; i + 1 < px; i += 2) {
            if (!L.step_pairs[i]) continue;
            const int64_t s = i;
            while (i + 3 < px && repeats(i + 2)) i += 2;
            if (i + 2 - s > best) best = i + 2 - s, L.steady_lo = C * s;
          }
        }
      }
      L.steady_hi = best >= 2 * kSteadyPairs ? L.steady_lo + C * best : L.steady_lo;
    }
    if (std::is_same_v<acc_t, float> && L.step == 4 && L.K == 4 && !L.zero_slot) {
      // The longest run of pixels each reading the taps of the one before two pixels on, with
      // its weights, every tap inside the line.
      const int64_t n = L.out, px = n / 4;
      auto own = [&](int64_t i) {  // pixel i's taps: consecutive pixels inside the line, channels alike
        bool same = L.idx[4 * i] + 16 <= L.in;
        for (int64_t j = 0; j < 4 && same; ++j)
          for (int64_t c = 0; c < 4 && same; ++c)
            same = L.idx[j * n + 4 * i + c] == L.idx[4 * i] + 4 * j + c && L.wt[j * n + 4 * i + c] == L.wt[j * n + 4 * i];
        return same;
      };
      auto follows = [&](int64_t i) {  // pixel i as pixel i - 1 two pixels on
        bool same = own(i);
        for (int64_t j = 0; j < 4 && same; ++j) {
          const int64_t q = j * n + 4 * i;
          same = L.idx[q] == L.idx[q - 4] + 8 && L.wt[q] == L.wt[q - 4];
        }
        return same;
      };
      int64_t best = 0, best_lo = 0;
      for (int64_t i = 0; i < px;) {
        if (!own(i)) {
          ++i;
          continue;
        }
        int64_t e = i + 1;
        while (e < px && follows(e)) ++e;
        if (e - i > best) best = e - i, best_lo = i;
        i = e;
      }
      best = best / 4 * 4;
      if (best >= kHalvingPixels) L.halving_lo = 4 * best_lo, L.halving_hi = 4 * (best_lo + best);
    }
    if (std::is_same_v<acc_t, float> && L.K == 2 && !L.zero_slot && L.ragged_runs.empty() &&
        ((L.out % 8 == 0 && (L.step == 1 || L.step == 4)) || L.step == 3)) {
      bool regular = true;
      for (int64_t j = 0; j < L.K && regular; ++j)
        for (int64_t o = 1; o < L.out && regular; ++o) regular = L.wt[j * L.out + o] == L.wt[j * L.out];
      if (L.step == 3) {
        for (int64_t o = 0; o < L.out && regular; ++o)
          regular = L.idx[o] == L.idx[0] + 2 * o - o % 3 && L.idx[L.out + o] == L.idx[o] + 3;
      } else if (L.step == 1) {
        regular = regular && !L.blk_loads.empty();
        const int64_t q0 = regular ? L.blk_pos[0] + L.blk_rel[0] : 0;
        for (int64_t b = 0; b < L.out / 8 && regular; ++b)
          regular = L.blk_loads[b] == kStride2Pairs && L.blk_pos[b] + L.blk_rel[b * 2 * 8] == q0 + 16 * b;
      } else {
        for (int64_t i = 0; i < L.out / 4 && regular; ++i)
          regular = L.idx[4 * i] == L.idx[0] + 8 * i && (i % 2 == 1 || L.span_pairs[i]);
      }
      L.regular = regular;
    }
    if (std::is_same_v<acc_t, float> && L.step == 3 && L.K >= 2 && L.K <= 4 && !L.zero_slot) {
      const int64_t C = L.step, n = L.out, px = n / C;
      // Position i's taps: tap j at idx[C i] + C j, channels c at + c.
      auto consecutive = [&](int64_t i) {
        const int64_t p = L.idx[C * i];
        for (int64_t j = 0; j < L.K; ++j)
          for (int64_t c = 0; c < C; ++c)
            if (L.idx[j * n + C * i + c] != p + C * j + c) return false;
        return true;
      };
      std::vector<typename Line<acc_t>::UnitRun> runs;
      int64_t floats = 0;
      for (int64_t i = 0; i < px;) {
        if (!consecutive(i)) {
          ++i;
          continue;
        }
        int64_t e = i + 1;
        while (e < px && L.idx[C * e] == L.idx[C * (e - 1)] + C && consecutive(e)) ++e;
        if ((e - i) * C >= kUnitRunFloats) {
          runs.push_back({static_cast<int32_t>(C * i), static_cast<int32_t>(C * e), L.idx[C * i]});
          floats += (e - i) * C;
        }
        i = e;
      }
      bool tiled = true;
      for (size_t r = 1; r < runs.size(); ++r) tiled = tiled && runs[r].o == runs[r - 1].e;
      if (!runs.empty() && (tiled || floats >= 2 * kUnitRunFloats * static_cast<int64_t>(runs.size()))) {
        for (size_t r = 0; tiled && r < runs.size(); ++r) {
          const int32_t len = runs[r].e - runs[r].o;
          int32_t v = 0;
          for (; v + 8 <= len; v += 8) L.unit_vecs.push_back({runs[r].o + v, runs[r].p + v});
          if (v < len) L.unit_vecs.push_back({runs[r].e - 8, runs[r].p + len - 8});
        }
        L.unit_runs = std::move(runs);
      }
    }
    if (L.step == 3 || L.step == 4) {
      for (; L.pairs_end < L.out; L.pairs_end += L.step) {
        bool inside = true;
        for (int64_t j = 0; j < L.K; ++j) {
          const int64_t p = L.idx[j * L.out + L.pairs_end];
          inside &= (L.zero_slot && p == L.in && L.in >= 4) || p + 4 <= L.in;  // the slot: not loaded
        }
        if (!inside) break;
      }
    }
  }
  return line;
}

// The Line of a table, from a small LRU cache keyed by the table's unique id (tables are
// themselves cached, so a training step finds both).
struct LineKey {
  uint64_t id;
  bool lead, gather;
  int64_t fold, join;
  bool operator==(const LineKey& o) const {
    return id == o.id && lead == o.lead && gather == o.gather && fold == o.fold && join == o.join;
  }
};

template <typename acc_t>
std::shared_ptr<const Line<acc_t>> line_for(const AxisTable& t, bool lead, bool gather,
                                            int64_t fold = 1, int64_t join = 1) {
  // Leaked: usable during static destruction.
  static auto* cache = new LruCache<LineKey, Line<acc_t>>(64, size_t{256} << 20);
  auto bytes = [](const Line<acc_t>& L) {
    return (L.start.size() + L.len.size()) * sizeof(int64_t) + (L.w.size() + L.wt.size()) * sizeof(acc_t) +
           (L.idx.size() + L.blk_pos.size() + L.blk_run_end.size()) * sizeof(int32_t) + L.blk_loads.size() +
           L.blk_rel.size() +
           L.span_pairs.size() + L.step_pairs.size() + (L.span_first.size() + L.span_run_end.size()) * sizeof(int32_t) +
           L.quads.size() * sizeof(typename Line<acc_t>::Quad) + L.quad_w.size() * 64 +
           L.quad_run_end.size() * sizeof(int32_t) +
           L.unit_runs.size() * sizeof(typename Line<acc_t>::UnitRun) + L.unit_vecs.size() * 2 * sizeof(int32_t);
  };
  return cache->get(LineKey{t.id, lead, gather, fold, join},
                    [&] { return build_line<acc_t>(t, lead, gather, fold, join); }, bytes);
}

template <typename acc_t>
struct Sweep {
  c10::SmallVector<std::shared_ptr<const Line<acc_t>>, 2> lead;  // spatial axes 1 .. k-1
  std::shared_ptr<const Line<acc_t>> last;               // spatial axis k
  int64_t inner = 1;
  int64_t rows = 1;      // output lines: outer * prod(lead out)
  int64_t nseg = 1;      // segments per line along the last axis
  int64_t seg_len = 1;
  int64_t max_taps = 1;  // product of the leading axes' K
  int64_t grain = 1;     // work items per parallel chunk at least
  c10::SmallVector<int64_t, 4> seg_lo, seg_hi;  // input positions segment s reads along the last axis
  // dst is larger than the cache would keep: each segment is computed into a per-thread stage
  // and written out with non-temporal stores (line_sweep.h stream_copy), which skip reading
  // the destination's lines first.
  bool stream = false;
  // dst as large, lines that store non-temporally themselves (no stage): the copies and
  // two-tap rows of inner_line (lines of several channels, outside the ring) and the ring's
  // blends of 2 to 4 slots.
  bool stream_rows = false;
  // dst as large, its pages fresh from mmap (not mapped): each thread faults the pages of its
  // lines in (one store per page) just ahead of computing them (run_sweep).
  bool pretouch = false;
  // Ring of rows (OpenCV's and Pillow-SIMD's order): each input line a thread reads is first
  // resampled along the last axis into one of `ring` per-thread slots, kept while the next
  // lines read it again, and each output line is the blend of its slots. Chosen (make_sweep)
  // where lines share input lines (upscales along the leading axes), so that the last axis'
  // gathers run once per input line instead of once per output line. Each segment of a line
  // has its own `ring` slots.
  int64_t ring = 0;
  // The input is larger than the caches keep (prefetch_threshold): lines that step over input
  // lines prefetch the next line's rows (line_sweep.h run_sweep).
  bool prefetch = false;
  // The threads own interleaved sets of chunks (parallel_chunks), for input and output of
  // kInterleaveBytes and more; contiguous ones below.
  bool interleave = true;
};

// Input and output bytes from which the threads' chunks interleave (Sweep::interleave): a
// quarter of a 32 MiB L3, the data below it kept by the caches.
constexpr size_t kInterleaveBytes = size_t{8} << 20;

// Outputs from this size on are streamed (Sweep::stream): 3/4 of the last-level cache as glibc's
// memcpy reckons, at least 4 MiB, and at most what a core can count on keeping. A VM often
// reports the whole socket's L3, with other tenants in it, and what one core gets of it depends
// on the vendor's design (shared_l3):
// - AMD: each core complex has its own L3 (32 MiB on the EPYC we measured, which reported
//   256 MiB). At most 8 MiB: at 12 MiB outputs (bilinear, bicubic and nearest x2 of
//   3 x 512 x 512) streaming measured 1.3x-1.5x faster there; between 2 and 4 MiB it was mixed
//   (0.7x-1.3x).
// - Intel: one L3 shared by the socket's cores (480 MiB reported on a Xeon with AVX-512 FP16).
//   At most 24 MiB, counting the input with the output (streams): outputs read again warm
//   (nearest x2 NCHW, bilinear x2 channels_last, 8.4 and 16.8 MB from inputs of a quarter of
//   that) measured 1.05x-1.15x faster with ordinary stores there, which leave the result in
//   the L3, and 33.5 and 67 MB ones 1.2x-2.2x faster streamed (1 and 2 threads); a 10 MB output
//   from a 64 MB input (1000 x 1000 -> 400 x 400, 16 channels), whose reads push it out of the
//   L3, streamed 1.0x-1.4x faster with 1 thread on nearest and nearest-exact, 1.5x-2x on
//   bilinear, and as fast with 2 threads.
// The last-level cache's size as the system reports it; -1 where it does not.
long l3_bytes() {
#ifdef _SC_LEVEL3_CACHE_SIZE
  return sysconf(_SC_LEVEL3_CACHE_SIZE);
#else
  return -1;
#endif
}

// Whether the cores of a socket share one L3 (Intel's design since its mesh), so that the L3
// the system reports is one a core can fill.
bool shared_l3() {
  static const bool shared = [] {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __builtin_cpu_init();
    return __builtin_cpu_is("intel") != 0;
#else
    return false;
#endif
  }();
  return shared;
}

// set_stream_threshold (the test seam resize_ad._testing.stream_threshold): bytes in place of the
// machine's threshold; 0 for the machine's.
std::atomic<size_t> g_stream_threshold{0};

constexpr size_t kMinStreamBytes = size_t{4} << 20;

// Input and output bytes that stay in the L3 of an AMD core complex (3/4 of its 32 MiB), for
// lines of several channels with several threads (run).
constexpr size_t kKeepBytes = size_t{24} << 20;

bool stream_threshold_forced() { return g_stream_threshold.load(std::memory_order_relaxed) != 0; }

size_t stream_threshold() {
  if (const size_t forced = g_stream_threshold.load(std::memory_order_relaxed)) return forced;
  static const size_t bytes = [] {
    const long l3 = l3_bytes();
    const size_t hi = size_t{shared_l3() ? 24 : 8} << 20;
    return l3 > 0 ? std::clamp(static_cast<size_t>(l3) / 4 * 3, kMinStreamBytes, hi) : hi;
  }();
  return bytes;
}

// Whether an output of out_bytes from an input of in_bytes streams its rows (above;
// Sweep::stream_rows), t being stream_threshold().
bool streams(size_t out_bytes, size_t in_bytes, size_t t) {
  return out_bytes >= t || (shared_l3() && out_bytes >= kMinStreamBytes && out_bytes + in_bytes >= t);
}

// Inputs larger than this are prefetched (Sweep::prefetch): a quarter of the last-level cache,
// at most 4 MiB (a VM may report the whole socket's L3, above). Smaller ones are in the caches
// from the last time they were read or written: there the prefetches only cost (bilinear and
// area halvings of 1 to 4 MiB, NCHW: 1.12x-1.27x slower with them, one thread); from 6 MiB on
// they pay (1.2x-1.3x faster at 6 and 8 MiB).
size_t prefetch_threshold() {
  static const size_t bytes = [] {
    const long l3 = l3_bytes();
    const size_t hi = size_t{4} << 20;
    return l3 > 0 ? std::min(static_cast<size_t>(l3) / 4, hi) : hi;
  }();
  return bytes;
}

// Whether the page holding p is mapped in already (false: fresh from mmap, not yet faulted).
// Streaming pays on mapped pages (a reused block: 1.2x-1.6x faster); a fresh block faults each
// page in, the kernel's zeroing leaves it in the cache, and ordinary stores find it there
// (measured 1.1x-1.2x faster than streaming on 33.5 MB outputs that glibc maps per call).
bool mapped(const void* p) {
#if defined(__linux__)
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  unsigned char v = 0;
  void* a = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(p) / page * page);
  return mincore(a, 1, &v) != 0 || (v & 1) != 0;  // unknown: as mapped
#else
  (void)p;
  return true;
#endif
}

// Whether a result of n bytes at p is large (4 MiB or more) and fresh from mmap: its middle
// page tells (the first holds malloc's header, written on allocation).
bool fresh_result(const void* p, size_t n) {
  return n >= (size_t{4} << 20) && !mapped(static_cast<const char*>(p) + n / 2);
}

// Transparent huge pages for a fresh result: a page fault per 4 KiB page, the kernel zeroing
// each, bounds a resize whose output (or gradient) is mapped fresh per call (glibc maps blocks of
// 32 MiB and more, and smaller ones until its threshold has grown): 33.5 MB results measured
// 1.3x-2.4x faster with their pages huge (bilinear, nearest and trilinear x2, NCHW and
// channels_last, forward and backward, 1 and 2 threads). Where the kernel leaves huge pages to
// madvise (/sys/kernel/mm/transparent_hugepage/enabled), the whole 2 MiB pages inside a fresh
// block of at least 4 MiB are advised (MADV_HUGEPAGE) before it is written, as torch's own
// allocator does under THP_MEM_ALLOC_ENABLE=1. The block is written in full, so no memory is
// added; the advice does not change its contents and ends when glibc unmaps it. Returns whether
// the block's pages are huge ones (also where the kernel makes every page huge). Off through
// set_huge_pages (the test seam resize_ad._testing.huge_pages): 4 KiB pages, pretouched.
std::atomic<bool> g_huge_pages{true};

bool advise_huge_pages(void* p, size_t n) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (!g_huge_pages.load(std::memory_order_relaxed)) return false;
  // The bracketed word of the sysfs file: 'always', 'madvise' or 'never'.
  static const int mode = [] {  // 0 never (or unknown), 1 madvise, 2 always
    std::FILE* f = std::fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (f == nullptr) return 0;
    char buf[128] = {0};
    const size_t got = std::fread(buf, 1, sizeof(buf) - 1, f);
    std::fclose(f);
    buf[got] = 0;
    return std::strstr(buf, "[always]") ? 2 : std::strstr(buf, "[madvise]") ? 1 : 0;
  }();
  if (mode != 1) return mode == 2;
  constexpr uintptr_t huge = uintptr_t{2} << 20;
  const uintptr_t a = (reinterpret_cast<uintptr_t>(p) + huge - 1) / huge * huge;
  const uintptr_t e = (reinterpret_cast<uintptr_t>(p) + n) / huge * huge;
  return e > a && madvise(reinterpret_cast<void*>(a), e - a, MADV_HUGEPAGE) == 0;
#else
  (void)p, (void)n;
  return false;
#endif
}

// Lines with fewer channels per position than this are folded (make_sweep).
constexpr int64_t kFoldChannels = 8;
// The ring of rows (Sweep::ring): at most this many slots (leading taps per line), and bytes
// per thread (half of a 512 KiB L2).
constexpr int64_t kRingSlots = 16;
constexpr size_t kRingBytes = size_t{256} << 10;
constexpr int64_t kRingWideInner = 64;  // channels per position from which two leading taps skip the ring
constexpr int64_t kRingLongLine = 512;  // output elements per line (make_sweep)
// A sweep of fewer lines than threads is cut into segments from this many elements per line on
// (make_sweep): one plane's first separable pass.
constexpr int64_t kSplitLine = 32768;

// A sweep of one axis along the contiguous axis (the separable passes' last pass, 1-D resizes)
// joins lines of at most half this many outputs into lines of at most this many (make_sweep,
// join_lines). Measured 1.3x-4x faster on NCHW planes of 7 x 7 to 32 x 32 (area, bilinear,
// bicubic, nearest, antialias; 1 thread), 1.1x on 64 x 64 planes; joined to 512 outputs,
// 1.0x-1.2x faster than to 256.
constexpr int64_t kJoinOutputs = 512;

// How many of `lines` consecutive lines of table t to join into one (1: none): the most that
// keep the joined line at most kJoinOutputs outputs long and divide `lines` evenly.
int64_t join_lines(int64_t lines, const AxisTable& t) {
  if (t.out_size * 2 > kJoinOutputs) return 1;
  // No count above `lines` divides it: starting there spares a tiny line (4 outputs, up to 128
  // joined) with few lines a division per count, 4 % of a call of 8 x 8 -> 4 x 4.
  const int64_t most = kJoinOutputs / t.out_size;
  for (int64_t j = lines > 0 ? std::min(most, lines) : most; j > 1; --j)
    if (lines % j == 0) return j;
  return 1;
}

// Whether every leading axis of the sweep is a copy (Line::unit: an identity, or nearest).
template <typename acc_t>
bool lead_copies(const Sweep<acc_t>& P) {
  return std::all_of(P.lead.begin(), P.lead.end(), [](const auto& l) { return l->unit; });
}

template <typename acc_t>
Sweep<acc_t> make_sweep(int64_t outer, int64_t inner, c10::ArrayRef<const AxisTable*> tabs,
                        bool pass_order = false) {
  Sweep<acc_t> P;
  const int64_t k = static_cast<int64_t>(tabs.size());
  P.inner = inner;
  P.rows = outer;
  double lead_taps = 1;
  P.lead.reserve(k - 1);
  for (int64_t i = 0; i + 1 < k; ++i) {
    P.lead.push_back(line_for<acc_t>(*tabs[i], /*lead=*/true, /*gather=*/false));
    P.rows *= tabs[i]->out_size;
    P.max_taps *= tabs[i]->K;
    lead_taps *= static_cast<double>(tabs[i]->sum_len) / static_cast<double>(tabs[i]->out_size);
  }
  const AxisTable& last = *tabs[k - 1];
  // A few channels per position (channels_last RGB): fold them into the line, so that the
  // vector gathers run along it as along a line of one channel, instead of a short loop over
  // the channels per output position.
  const int64_t fold = inner > 1 && inner < kFoldChannels && !last.identity ? inner : 1;
  P.inner = inner / fold;
  // Short lines of one axis alone (the separable passes' last axis): join consecutive lines,
  // which are consecutive in memory, into one, so that the vector blocks run across them instead
  // of a scalar tail and a call per short line.
  const int64_t join = k == 1 && P.inner == 1 && !last.identity ? join_lines(outer, last) : 1;
  P.rows /= join;
  P.last = line_for<acc_t>(last, /*lead=*/false, /*gather=*/P.inner == 1 && !last.identity, fold, join);
  const Line<acc_t>& L = *P.last;

  // Work per line (multiply-adds), then enough items for every thread to get several. A joined
  // line is `join` lines' work: counted as one, a pass of 1200 joined rows (three planes'
  // nearest 400 x 528 -> 400 x 32) stayed on one thread (72 us with two threads as with one;
  // 14.7 us with two counted so).
  const double line_work =
      (lead_taps * static_cast<double>(last.in_size) + static_cast<double>(last.out_size) *
                                                           static_cast<double>(last.K)) *
      static_cast<double>(inner) * static_cast<double>(join);
  const int64_t threads = std::max<int>(1, at::get_num_threads());
  // Fewer lines than threads, of `inner` elements per position (the separable passes' first
  // pass over one plane, along its rows, is one line): segments of at least 256 elements where
  // the line has kSplitLine or more. With 2 threads, one plane's bilinear 224² -> 256² went from
  // 27-55 to 23-26 us, bicubic 29-70 -> 25-27 us, bilinear 128² -> 256² 21-34 -> 18-19 us; on
  // shorter lines (bicubic 112² -> 128², 14336 elements) they measured 0.75x-0.98x.
  const int64_t line_elems = L.out * P.inner;
  if (threads > 1 && P.rows < 8 * threads && L.out >= 512) {
    P.nseg = std::min<int64_t>((8 * threads + P.rows - 1) / P.rows, L.out / 256);
  } else if (threads > 1 && P.rows < threads && P.inner > 1 && line_elems >= kSplitLine) {
    P.nseg = std::min<int64_t>({(8 * threads + P.rows - 1) / P.rows, line_elems / 256, L.out});
  }
  P.nseg = std::max<int64_t>(1, P.nseg);
  P.seg_len = (L.out + P.nseg - 1) / P.nseg;
  P.nseg = (L.out + P.seg_len - 1) / P.seg_len;
  if (P.nseg == 1) {
    P.seg_lo.assign(1, L.lo);
    P.seg_hi.assign(1, L.hi);
  } else {
    P.seg_lo.assign(P.nseg, L.in);
    P.seg_hi.assign(P.nseg, 0);
    for (int64_t sg = 0; sg < P.nseg; ++sg) {
      int64_t lo = L.in, hi = 0;
      for (int64_t o = sg * P.seg_len, e = std::min(L.out, o + P.seg_len); o < e; ++o) {
        if (L.len[o] == 0) continue;
        lo = std::min(lo, L.start[o]);
        hi = std::max(hi, L.reach(o));
      }
      P.seg_lo[sg] = lo;
      P.seg_hi[sg] = hi;
    }
  }
  // The ring when it does less work per line, in multiply-adds over contiguous elements. Blend
  // first: the leading taps over the input line, then the last axis' taps over the output line.
  // Ring: the last axis' taps for the input lines a line adds (fresh), then the leading taps
  // over the output line. A tap of a gathered line (inner 1) costs as many as the vector loads
  // eight outputs' taps span (plan_loads: 7 * in / out + K * fold floats), up to
  // a gather's four; of a line of several channels, one. The ring also pays a cost per line
  // (its slot lookups, a call per fresh line) that the count leaves out: on short lines it must
  // save a fifth (NCHW bicubic x2 of 64 x 64 planes measured 0.77x with it at 0.87 of the
  // work); from kRingLongLine output elements on, any saving (bilinear and bicubic x2 of
  // 256 x 256 to 1024 x 1024 planes at 0.87 to 0.89: 1.2x-1.6x, most where its blends stream).
  // Not in the separable passes' order (pass_order: their values, the leading axis first). Not
  // where every leading axis is a copy (unit: an identity, or nearest): each line then resamples
  // its input line straight into the output line, where a slot adds a copy of each line
  // (channels_last bicubic 2 x 16 x 128² -> 128 x 100 measured 1.16x faster without it; RGB
  // 256² -> 256 x 224 and 256 x 300 no faster, where the copy's stores cost what the
  // resampling's own stores to the output do). Nor for lines of kRingWideInner channels and
  // more per position with at most two leading taps (channels_last bilinear of many channels):
  // there the blend first, which fused_line does in one sweep of the output line, read as fast
  // as the slots it spares, whose line of 32 KiB and more leaves L1 (1 thread, an EPYC:
  // (4, 64, 64², CL) -> 128² 1.14x faster, its backward 1.26x, (1, 64, 200², CL) -> 300² 1.26x;
  // 2 threads 1.07x; float16 and bfloat16 0.96x-1.09x). With 16 channels (0.77x-0.92x without
  // it), 32 (0.99x-1.07x) and bicubic's four taps (0.83x with 64 channels) the ring stays.
  if (k >= 2 && !last.identity && !last.unit && !lead_copies(P) && P.max_taps <= kRingSlots && !pass_order) {
    const AxisTable& near = *tabs[k - 2];  // the leading axis consecutive lines step along
    const double kn = static_cast<double>(near.sum_len) / static_cast<double>(near.out_size);
    const double fresh = lead_taps / kn *
                         std::min(kn, static_cast<double>(near.in_size) / static_cast<double>(near.out_size));
    const double span = 7.0 * static_cast<double>(last.in_size) / static_cast<double>(last.out_size) +
                        static_cast<double>(last.K * fold);
    const double tap = P.inner > 1 ? 1.0 : span <= 8 ? 1.5 : span <= 16 ? 3.0 : 4.0;
    const double along = static_cast<double>(last.out_size) * static_cast<double>(last.K) * tap;
    // Lines of pairs (pair_rows, two to four leading taps, the AVX2 build): the leading taps
    // blended at each pair as it is loaded, no pass over the input line. RGB and RGBA lines
    // blended as their pixels load (blended_pairs_pay) likewise, each further leading tap costing
    // half a tap of the line (its loads and multiply-adds; the picks, weights and stores are
    // paid once): RGBA 600 x 800 -> 400 x 300 ran 1.5x faster blended than through the ring,
    // which counted a whole tap per leading tap took.
    const bool avx2 = std::is_same_v<acc_t, float> && cpu_has_avx2() && P.max_taps <= 4;
    const double blend_first = avx2 && pair_rows(L)                      ? lead_taps * along
                               : avx2 && blended_pairs_pay(L, P.max_taps) ? (lead_taps + 1) / 2 * along
                                                                         : lead_taps * static_cast<double>(last.in_size) + along;
    const double ring = fresh * along + lead_taps * static_cast<double>(last.out_size);
    const double line_bytes = static_cast<double>(last.out_size * inner) * sizeof(acc_t);
    const double margin = last.out_size * inner >= kRingLongLine ? 1.0 : 0.8;
    const bool wide = P.inner >= kRingWideInner && P.max_taps <= 2;
    if (ring < margin * blend_first && line_bytes * static_cast<double>(P.max_taps) <= kRingBytes && !wide)
      P.ring = P.max_taps;
  }
  const double item_work = std::max(1.0, line_work / static_cast<double>(P.nseg));
  P.grain = std::max<int64_t>(1, static_cast<int64_t>(65536.0 / item_work));
  return P;
}

// Per-thread scratch, kept between calls (one line, small).
unsigned char* scratch(size_t bytes) {
  static thread_local std::unique_ptr<unsigned char[]> buf;
  static thread_local size_t size = 0;
  if (size < bytes) {
    size = std::max(bytes, size * 2);
    buf.reset(new unsigned char[size]);
  }
  return buf.get();
}

#define RESIZE_AD_KERNELS "line_sweep.h"
#include "isa_twice.h"

template <typename src_t, typename dst_t, typename acc_t>
void run(const at::Tensor& src, const at::Tensor& dst, int64_t outer, int64_t inner,
         c10::ArrayRef<const AxisTable*> tabs, bool pass_order) {
  Sweep<acc_t> P = make_sweep<acc_t>(outer, inner, tabs, pass_order);
  // Large outputs stream where their pages are mapped already (fresh_result).
  const size_t bytes = dst.nbytes();
  void* const dst_mem = dst.data_ptr();
  const bool fresh = fresh_result(dst_mem, bytes);
  const bool huge = fresh && advise_huge_pages(dst_mem, bytes);
  const size_t threshold = stream_threshold();
  const bool big = bytes >= threshold;
  // Lines that go at the speed of their stores keep ordinary ones with several threads where
  // the cores do not share one L3 (shared_l3) and the threshold is not forced: copies (nearest
  // or identity along every axis), and lines of several channels outside the ring whose input
  // and output fit in a core complex's L3 (kKeepBytes). On the AMD EPYC, whose streamed stores
  // reached about 21 GB/s with one thread and no more with two, two threads' ordinary stores
  // went faster: nearest x2 1.1x-1.9x ((4, 64, 64²) NCHW and channels_last, (1, 3, 512²) NCHW:
  // 16 and 12 MiB outputs; (16, 64, 64²) NCHW, a 64 MiB one, 1.35x), channels_last bilinear x2
  // of (4, 64, 64²) 1.4x. The ring's blends, and rows whose input pushes the output out of the
  // L3 ((1, 16, 1000²) -> 400² channels_last bilinear), measured 1.1x-1.3x faster streamed; with
  // one thread streaming stays 1.2x-1.3x faster.
  const bool copies = P.last->unit && lead_copies(P);
  const bool rows = P.inner > 1 && P.ring == 0 && bytes + src.nbytes() <= kKeepBytes;
  const bool keep = (copies || rows) && at::get_num_threads() > 1 && !shared_l3() && !stream_threshold_forced();
  const bool large = big && !fresh && !keep;
  // Only lines that are copies (nearest) of one channel per position, or identities: measured
  // 1.2x faster streamed. Weighted lines were no faster (channels_last) or slower (bilinear x2
  // NCHW 0.84x, trilinear 0.78x): their arithmetic, not the stores, bounds them, and the stage
  // adds to it.
  // And only where each segment is whole 16-byte stores from a 16-byte aligned output: a line's
  // ends were otherwise ordinary stores into cache lines the neighbouring lines stream, and each
  // such line left the write-combining buffer in pieces (nearest NCHW (2, 64, 392, 190) ->
  // 364 x 155, rows of 620 bytes, a 29 MB output: 21.4 ms streamed against 5.2 ms with ordinary
  // stores, 1 thread).
  const int64_t elem = static_cast<int64_t>(sizeof(dst_t));
  // Whether every segment of every line starts and ends on a multiple of n bytes.
  auto segments_whole = [&](int64_t n) {
    return reinterpret_cast<uintptr_t>(dst_mem) % n == 0 && P.last->out * P.inner * elem % n == 0 &&
           P.seg_len * P.inner * elem % n == 0;
  };
  P.stream = large && segments_whole(16) && P.last->unit && (P.inner == 1 || P.last->identity);
  // Lines of several channels (copies and two-tap rows) outside the ring (whose lines go to its
  // slots), and the ring's blends: 1.16-1.3x faster streamed on channels_last C = 3 and 4
  // upscales; copies of 64 channels per position 1.1x faster than through the stage.
  // These count the input with the output (streams); the stage above counts the output alone:
  // nearest-exact (8, 32, 256, 256) -> 85 x 85, a 7.4 MB output of short plane lines from a
  // 67 MB input, ran 0.42x-0.73x as fast through it.
  // Positions stream only where each is whole 16-byte stores (inner_line's stream_copy): the
  // ends of one that is not would be ordinary stores into cache lines its neighbours stream,
  // and each such line left the write-combining buffer in pieces. Channels_last nearest x2 of
  // (2, 10, 256²) took 109 ms so against 2.6 ms with ordinary stores; NCHW nearest planes'
  // second pass, rows of 31 floats, 60 against 2.9 ms.
  // Outside the ring, each segment also whole 64-byte lines: a line shared by the end of one
  // row and the start of the next left the write-combining buffer in two pieces when the loads
  // of the next row's taps came in between (the backward of trilinear channels_last_3d
  // (4, 8, 53, 61, 41) -> (83, 93, 55), rows of 41 positions of 32 bytes from blends of about
  // ten input rows: 57 ms streamed against 13.7 ms with ordinary stores, 1 thread). The ring's
  // blends read slots the caches hold: channels_last RGB rows of 2003 and 3001 pixels (not
  // whole lines) ran as fast streamed as with ordinary stores.
  const bool whole_positions = (P.inner * elem) % 16 == 0;
  P.stream_rows = streams(bytes, src.nbytes(), threshold) && !fresh && !keep &&
                  ((P.inner > 1 && !P.last->identity && whole_positions && segments_whole(64)) ||
                   (!P.last->unit && P.ring > 0));
  // Fresh 4 KiB pages: the kernel's page faults cost less taken a few at a time just ahead of
  // the lines that write them than one by one amid the stores (faults spent about 30 % more
  // system time per page that way on this VM, for the same count). A window of 64 KiB measured
  // 1.01x-1.18x faster on 33.5 MB outputs (nearest, bilinear, trilinear x2, NCHW and
  // channels_last, 1 and 2 threads); the whole chunk at once up to 1.2x on NCHW, but 0.91x on
  // channels_last bilinear (the ring), whose slots the zeroed pages then pushed out of L2.
  // Huge pages fault in 2 MiB at once: there the touches measured 1.0x-1.1x slower.
  P.pretouch = big && fresh && !huge;
  // Rows are prefetched whole (their span), so not where the last axis reads under half of its
  // input positions and each position is a cache line or more: those prefetches fetch lines no
  // tap reads (channels_last_3d nearest of 64 channels (2, 64, 34, 54, 10) -> (10, 17, 2): 17-19
  // us, half of it in the prefetches, against native's 9 us).
  const bool sparse = 2 * P.last->sum_len < P.last->in && P.inner * static_cast<int64_t>(sizeof(src_t)) >= 64;
  P.prefetch = src.nbytes() > prefetch_threshold() && !sparse;
  P.interleave = src.nbytes() + bytes >= kInterleaveBytes;
  const src_t* s = src.const_data_ptr<src_t>();
  dst_t* d = dst.mutable_data_ptr<dst_t>();
#if RESIZE_AD_HAVE_AVX2_BUILD
  if (cpu_has_avx2()) return avx2::run_sweep<src_t, dst_t, acc_t>(P, s, d);
#endif
  base::run_sweep<src_t, dst_t, acc_t>(P, s, d);
}

// src / dst are of dtype `orig` or of its accumulation type (float for half and bfloat16).
void dispatch(const at::Tensor& src, const at::Tensor& dst, at::ScalarType orig, int64_t outer,
              int64_t inner, c10::ArrayRef<const AxisTable*> tabs, bool pass_order = false) {
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, orig, "resize_ad_cpu", [&] {
    using acc_t = at::opmath_type<scalar_t>;
    const bool src_acc = src.scalar_type() != orig;
    const bool dst_acc = dst.scalar_type() != orig;
    if (src_acc && dst_acc) {
      run<acc_t, acc_t, acc_t>(src, dst, outer, inner, tabs, pass_order);
    } else if (src_acc) {
      run<acc_t, scalar_t, acc_t>(src, dst, outer, inner, tabs, pass_order);
    } else if (dst_acc) {
      run<scalar_t, acc_t, acc_t>(src, dst, outer, inner, tabs, pass_order);
    } else {
      run<scalar_t, scalar_t, acc_t>(src, dst, outer, inner, tabs, pass_order);
    }
  });
}

void axis_pass_cpu(const at::Tensor& src, const at::Tensor& dst, at::ScalarType kernel_dtype,
                   int64_t outer, int64_t inner, const AxisTable& t) {
  const AxisTable* const table = &t;
  dispatch(src, dst, kernel_dtype, outer, inner, table);
}

void line_sweep_cpu(const at::Tensor& src, const at::Tensor& dst, int64_t outer, int64_t inner,
                    c10::ArrayRef<const AxisTable*> tables, bool pass_order) {
  dispatch(src, dst, src.scalar_type(), outer, inner, tables, pass_order);
}

// The CUDA kernel's element function, element by element: a reference, not a fast path.
void product_gather_cpu(const at::Tensor& src, const at::Tensor& dst,
                        const std::vector<int64_t>& pos, const std::vector<const AxisTable*>& tables) {
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, src.scalar_type(), "resize_ad_gather_cpu", [&] {
    using acc_t = at::opmath_type<scalar_t>;
    std::vector<std::vector<acc_t>> weights;
    std::vector<const int64_t*> starts, lens;
    std::vector<const acc_t*> ws;
    for (const AxisTable* t : tables) {
      weights.emplace_back(t->w.begin(), t->w.end());
      starts.push_back(t->start.data());
      lens.push_back(t->len.data());
    }
    for (const auto& w : weights) ws.push_back(w.data());
    const auto plan = make_gather_plan<acc_t>(src.sizes(), dst.sizes(), pos, tables, starts, lens, ws);
    const scalar_t* s = src.const_data_ptr<scalar_t>();
    scalar_t* d = dst.mutable_data_ptr<scalar_t>();
    at::parallel_for(0, dst.numel(), 4096, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        d[i] = static_cast<scalar_t>(gather_element<scalar_t, acc_t, int64_t>(plan, s, i));
    });
  });
}

// set_pass_chunk_bytes (the test seam resize_ad._testing.pass_chunk_bytes): bytes in place of
// the machine's; 0 for the machine's.
std::atomic<int64_t> g_pass_chunk_bytes{0};

// The separable passes' scratch per chunk of planes (DeviceKernels::pass_chunk_bytes): a
// quarter of the L2 a core has, at least 128 KiB and at most 1 MiB (256 KiB where unknown).
int64_t pass_chunk_bytes() {
  if (const int64_t forced = g_pass_chunk_bytes.load(std::memory_order_relaxed); forced > 0) return forced;
  static const int64_t bytes = [] {
    long l2 = -1;
#if defined(_SC_LEVEL2_CACHE_SIZE)
    l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    if (l2 <= 0) return int64_t{256} << 10;
    return std::clamp<int64_t>(l2 / 4, int64_t{128} << 10, int64_t{1} << 20);
  }();
  return bytes;
}

// A result that chunked passes write in parts (DeviceKernels::prepare_result): huge pages where
// it is fresh and 4 MiB or more, as run gives a whole result (each part is too small for it).
void prepare_result_cpu(const at::Tensor& out) {
  if (fresh_result(out.data_ptr(), out.nbytes())) advise_huge_pages(out.data_ptr(), out.nbytes());
}

// The cost model picks the line sweep or the separable passes; the product gather only runs
// when tests force it.
const DeviceKernels& cpu_kernels() {
  static const DeviceKernels k = [] {
    DeviceKernels d;
    d.pass = axis_pass_cpu;
    d.pass_u8 = axis_pass_u8_cpu;
    d.pass_u8_fits = fixed_point_fits_int32;
    d.line_sweep = line_sweep_cpu;
    d.product_gather = product_gather_cpu;
    d.gather_max_taps = 0;
    d.native_fma = native_cpu_kernels_fma();
    d.pass_join_outputs = kJoinOutputs;
    d.threads = [] { return at::get_num_threads(); };
    d.planar_copy = planar_copy_cpu;
    d.pass_chunk_bytes = pass_chunk_bytes;
    d.prepare_result = prepare_result_cpu;
    return d;
  }();
  return k;
}

at::Tensor resize_cpu(const at::Tensor& input, at::IntArrayRef output_size, c10::string_view mode,
                      bool align_corners, std::optional<at::ArrayRef<double>> scales,
                      bool antialias) {
  return resize_forward(input, output_size, mode, align_corners, scales, antialias, cpu_kernels());
}

at::Tensor resize_backward_cpu(const at::Tensor& grad_output, at::IntArrayRef input_size,
                               c10::string_view mode, bool align_corners,
                               std::optional<at::ArrayRef<double>> scales, bool antialias) {
  return resize_backward(grad_output, input_size, mode, align_corners, scales, antialias,
                         cpu_kernels());
}

}  // namespace

void set_huge_pages(bool enabled) { g_huge_pages.store(enabled); }
void set_stream_threshold(size_t bytes) { g_stream_threshold.store(bytes); }
void set_pass_chunk_bytes(int64_t bytes) { g_pass_chunk_bytes.store(bytes); }

TORCH_LIBRARY_IMPL(resize_ad, CPU, m) {
  m.impl("resize", &resize_cpu);
  m.impl("resize_backward", &resize_backward_cpu);
}

}  // namespace resize_ad
