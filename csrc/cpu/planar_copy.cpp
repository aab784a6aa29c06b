// The copy of a channels_last result into its contiguous output (planar_copy.h).
//
// A result the plan computed in the input's channels_last order (an HWC image viewed as CHW,
// whose output native allocates contiguous: common/plan.cpp resize_into) is dealt into planes
// here. Blocks of L pixels (L elements to a 512-bit vector: 64 bytes, 32 half types, 16 floats,
// 8 doubles): the block's C vectors are loaded once, and channel c's L elements are picked from
// them by two-source permutes, one per pair of vectors, joined by masked moves (C <= 2: one
// permute; C = 3, 4: two and a move). Tensor::copy_ took 65 us (2 threads) and 128 us (1 thread)
// for one 240 x 320 x 3 uint8 result on the AMD EPYC (Zen 4) this was measured on: about half
// the resize.
#include "planar_copy.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cstdint>

#include "isa.h"

namespace resize_ad {

#if RESIZE_AD_HAVE_AVX2_BUILD
namespace {

#define RESIZE_AD_PLANAR __attribute__((target("avx512f,avx512bw,avx512vbmi,avx2")))

constexpr int kMaxChannels = 8;

// The vector operations on lanes of E bytes.
template <int E> struct Lanes;
template <> struct Lanes<1> {
  static RESIZE_AD_PLANAR __m512i load(uint64_t m, const void* p) { return _mm512_maskz_loadu_epi8(m, p); }
  static RESIZE_AD_PLANAR void store(uint64_t m, void* p, __m512i v) { _mm512_mask_storeu_epi8(p, m, v); }
  static RESIZE_AD_PLANAR __m512i pick(__m512i a, __m512i i, __m512i b) { return _mm512_permutex2var_epi8(a, i, b); }
  static RESIZE_AD_PLANAR __m512i move(__m512i r, uint64_t m, __m512i v) { return _mm512_mask_mov_epi8(r, m, v); }
};
template <> struct Lanes<2> {
  static RESIZE_AD_PLANAR __m512i load(uint64_t m, const void* p) { return _mm512_maskz_loadu_epi16(static_cast<__mmask32>(m), p); }
  static RESIZE_AD_PLANAR void store(uint64_t m, void* p, __m512i v) { _mm512_mask_storeu_epi16(p, static_cast<__mmask32>(m), v); }
  static RESIZE_AD_PLANAR __m512i pick(__m512i a, __m512i i, __m512i b) { return _mm512_permutex2var_epi16(a, i, b); }
  static RESIZE_AD_PLANAR __m512i move(__m512i r, uint64_t m, __m512i v) { return _mm512_mask_mov_epi16(r, static_cast<__mmask32>(m), v); }
};
template <> struct Lanes<4> {
  static RESIZE_AD_PLANAR __m512i load(uint64_t m, const void* p) { return _mm512_maskz_loadu_epi32(static_cast<__mmask16>(m), p); }
  static RESIZE_AD_PLANAR void store(uint64_t m, void* p, __m512i v) { _mm512_mask_storeu_epi32(p, static_cast<__mmask16>(m), v); }
  static RESIZE_AD_PLANAR __m512i pick(__m512i a, __m512i i, __m512i b) { return _mm512_permutex2var_epi32(a, i, b); }
  static RESIZE_AD_PLANAR __m512i move(__m512i r, uint64_t m, __m512i v) { return _mm512_mask_mov_epi32(r, static_cast<__mmask16>(m), v); }
};
template <> struct Lanes<8> {
  static RESIZE_AD_PLANAR __m512i load(uint64_t m, const void* p) { return _mm512_maskz_loadu_epi64(static_cast<__mmask8>(m), p); }
  static RESIZE_AD_PLANAR void store(uint64_t m, void* p, __m512i v) { _mm512_mask_storeu_epi64(p, static_cast<__mmask8>(m), v); }
  static RESIZE_AD_PLANAR __m512i pick(__m512i a, __m512i i, __m512i b) { return _mm512_permutex2var_epi64(a, i, b); }
  static RESIZE_AD_PLANAR __m512i move(__m512i r, uint64_t m, __m512i v) { return _mm512_mask_mov_epi64(r, static_cast<__mmask8>(m), v); }
};

// The first n of the L lanes.
inline uint64_t first(int64_t n, int L) {
  if (n <= 0) return 0;
  return n >= L ? (L == 64 ? ~uint64_t{0} : (uint64_t{1} << L) - 1) : (uint64_t{1} << n) - 1;
}

// Per channel c: the permute's index (lane i takes element i * C + c of the block, lane l of
// its vector v: index l + L * (v % 2), within the pair v / 2) and, per pair j > 0, the lanes
// whose element lies in pair j.
template <int E>
struct Picks {
  static constexpr int L = 64 / E;
  __m512i index[kMaxChannels];
  uint64_t pair[kMaxChannels][kMaxChannels / 2] = {};

