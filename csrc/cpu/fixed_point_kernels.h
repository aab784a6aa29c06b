// The uint8 pass kernels (fixed_point.h). fixed_point.cpp includes this file twice
// (isa_twice.h), inside two namespaces: once for the baseline ISA and once under
// `#pragma GCC target("avx2,fma,f16c")`, and picks one at run time (as resize_cpu.cpp does with line_sweep.h). Hence no include guard and
// no includes here.
//
// Expects: U8Axis and U8Form of fixed_point.cpp, and RESIZE_AD_AVX2 (0 or 1).
//
// A pass over [outer, in, inner] has three shapes:
//   - inner == 1 (the last axis of NCHW, or of channels_last with C = 1): along a line, one
//     output pixel reads a window of consecutive bytes;
//   - inner == 3 or 4 (the width of channels_last RGB / RGBA): one output pixel reads a window of
//     consecutive interleaved pixels;
//   - inner >= 32 (every other axis): one output row is a weighted sum of whole input rows.
// The vector forms are in the AVX2 build only; the baseline build runs the scalar forms (which
// the compiler vectorises where it can).

inline uint8_t store_u8(int32_t acc, int precision) {
  acc >>= precision;  // arithmetic: the floor of ATen's `output >> weights_precision`
  return static_cast<uint8_t>(acc < 0 ? 0 : (acc > 255 ? 255 : acc));
}

// Any inner, output rows r = b * out + o in [r0, r1): taps outer, elements inner, in blocks.
inline void generic_rows(const U8Axis& A, const uint8_t* src, uint8_t* dst, int64_t inner,
                         int64_t r0, int64_t r1) {
  constexpr int64_t B = 256;
  const int32_t init = int32_t{1} << (A.precision - 1);
  int32_t acc[B];
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t b = r / A.out, o = r - b * A.out;
    const uint8_t* s = src + (b * A.in + A.start[o]) * inner;
    const int32_t* w = A.w.data() + o * A.K;
    const int64_t n = A.len[o];
    uint8_t* d = dst + r * inner;
    for (int64_t j0 = 0; j0 < inner; j0 += B) {
      const int64_t m = std::min(B, inner - j0);
      for (int64_t j = 0; j < m; ++j) acc[j] = init;
      for (int64_t k = 0; k < n; ++k) {
        const uint8_t* __restrict sk = s + k * inner + j0;
        const int32_t wk = w[k];
        for (int64_t j = 0; j < m; ++j) acc[j] += wk * static_cast<int32_t>(sk[j]);
      }
      for (int64_t j = 0; j < m; ++j) d[j0 + j] = store_u8(acc[j], A.precision);
    }
  }
}

// One output pixel of a line (inner = C interleaved channels), from the unshifted table.
inline void scalar_pixel(const U8Axis& A, const uint8_t* line, uint8_t* out, int64_t o, int64_t C) {
  const int32_t init = int32_t{1} << (A.precision - 1);
  const uint8_t* s = line + A.start[o] * C;
  const int32_t* w = A.w.data() + o * A.K;
  for (int64_t c = 0; c < C; ++c) {
    int32_t acc = init;
    for (int64_t k = 0; k < A.len[o]; ++k) acc += w[k] * static_cast<int32_t>(s[k * C + c]);
    out[o * C + c] = store_u8(acc, A.precision);
  }
}

// Unit table: out[o] = in[start[o]] (inner elements each), lines b in [b0, b1).
inline void unit_lines(const U8Axis& A, const uint8_t* src, uint8_t* dst, int64_t inner,
                       int64_t b0, int64_t b1) {
  const int64_t* st = A.start.data();
  for (int64_t b = b0; b < b1; ++b) {
    const uint8_t* __restrict s = src + b * A.in * inner;
    uint8_t* __restrict d = dst + b * A.out * inner;
    if (inner == 1) {
      for (int64_t o = 0; o < A.out; ++o) d[o] = s[st[o]];
    } else if (inner == 3) {
      for (int64_t o = 0; o < A.out; ++o) std::memcpy(d + o * 3, s + st[o] * 3, 3);
    } else if (inner == 4) {
      for (int64_t o = 0; o < A.out; ++o) std::memcpy(d + o * 4, s + st[o] * 4, 4);
    } else {
      for (int64_t o = 0; o < A.out; ++o) std::memcpy(d + o * inner, s + st[o] * inner, inner);
    }
  }
}

#if RESIZE_AD_AVX2

#define RESIZE_AD_AVX512BW __attribute__((target("avx512f,avx512bw,avx2,fma,f16c")))

inline __m256i round_shift(__m256i acc, __m256i init, __m128i shift) {
  return _mm256_sra_epi32(_mm256_add_epi32(acc, init), shift);
}

// The int32 sums of 32 bytes of an output row (j in [0, 32)) into four accumulators.
struct Acc32 {
  __m256i a0, a1, a2, a3;
};

inline void madd_rows(Acc32& a, __m256i x, __m256i y, __m256i wp, __m256i zero) {
  const __m256i lo = _mm256_unpacklo_epi8(x, y), hi = _mm256_unpackhi_epi8(x, y);
  a.a0 = _mm256_add_epi32(a.a0, _mm256_madd_epi16(_mm256_unpacklo_epi8(lo, zero), wp));
  a.a1 = _mm256_add_epi32(a.a1, _mm256_madd_epi16(_mm256_unpackhi_epi8(lo, zero), wp));
  a.a2 = _mm256_add_epi32(a.a2, _mm256_madd_epi16(_mm256_unpacklo_epi8(hi, zero), wp));
  a.a3 = _mm256_add_epi32(a.a3, _mm256_madd_epi16(_mm256_unpackhi_epi8(hi, zero), wp));
}

// The unpacks and packs both work within 128-bit lanes, so the bytes come back in order.
inline void store_rows(uint8_t* d, const Acc32& a, __m256i init, __m128i shift) {
  const __m256i p01 = _mm256_packs_epi32(round_shift(a.a0, init, shift), round_shift(a.a1, init, shift));
  const __m256i p23 = _mm256_packs_epi32(round_shift(a.a2, init, shift), round_shift(a.a3, init, shift));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(d), _mm256_packus_epi16(p01, p23));
}

inline __m256i load32(const uint8_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }

// Output rows r in [r0, r1) of a pass with inner >= 32: 32 bytes of a row at a time, two input
// rows per step interleaved into (row a, row b) int16 pairs for one madd with their (w_a, w_b)
// pair (vw), as UpSampleKernelAVXAntialias.h ImagingResampleVerticalConvolution8u pairs its
// taps. An odd last tap pairs with a zero weight and re-reads its own row. (64 bytes a step
// runs out of registers: no faster.)
inline void vertical_rows(const U8Axis& A, const uint8_t* src, uint8_t* dst, int64_t inner,
                          int64_t r0, int64_t r1) {
  const __m256i init = _mm256_set1_epi32(int32_t{1} << (A.precision - 1));
  const __m128i shift = _mm_cvtsi32_si128(A.precision);
  const __m256i zero = _mm256_setzero_si256();
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t b = r / A.out, o = r - b * A.out;
    const uint8_t* s = src + (b * A.in + A.start[o]) * inner;
    const int16_t* vw = A.vw.data() + o * A.kp;
    const int64_t n = A.len[o];
    uint8_t* d = dst + r * inner;
    // The last block overlaps the one before it when 32 does not divide inner: it rewrites the
    // same values, in this row only.
    for (int64_t j0 = 0; j0 < inner; j0 += 32) {
      const int64_t j = std::min(j0, inner - 32);
      Acc32 u{zero, zero, zero, zero};
      for (int64_t k = 0; k < n; k += 2) {
        int32_t pair;
        std::memcpy(&pair, vw + k, 4);
        const uint8_t* x = s + k * inner + j;
        const uint8_t* y = k + 1 < n ? x + inner : x;
        madd_rows(u, load32(x), load32(y), _mm256_set1_epi32(pair), zero);
      }
      store_rows(d + j, u, init, shift);
    }
  }
}