  RESIZE_AD_PLANAR explicit Picks(int C) {
    for (int c = 0; c < C; ++c) {
      alignas(64) uint8_t bytes[64];
      for (int i = 0; i < L; ++i) {
        const int e = i * C + c, v = e / L, l = e % L;
        const uint64_t idx = static_cast<uint64_t>(l + L * (v % 2));
        for (int b = 0; b < E; ++b) bytes[i * E + b] = static_cast<uint8_t>(b < 2 ? idx >> (8 * b) : 0);
        pair[c][v / 2] |= uint64_t{1} << i;
      }
      index[c] = _mm512_load_si512(bytes);
    }
  }
};

// Pixels [p0, p1) of image n: C vectors of channels_last elements in, C plane segments out.
template <int E>
RESIZE_AD_PLANAR void deal(const char* src, char* dst, int C, int64_t P, int64_t p0, int64_t p1,
                           const Picks<E>& k) {
  using V = Lanes<E>;
  constexpr int L = Picks<E>::L;
  const int pairs = (C + 1) / 2;
  __m512i v[kMaxChannels];
  for (int64_t p = p0; p < p1; p += L) {
    const int64_t n = p1 - p < L ? p1 - p : L;
    const char* s = src + p * C * E;
    for (int j = 0; j < C; ++j) v[j] = V::load(first(n * C - j * L, L), s + j * L * E);
    if (C % 2) v[C] = v[C - 1];
    const uint64_t out = first(n, L);
    for (int c = 0; c < C; ++c) {
      __m512i r = V::pick(v[0], k.index[c], v[1]);
      for (int j = 1; j < pairs; ++j) r = V::move(r, k.pair[c][j], V::pick(v[2 * j], k.index[c], v[2 * j + 1]));
      V::store(out, dst + (c * P + p) * E, r);
    }
  }
}

template <int E>
void planar(const at::Tensor& src, const at::Tensor& dst) {
  const int64_t N = src.size(0), C = src.size(1), P = src.numel() / (N * C);
  const Picks<E> k(static_cast<int>(C));
  constexpr int L = Picks<E>::L;
  const int64_t blocks = (P + L - 1) / L;  // per image
  const char* s = static_cast<const char*>(src.const_data_ptr());
  char* d = static_cast<char*>(dst.mutable_data_ptr());
  // About 16 KiB of the result per task.
  const int64_t grain = std::max<int64_t>(1, (int64_t{16} << 10) / (L * C * E));
  at::parallel_for(0, N * blocks, grain, [&](int64_t b0, int64_t b1) {
    while (b0 < b1) {
      const int64_t n = b0 / blocks, first_block = b0 - n * blocks;
      const int64_t last_block = std::min(blocks, first_block + (b1 - b0));
      deal<E>(s + n * P * C * E, d + n * P * C * E, static_cast<int>(C), P, first_block * L,
              std::min(P, last_block * L), k);
      b0 += last_block - first_block;
    }
  });
}

}  // namespace
#endif

bool planar_copy_cpu(const at::Tensor& src, const at::Tensor& dst) {
#if RESIZE_AD_HAVE_AVX2_BUILD
  const int64_t C = src.dim() >= 3 ? src.size(1) : 0;
  if (C < 2 || C > kMaxChannels || src.numel() == 0 || !cpu_has_avx512bw()) return false;
  switch (src.element_size()) {
    case 1:
      if (!cpu_has_avx512vbmi()) return false;
      planar<1>(src, dst);
      return true;
    case 2: planar<2>(src, dst); return true;
    case 4: planar<4>(src, dst); return true;
    case 8: planar<8>(src, dst); return true;
    default: return false;
  }
#else
  (void)src;
  (void)dst;
  return false;
#endif
}

}  // namespace resize_ad