// Eight int32 sums from v[i] = the partial sums of output i (8 each): hadd trees.
inline __m256i reduce8x8(const __m256i* v) {
  const __m256i c0 = _mm256_hadd_epi32(_mm256_hadd_epi32(v[0], v[1]), _mm256_hadd_epi32(v[2], v[3]));
  const __m256i c1 = _mm256_hadd_epi32(_mm256_hadd_epi32(v[4], v[5]), _mm256_hadd_epi32(v[6], v[7]));
  return _mm256_add_epi32(_mm256_permute2x128_si256(c0, c1, 0x20), _mm256_permute2x128_si256(c0, c1, 0x31));
}

inline void store8(uint8_t* d, __m256i sums, __m256i init, __m128i shift) {
  const __m256i r = round_shift(sums, init, shift);
  const __m128i p16 = _mm_packs_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(d), _mm_packus_epi16(p16, p16));
}

// Per 128-bit lane, (a, b) pairwise: [a0 + a2, b0 + b2, a1 + a3, b1 + b3] (pair), and the
// 64-bit halves of (a, b) added (quad): after pair then quad, lane L holds the sums of lane L
// of four vectors.
RESIZE_AD_AVX512BW inline __m512i pair(__m512i a, __m512i b) {
  return _mm512_add_epi32(_mm512_unpacklo_epi32(a, b), _mm512_unpackhi_epi32(a, b));
}
RESIZE_AD_AVX512BW inline __m512i quad(__m512i a, __m512i b) {
  return _mm512_add_epi32(_mm512_unpacklo_epi64(a, b), _mm512_unpackhi_epi64(a, b));
}

// Output pixels [o, nv) of one planar line whose windows hold kp = 16 taps, sixteen at a time in
// 512-bit vectors (AVX-512BW): pixels o + i and o + i + 8 share a vector, each one a madd of its
// 16 bytes with its 16 weights into eight int32 partial sums; one reduction of eight such
// vectors then gives the sixteen sums. The same integer sums as planar_lines' (any order gives
// the same bits). Returns the first pixel it did not compute.
RESIZE_AD_AVX512BW int64_t planar16_512(const U8Axis& A, const uint8_t* s, uint8_t* d, int64_t o, int64_t nv) {
  const __m512i init = _mm512_set1_epi32(int32_t{1} << (A.precision - 1));
  const __m128i shift = _mm_cvtsi32_si128(A.precision);
  const int32_t* vs = A.vstart.data();
  const int16_t* vw = A.vw.data();
  auto load16 = [](const void* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); };
  auto load32 = [](const void* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); };
  for (; o + 16 <= nv; o += 16) {
    __m512i v[8];
    for (int i = 0; i < 8; ++i) {
      const __m256i x = _mm256_inserti128_si256(_mm256_castsi128_si256(load16(s + vs[o + i])),
                                                load16(s + vs[o + i + 8]), 1);
      const __m512i wt = _mm512_inserti64x4(_mm512_castsi256_si512(load32(vw + (o + i) * 16)),
                                            load32(vw + (o + i + 8) * 16), 1);
      v[i] = _mm512_madd_epi16(_mm512_cvtepu8_epi16(x), wt);  // [o+i: 8 | o+i+8: 8]
    }
    // Per 128-bit lane L: the sums of lane L of v[0..3] (ab) and of v[4..7] (cd); pixel o + i is
    // lanes 0 and 1 of v[i], pixel o + i + 8 lanes 2 and 3.
    const __m512i ab = quad(pair(v[0], v[1]), pair(v[2], v[3]));
    const __m512i cd = quad(pair(v[4], v[5]), pair(v[6], v[7]));
    const __m512i sums = _mm512_add_epi32(_mm512_shuffle_i32x4(ab, cd, _MM_SHUFFLE(2, 0, 2, 0)),
                                          _mm512_shuffle_i32x4(ab, cd, _MM_SHUFFLE(3, 1, 3, 1)));
    // [o..o+3, o+8..o+11, o+4..o+7, o+12..o+15] -> pixel order
    const __m512i r = _mm512_sra_epi32(
        _mm512_add_epi32(_mm512_shuffle_i32x4(sums, sums, _MM_SHUFFLE(3, 1, 2, 0)), init), shift);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + o),
                     _mm512_cvtusepi32_epi8(_mm512_max_epi32(r, _mm512_setzero_si512())));
  }
  return o;
}

// Output pixels [o, nv) of one planar line whose windows hold kp >= 16 taps (KP = kp, or 0:
// read at run time), eight at a time: each a madd of its window, 16 bytes at a time widened to
// int16, with its weights into eight int32 partial sums, then one hadd tree for the eight. With
// kp known the loops unroll and the eight sums stay in registers: antialiased bilinear NCHW
// 1080 x 1920 -> 224 x 398 (16 taps) measured 1.8x faster so than with kp read at run time (1 and
// 2 threads, an AMD EPYC with AVX2). Returns the first pixel it did not compute.
template <int KP>
inline int64_t planar_wide(const U8Axis& A, const uint8_t* s, uint8_t* d, int64_t o, int64_t nv) {
  const __m256i init = _mm256_set1_epi32(int32_t{1} << (A.precision - 1));
  const __m128i shift = _mm_cvtsi32_si128(A.precision);
  const int64_t kp = KP > 0 ? KP : A.kp;
  const int32_t* vs = A.vstart.data();
  const int16_t* vw = A.vw.data();
  for (; o < nv; o += 8) {
    __m256i v[8];
    for (int i = 0; i < 8; ++i) {
      const uint8_t* p = s + vs[o + i];
      const int16_t* wt = vw + (o + i) * kp;
      __m256i acc = _mm256_setzero_si256();
      for (int64_t c = 0; c < kp; c += 16) {
        const __m256i x = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + c)));
        acc = _mm256_add_epi32(acc, _mm256_madd_epi16(x, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wt + c))));
      }
      v[i] = acc;
    }
    store8(d + o, reduce8x8(v), init, shift);
  }
  return o;
}

// inner == 1, lines b in [b0, b1). Eight output pixels at a time, each one a madd of its window
// (kp bytes from vstart[o], widened to int16) with its kp weights, then one hadd tree for the
// eight. Across output pixels, not across lines as ImagingResampleHorizontalConvolution8u4x:
// a line here is one plane, with no channels to share the window's loads.
inline void planar_lines(const U8Axis& A, const uint8_t* src, uint8_t* dst, int64_t b0, int64_t b1) {
  const __m256i init = _mm256_set1_epi32(int32_t{1} << (A.precision - 1));
  const __m128i shift = _mm_cvtsi32_si128(A.precision);
  const int64_t kp = A.kp, nv = A.nvec & ~int64_t{7};
  const int32_t* vs = A.vstart.data();
  const int16_t* vw = A.vw.data();
  for (int64_t b = b0; b < b1; ++b) {
    const uint8_t* s = src + b * A.in;
    uint8_t* d = dst + b * A.out;
    int64_t o = 0;
    if (kp == 8) {
      for (; o < nv; o += 8) {
        __m256i v[4];
        for (int i = 0; i < 4; ++i) {
          const __m128i x = _mm_unpacklo_epi64(
              _mm_loadl_epi64(reinterpret_cast<const __m128i*>(s + vs[o + i])),
              _mm_loadl_epi64(reinterpret_cast<const __m128i*>(s + vs[o + i + 4])));
          const __m256i wt = _mm256_inserti128_si256(
              _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(vw + (o + i) * 8))),
              _mm_loadu_si128(reinterpret_cast<const __m128i*>(vw + (o + i + 4) * 8)), 1);
          v[i] = _mm256_madd_epi16(_mm256_cvtepu8_epi16(x), wt);  // [o+i: 4 | o+i+4: 4]
        }
        // hadd pairs within lanes: [o, o+1, o+2, o+3 | o+4, ..., o+7]
        const __m256i sums = _mm256_hadd_epi32(_mm256_hadd_epi32(v[0], v[1]), _mm256_hadd_epi32(v[2], v[3]));
        store8(d + o, sums, init, shift);
      }
    } else {
      if (kp == 16 && cpu_has_avx512bw()) o = planar16_512(A, s, d, o, nv);
      switch (kp) {
        case 16: o = planar_wide<16>(A, s, d, o, nv); break;
        case 32: o = planar_wide<32>(A, s, d, o, nv); break;
        default: o = planar_wide<0>(A, s, d, o, nv); break;
      }
    }
    for (; o < A.out; ++o) scalar_pixel(A, s, d, o, 1);
  }
}

// Window sums of one interleaved output pixel, C = 3 or 4, on `lines` lines (1 or 2) that
// share the weight loads. Per step four input pixels (16 bytes) are loaded into both 128-bit
// lanes, and one shuffle zero-extends them into (pixel 2i, pixel 2i + 1) int16 pairs per channel,
// lane 0 from pixels 0, 1 and lane 1 from pixels 2, 3; one madd with the pairs' weights then
// leaves in lane 0 the channel sums of taps 4c, 4c + 1 and in lane 1 of taps 4c + 2, 4c + 3
// (UpSampleKernelAVXAntialias.h ImagingResampleHorizontalConvolution8u4x shuffles the same
// pairs).
template <int C>
inline __m256i interleaved_mask() {
  return C == 4 ? _mm256_setr_epi8(0, -1, 4, -1, 1, -1, 5, -1, 2, -1, 6, -1, 3, -1, 7, -1,
                                   8, -1, 12, -1, 9, -1, 13, -1, 10, -1, 14, -1, 11, -1, 15, -1)
                : _mm256_setr_epi8(0, -1, 3, -1, 1, -1, 4, -1, 2, -1, 5, -1, -1, -1, -1, -1,
                                   6, -1, 9, -1, 7, -1, 10, -1, 8, -1, 11, -1, -1, -1, -1, -1);
}

template <int C>
inline __m256i window_step(const uint8_t* p, __m256i mask) {
  return _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))), mask);
}

// The window sums of one output pixel on L lines (acc[l]: lane 0 the channel sums of taps
// 4c, 4c + 1, lane 1 of taps 4c + 2, 4c + 3), from S steps of four taps (S = 0: kp / 4 steps,
// read at run time). The lines share the weight loads; their accumulators are independent.
template <int C, int L, int S>
inline void window_sums(__m256i* acc, const uint8_t* const* p, const int16_t* wt, int64_t kp, __m256i mask) {
  for (int l = 0; l < L; ++l) acc[l] = _mm256_setzero_si256();
  const int64_t steps = S > 0 ? S : kp / 4;
  for (int64_t c = 0; c < steps; ++c) {
    const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wt + c * 16));
    for (int l = 0; l < L; ++l)
      acc[l] = _mm256_add_epi32(acc[l], _mm256_madd_epi16(window_step<C>(p[l] + c * 4 * C, mask), w));
  }
}

// The channel sums of lines (a, b) rounded and shifted: [a's four | b's four] int32.
inline __m256i lane_sums(__m256i a, __m256i b, __m256i init, __m128i shift) {
  const __m256i sums = _mm256_add_epi32(_mm256_permute2x128_si256(a, b, 0x20),
                                        _mm256_permute2x128_si256(a, b, 0x31));
  return round_shift(sums, init, shift);
}

// Output pixels [o0, o1) of L lines (1 or 4) at s[l] -> d[l], interleaved C = 3 or 4. Each
// pixel's four channel bytes are one 4-byte store; for C = 3 the fourth lands on the next
// pixel, which is stored after it, so the caller keeps o1 below the line's last pixel
// (`tail3`: that one pixel stores three bytes).
template <int C, int L, int S>
inline void interleaved_pixels(const U8Axis& A, const uint8_t* const* s, uint8_t* const* d,
                               int64_t o0, int64_t o1, bool tail3) {
  const __m256i init = _mm256_set1_epi32(int32_t{1} << (A.precision - 1));
  const __m128i shift = _mm_cvtsi32_si128(A.precision);
  const __m256i mask = interleaved_mask<C>();
  const int64_t kp = A.kp, wstride = kp * 4;
  const int32_t* vs = A.vstart.data();
  const int16_t* vw = A.vw.data();
  auto put = [](uint8_t* q, uint32_t v, bool three) {
    if (three) std::memcpy(q, &v, 3); else std::memcpy(q, &v, 4);
  };
  auto pixel = [&](int64_t o, bool three) {
    const uint8_t* p[L];
    for (int l = 0; l < L; ++l) p[l] = s[l] + vs[o] * C;
    __m256i acc[L];
    window_sums<C, L, S>(acc, p, vw + o * wstride, kp, mask);
    if (L == 4) {
      // packs: [line 0, line 2 | line 1, line 3] int16; packus: each lane's eight bytes twice
      const __m256i r = _mm256_packs_epi32(lane_sums(acc[0], acc[1 % L], init, shift),
                                           lane_sums(acc[2 % L], acc[3 % L], init, shift));
      const __m256i b8 = _mm256_packus_epi16(r, r);
      const __m128i lo = _mm256_castsi256_si128(b8), hi = _mm256_extracti128_si256(b8, 1);
      put(d[0] + o * C, static_cast<uint32_t>(_mm_cvtsi128_si32(lo)), three);
      put(d[1 % L] + o * C, static_cast<uint32_t>(_mm_cvtsi128_si32(hi)), three);
      put(d[2 % L] + o * C, static_cast<uint32_t>(_mm_extract_epi32(lo, 1)), three);
      put(d[3 % L] + o * C, static_cast<uint32_t>(_mm_extract_epi32(hi, 1)), three);
    } else {
      const __m256i r = lane_sums(acc[0], acc[0], init, shift);
      const __m128i p16 = _mm_packs_epi32(_mm256_castsi256_si128(r), _mm256_castsi256_si128(r));
      put(d[0] + o * C, static_cast<uint32_t>(_mm_cvtsi128_si32(_mm_packus_epi16(p16, p16))), three);
    }
  };
  for (int64_t o = o0; o < o1; ++o) pixel(o, false);
  if (tail3) pixel(o1, true);
}

// inner == C (3 or 4), lines b in [b0, b1): four lines at a time (then one), one output pixel
// of each per step, so that the four read the pixel's weights once; pixels from nvec on, whose
// window the vector load would overrun, run the scalar form.
template <int C, int S>
inline void interleaved_lines_s(const U8Axis& A, const uint8_t* src, uint8_t* dst, int64_t b0, int64_t b1) {
  const int64_t in_line = A.in * C, out_line = A.out * C;
  // the vector pixels; for C = 3 the line's last one stores three bytes (interleaved_pixels)
  const int64_t nv = A.nvec;
  const bool tail3 = C == 3 && nv == A.out;
  const int64_t nv4 = tail3 ? nv - 1 : nv;
  auto scalar_tail = [&](const uint8_t* sl, uint8_t* dl) {
    for (int64_t o = nv; o < A.out; ++o) scalar_pixel(A, sl, dl, o, C);
  };
  int64_t b = b0;
  for (; b + 4 <= b1; b += 4) {
    const uint8_t* s[4];
    uint8_t* d[4];
    for (int l = 0; l < 4; ++l) s[l] = src + (b + l) * in_line, d[l] = dst + (b + l) * out_line;
    interleaved_pixels<C, 4, S>(A, s, d, 0, nv4, tail3);
    for (int l = 0; l < 4; ++l) scalar_tail(s[l], d[l]);
  }
  for (; b < b1; ++b) {
    const uint8_t* s[1] = {src + b * in_line};
    uint8_t* d[1] = {dst + b * out_line};
    interleaved_pixels<C, 1, S>(A, s, d, 0, nv4, tail3);
    scalar_tail(s[0], d[0]);
  }
}

// Small windows (kp / 4 = 1 .. 4 steps: bilinear, bicubic and their moderate downscales) with
// the step count known at compile time.
template <int C>
inline void interleaved_lines(const U8Axis& A, const uint8_t* src, uint8_t* dst, int64_t b0, int64_t b1) {
  switch (A.kp / 4) {
    case 1: return interleaved_lines_s<C, 1>(A, src, dst, b0, b1);
    case 2: return interleaved_lines_s<C, 2>(A, src, dst, b0, b1);
    case 3: return interleaved_lines_s<C, 3>(A, src, dst, b0, b1);
    case 4: return interleaved_lines_s<C, 4>(A, src, dst, b0, b1);
    default: return interleaved_lines_s<C, 0>(A, src, dst, b0, b1);
  }
}

// Unit table, positions of A.inner < 16 bytes (U8Form::Shuffle), lines b in [b0, b1): each
// block of 16 output bytes one load of the 16 input bytes from A.vstart[i] and one byte shuffle
// (A.shuf), or two of each, or-ed (vstart <= -2: from -vstart - 2); blocks without one
// (vstart -1) and lines too short for one load, byte by byte.
inline void shuffle_lines(const U8Axis& A, const uint8_t* src, uint8_t* dst, int64_t b0, int64_t b1) {
  const int64_t inner = A.inner, in_bytes = A.in * inner, out_bytes = A.out * inner;
  const int64_t blocks = static_cast<int64_t>(A.vstart.size());
  const int32_t* vs = A.vstart.data();
  const uint8_t* shuf = A.shuf.data();
  const int64_t* st = A.start.data();
  // Output bytes [j, j1) of a line: the pieces of the positions they overlap, one copy each (a
  // byte at a time, a division per byte, took 60 % of a 10-channel channels_last nearest
  // downscale, (8, 10, 211, 132) -> 114 x 68: 1.24 ms against native's 0.54).
  auto bytes = [&](const uint8_t* s, uint8_t* d, int64_t j, int64_t j1) {
    int64_t o = j / inner, c = j - o * inner;
    for (; j < j1; ++o, c = 0) {
      const int64_t n = std::min(inner - c, j1 - j);
      const uint8_t* from = s + st[o] * inner + c;
      for (int64_t k = 0; k < n; ++k) d[j + k] = from[k];
      j += n;
    }
  };
  for (int64_t b = b0; b < b1; ++b) {
    const uint8_t* s = src + b * in_bytes;
    uint8_t* d = dst + b * out_bytes;
    if (blocks == 0) {
      bytes(s, d, 0, out_bytes);
      continue;
    }
    for (int64_t i = 0; i < blocks; ++i) {
      const int64_t j0 = std::min(16 * i, out_bytes - 16);
      const __m128i* m = reinterpret_cast<const __m128i*>(shuf + 32 * i);
      if (vs[i] >= 0) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + vs[i]));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(d + j0), _mm_shuffle_epi8(x, _mm_loadu_si128(m)));
      } else if (vs[i] <= -2) {
        const __m128i* x = reinterpret_cast<const __m128i*>(s - vs[i] - 2);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(d + j0),
                         _mm_or_si128(_mm_shuffle_epi8(_mm_loadu_si128(x), _mm_loadu_si128(m)),
                                      _mm_shuffle_epi8(_mm_loadu_si128(x + 1), _mm_loadu_si128(m + 1))));
      } else {
        bytes(s, d, j0, j0 + 16);
      }
    }
  }
}

#endif  // RESIZE_AD_AVX2

// The pass over lines / rows [i0, i1) of the work split `form` defines (fixed_point.cpp).
inline void run_range(U8Form form, const U8Axis& A, const uint8_t* src, uint8_t* dst, int64_t inner,
                      int64_t i0, int64_t i1) {
  switch (form) {
    case U8Form::Unit: return unit_lines(A, src, dst, inner, i0, i1);
#if RESIZE_AD_AVX2
    case U8Form::Planar: return planar_lines(A, src, dst, i0, i1);
    case U8Form::Interleaved3: return interleaved_lines<3>(A, src, dst, i0, i1);
    case U8Form::Interleaved4: return interleaved_lines<4>(A, src, dst, i0, i1);
    case U8Form::Rows: return vertical_rows(A, src, dst, inner, i0, i1);
    case U8Form::Shuffle: return shuffle_lines(A, src, dst, i0, i1);
#endif
    default: return generic_rows(A, src, dst, inner, i0, i1);
  }
}
