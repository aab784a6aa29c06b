// The CPU line kernels of the line sweep and the separable passes. resize_cpu.cpp includes this
// file twice through isa_twice.h, inside two namespaces: once for the baseline ISA and once under
// `#pragma GCC target("avx2,fma,f16c")`, and picks one at run time. Hence no include guard and no includes here: everything it uses is included (and so
// compiled for the baseline ISA) before it.
//
// Expects: the Line / Sweep types and scratch() of resize_cpu.cpp, and RESIZE_AD_AVX2 (0 or 1).
//
// Every multiply-add goes through madd(): a fused multiply-add in the AVX2 build (as the
// intrinsics' _mm256_fmadd_ps), a multiply then an add in the baseline build, in vector bodies
// and scalar tails alike. A result therefore does not depend on where a vector block starts,
// i.e. on how the work was split among threads.

template <typename T>
inline T madd(T a, T b, T c) {
#if RESIZE_AD_AVX2
  if constexpr (std::is_same_v<T, float>) {
    return __builtin_fmaf(a, b, c);
  } else {
    return __builtin_fma(a, b, c);
  }
#else
  return a * b + c;
#endif
}

// An element as acc_t (to_acc) and a sum as the output's type (from_acc): static_cast, except
// float16 in the AVX2 build, which converts with F16C's instructions. c10::Half's own
// conversions are compiled here for the baseline ISA, where they are a software routine:
// channels_last bilinear x2 of float16 ran at a sixth of native's speed. The same values: both
// round to nearest, ties to even (a NaN's payload aside).
template <typename acc_t, typename S>
inline acc_t to_acc(S x) {
#if RESIZE_AD_AVX2
  if constexpr (std::is_same_v<S, c10::Half> && std::is_same_v<acc_t, float>) return _cvtsh_ss(x.x);
#endif
  return static_cast<acc_t>(x);
}

template <typename D, typename acc_t>
inline D from_acc(acc_t v) {
#if RESIZE_AD_AVX2
  if constexpr (std::is_same_v<D, c10::Half> && std::is_same_v<acc_t, float>)
    return c10::Half(_cvtss_sh(v, _MM_FROUND_TO_NEAREST_INT), c10::Half::from_bits());
#endif
  return static_cast<D>(v);
}

#if RESIZE_AD_AVX2
// Eight elements as floats, and eight floats stored: float; float16 by F16C's vector conversions
// (rounding as from_acc); bfloat16 as c10::BFloat16 converts (its bits the float's high half;
// rounded to nearest, ties to even, a NaN stored as 0x7FC0).
inline __m256 load8f(const float* p) { return _mm256_loadu_ps(p); }
inline __m256 load8f(const c10::Half* p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
inline __m256 load8f(const c10::BFloat16* p) {
  const __m256i u = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  return _mm256_castsi256_ps(_mm256_slli_epi32(u, 16));
}
inline void store8f(float* p, __m256 v) { _mm256_storeu_ps(p, v); }
inline void store8f(c10::Half* p, __m256 v) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
}
inline void store8f(c10::BFloat16* p, __m256 v) {
  const __m256i u = _mm256_castps_si256(v);
  const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
  __m256i r = _mm256_srli_epi32(_mm256_add_epi32(u, _mm256_add_epi32(odd, _mm256_set1_epi32(0x7FFF))), 16);
  r = _mm256_blendv_epi8(r, _mm256_set1_epi32(0x7FC0), _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q)));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p),
                   _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1)));
}

// The same eight bfloat16 by AVX-512's conversion (cpu_has_avx512bf16), which rounds as c10
// does (to nearest, ties to even; every finite normal float measured equal) but turns a denormal
// to 0 and keeps a NaN's sign and payload: a block with either takes store8f.
#define RESIZE_AD_AVX512BF16 __attribute__((target("avx512f,avx512vl,avx512dq,avx512bf16,avx2,fma,f16c")))
#define RESIZE_AD_INLINE __attribute__((always_inline)) inline
#ifndef RESIZE_AD_AVX512
#define RESIZE_AD_AVX512 __attribute__((target("avx512f,avx2,fma,f16c")))
#define RESIZE_AD_AVX512VL __attribute__((target("avx512f,avx512vl,avx512dq,avx2,fma,f16c")))
#endif
RESIZE_AD_AVX512BF16 inline void store8f_bf16(c10::BFloat16* p, __m256 v) {
  if (__builtin_expect(_mm256_fpclass_ps_mask(v, 0xA1) != 0, 0)) return store8f(p, v);  // NaN, denormal
  const __m128bh r = _mm256_cvtneps_pbh(v);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), reinterpret_cast<const __m128i&>(r));
}

// The vector loops of convert_rows and blend_rows, eight elements at a time from j on; BF16:
// stores by store8f_bf16, for the callers built for it (bf16_convert8, bf16_blend8, which
// flatten it all into their own bodies). Each returns the first element it did not store.
template <bool BF16, typename S, typename D>
RESIZE_AD_INLINE int64_t convert8(const S* __restrict s, D* __restrict d, int64_t j, int64_t n) {
  for (; j + 8 <= n; j += 8) {
    if constexpr (BF16) {
      store8f_bf16(d + j, load8f(s + j));
    } else {
      store8f(d + j, load8f(s + j));
    }
  }
  return j;
}
template <bool BF16, int T, typename S, typename D>
RESIZE_AD_INLINE int64_t blend8(const S* __restrict a, const S* __restrict b, const S* __restrict c,
                                const S* __restrict e, float w0, float w1, float w2, float w3,
                                D* __restrict d, int64_t j, int64_t j1) {
  const __m256 v0 = _mm256_set1_ps(w0), v1 = _mm256_set1_ps(w1);
  const __m256 v2 = _mm256_set1_ps(w2), v3 = _mm256_set1_ps(w3);
  auto sum = [&](int64_t i) {
    __m256 v = _mm256_fmadd_ps(v1, load8f(b + i), _mm256_mul_ps(v0, load8f(a + i)));
    if constexpr (T > 2) v = _mm256_fmadd_ps(v2, load8f(c + i), v);
    if constexpr (T > 3) v = _mm256_fmadd_ps(v3, load8f(e + i), v);
    return v;
  };
  auto put = [&](int64_t i, __m256 v) {
    if constexpr (BF16) {
      store8f_bf16(d + i, v);
    } else {
      store8f(d + i, v);
    }
  };
  // Four vectors' loads before their stores: a row loaded right after a store to the same
  // offset modulo 4 KiB (a ring slot and the output line) waits for it, one vector at a time.
  // Two 512-float slots into an L2-sized output took 0.6-0.9 ns per vector so, 0.8-1.5 ns one
  // at a time (the offset between them varied); plane and RGB bilinear 224² -> 256² 1.03x and
  // 1.08x faster, channels_last RGBA and 16 channels 0.99x (1 thread, an AMD EPYC with AVX2).
  for (; j + 32 <= j1; j += 32) {
    const __m256 s0 = sum(j), s1 = sum(j + 8), s2 = sum(j + 16), s3 = sum(j + 24);
    put(j, s0), put(j + 8, s1), put(j + 16, s2), put(j + 24, s3);
  }
  for (; j + 8 <= j1; j += 8) put(j, sum(j));
  return j;
}
RESIZE_AD_AVX512BF16 __attribute__((flatten)) inline int64_t bf16_convert8(const float* s, c10::BFloat16* d, int64_t n) {
  return convert8<true>(s, d, 0, n);
}
template <int T, typename S>
RESIZE_AD_AVX512BF16 __attribute__((flatten)) int64_t bf16_blend8(const S* a, const S* b, const S* c, const S* e, float w0, float w1,
                                         float w2, float w3, c10::BFloat16* d, int64_t j, int64_t j1) {
  return blend8<true, T>(a, b, c, e, w0, w1, w2, w3, d, j, j1);
}
#endif

// Whether rows of S in and D out take the explicit vector loops of blend_rows and convert_rows:
// a half type (float16, bfloat16) on either side, float or the same half type on the other,
// float sums. The compiler does not vectorise F16C's conversions, nor these loops' bfloat16
// ones as well.
template <typename S, typename D, typename acc_t>
constexpr bool half_rows() {
  constexpr bool s_half = std::is_same_v<S, c10::Half> || std::is_same_v<S, c10::BFloat16>;
  constexpr bool d_half = std::is_same_v<D, c10::Half> || std::is_same_v<D, c10::BFloat16>;
  return RESIZE_AD_AVX2 && std::is_same_v<acc_t, float> && (s_half || d_half) &&
         (std::is_same_v<S, float> || std::is_same_v<D, float> || std::is_same_v<S, D>);
}

// d[j] = madd(w3, e[j], madd(w2, c[j], madd(w1, b[j], w0 * a[j]))) for j in [j0, j1), the
// first T = 2 to 4 terms: the blend of T rows in blend's order.
template <int T, typename S, typename D, typename acc_t>
inline void blend_rows(const S* __restrict a, const S* __restrict b, const S* __restrict c, const S* __restrict e,
                       acc_t w0, acc_t w1, acc_t w2, acc_t w3, D* __restrict d, int64_t j0, int64_t j1) {
  int64_t j = j0;
#if RESIZE_AD_AVX2
  if constexpr (half_rows<S, D, acc_t>() && std::is_same_v<D, c10::BFloat16>) {
    if (cpu_has_avx512bf16()) j = bf16_blend8<T>(a, b, c, e, w0, w1, w2, w3, d, j, j1);
  }
  if constexpr (half_rows<S, D, acc_t>() || (std::is_same_v<S, float> && std::is_same_v<D, float> &&
                                             std::is_same_v<acc_t, float>)) {
    j = blend8<false, T>(a, b, c, e, w0, w1, w2, w3, d, j, j1);
  }
#endif
  for (; j < j1; ++j) {
    acc_t v = madd(w1, to_acc<acc_t>(b[j]), w0 * to_acc<acc_t>(a[j]));
    if constexpr (T > 2) v = madd(w2, to_acc<acc_t>(c[j]), v);
    if constexpr (T > 3) v = madd(w3, to_acc<acc_t>(e[j]), v);
    d[j] = from_acc<D>(v);
  }
}

// d[j] = s[j] converted from S to D (through acc_t) for j in [0, n).
template <typename S, typename D, typename acc_t>
inline void convert_rows(const S* __restrict s, D* __restrict d, int64_t n) {
  int64_t j = 0;
#if RESIZE_AD_AVX2
  if constexpr (half_rows<S, D, acc_t>() && std::is_same_v<S, float> && std::is_same_v<D, c10::BFloat16>) {
    if (cpu_has_avx512bf16()) j = bf16_convert8(s, d, n);
  }
  if constexpr (half_rows<S, D, acc_t>()) j = convert8<false>(s, d, j, n);
#endif
  for (; j < n; ++j) d[j] = from_acc<D>(to_acc<acc_t>(s[j]));
}

// acc[j] = w * s[j] (scale_row) and acc[j] = madd(w, s[j], acc[j]) (madd_row) for j in [0, n):
// the terms of a blend of many rows, a half type's rows through the vector conversions.
template <typename S, typename acc_t>
inline void scale_row(acc_t* __restrict acc, const S* __restrict s, acc_t w, int64_t n) {
  int64_t j = 0;
#if RESIZE_AD_AVX2
  if constexpr (half_rows<S, acc_t, acc_t>() && !std::is_same_v<S, acc_t>) {
    const __m256 v = _mm256_set1_ps(w);
    for (; j + 8 <= n; j += 8) _mm256_storeu_ps(acc + j, _mm256_mul_ps(v, load8f(s + j)));
  }
#endif
  for (; j < n; ++j) acc[j] = w * to_acc<acc_t>(s[j]);
}
template <typename S, typename acc_t>
inline void madd_row(acc_t* __restrict acc, const S* __restrict s, acc_t w, int64_t n) {
  int64_t j = 0;
#if RESIZE_AD_AVX2
  if constexpr (half_rows<S, acc_t, acc_t>() && !std::is_same_v<S, acc_t>) {
    const __m256 v = _mm256_set1_ps(w);
    for (; j + 8 <= n; j += 8)
      _mm256_storeu_ps(acc + j, _mm256_fmadd_ps(v, load8f(s + j), _mm256_loadu_ps(acc + j)));
  }
#endif
  for (; j < n; ++j) acc[j] = madd(w, to_acc<acc_t>(s[j]), acc[j]);
}

#if RESIZE_AD_AVX2
// blend_rows' sums of float rows, sixteen at a time in 512-bit vectors (AVX-512), from 0 on;
// returns the first it did not store. The ring's blends of channels_last RGBA bilinear 224² ->
// 256² measured 1.06x faster so (1 thread, an EPYC).
template <int T>
RESIZE_AD_AVX512 __attribute__((noinline)) int64_t blend16(const float* __restrict a, const float* __restrict b,
                                                          const float* __restrict c, const float* __restrict e, float w0,
                                                          float w1, float w2, float w3, float* __restrict d, int64_t n) {
  const __m512 v0 = _mm512_set1_ps(w0), v1 = _mm512_set1_ps(w1), v2 = _mm512_set1_ps(w2), v3 = _mm512_set1_ps(w3);
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    __m512 v = _mm512_fmadd_ps(v1, _mm512_loadu_ps(b + j), _mm512_mul_ps(v0, _mm512_loadu_ps(a + j)));
    if constexpr (T > 2) v = _mm512_fmadd_ps(v2, _mm512_loadu_ps(c + j), v);
    if constexpr (T > 3) v = _mm512_fmadd_ps(v3, _mm512_loadu_ps(e + j), v);
    _mm512_storeu_ps(d + j, v);
  }
  return j;
}
#endif

#if RESIZE_AD_AVX2
// blend's sums of T > 4 lines (antialiased and area downscales, backward tables), 64 at a time
// in eight registers: per tap eight loads and multiply-adds, one store per output at the end,
// where a buffer of sums (scale_row, madd_row) loads and stores each sum once per tap; the same
// operations in the same order, float16 and bfloat16 read by load8f and stored through
// convert_rows, as blend stores its buffer. Antialiased bilinear and bicubic 1024² -> 224²
// (NCHW, 3 planes) and bilinear 16 x 3 x 512² -> 224² measured 1.17x-1.36x faster so in
// float, 1.29x-2.42x in float16 and bfloat16, 1 and 2 threads (an AMD EPYC with AVX2).
// Returns the first output it did not store.
template <typename S, typename D>
inline int64_t blend_many(const S* src, const int64_t* off, const float* w, int64_t T, D* out, int64_t n) {
  float sums[64];  // D not float: the sums before convert_rows
  auto put = [&](int64_t j, int k, __m256 v) {
    if constexpr (std::is_same_v<D, float>) {
      _mm256_storeu_ps(out + j + 8 * k, v);
    } else {
      _mm256_storeu_ps(sums + 8 * k, v);
    }
  };
  int64_t j = 0;
  for (; j + 64 <= n; j += 64) {
    __m256 acc[8];
    const __m256 w0 = _mm256_set1_ps(w[0]);
    for (int k = 0; k < 8; ++k) acc[k] = _mm256_mul_ps(w0, load8f(src + off[0] + j + 8 * k));
    for (int64_t t = 1; t < T; ++t) {
      const S* s = src + off[t] + j;
      const __m256 wt = _mm256_set1_ps(w[t]);
      for (int k = 0; k < 8; ++k) acc[k] = _mm256_fmadd_ps(wt, load8f(s + 8 * k), acc[k]);
    }
    for (int k = 0; k < 8; ++k) put(j, k, acc[k]);
    if constexpr (!std::is_same_v<D, float>) convert_rows<float, D, float>(sums, out + j, 64);
  }
  for (; j + 8 <= n; j += 8) {
    __m256 acc = _mm256_mul_ps(_mm256_set1_ps(w[0]), load8f(src + off[0] + j));
    for (int64_t t = 1; t < T; ++t) acc = _mm256_fmadd_ps(_mm256_set1_ps(w[t]), load8f(src + off[t] + j), acc);
    put(j, 0, acc);
    if constexpr (!std::is_same_v<D, float>) convert_rows<float, D, float>(sums, out + j, 8);
  }
  return j;
}
#endif

// out[j] = sum_t w[t] * src[off[t] + j] for j in [0, n): the blend of T input lines.
// nt (Sweep::stream_rows): float lines of 2 to 4 taps store out's whole cache lines
// non-temporally (AVX2 build), the same sums in the same order.
template <typename S, typename D, typename acc_t>
void blend(const S* src, const int64_t* off, const acc_t* w, int64_t T, D* out, int64_t n,
           bool nt = false) {
  constexpr int64_t B = 256;
  if (T == 1 && w[0] == acc_t(1)) {
    const S* __restrict s = src + off[0];
    D* __restrict d = out;
    if constexpr (std::is_same_v<S, D>) {
      std::memcpy(d, s, n * sizeof(D));
    } else {
      convert_rows<S, D, acc_t>(s, d, n);
    }
    return;
  }
  if (T >= 2 && T <= 4) {  // one sweep, the taps in registers (same order as below)
    const S* __restrict a = src + off[0];
    const S* __restrict b = src + off[1];
    const S* __restrict c = src + off[T > 2 ? 2 : 1];
    const S* __restrict e = src + off[T > 3 ? 3 : 1];
    D* __restrict d = out;
    const acc_t w0 = w[0], w1 = w[1], w2 = T > 2 ? w[2] : acc_t(0), w3 = T > 3 ? w[3] : acc_t(0);
    // The ranges the loops below sum: all of [0, n), or the two ends of a streamed middle.
    int64_t lo[2] = {0, n}, hi[2] = {n, n};
#if RESIZE_AD_AVX2
    if constexpr (std::is_same_v<S, float> && std::is_same_v<D, float> && std::is_same_v<acc_t, float>) {
      const int64_t head = std::min<int64_t>(n, ((64 - (reinterpret_cast<uintptr_t>(d) & 63)) & 63) / 4);
      const int64_t end = head + (n - head) / 16 * 16;
      if (nt && end > head) {
        const __m256 v0 = _mm256_set1_ps(w0), v1 = _mm256_set1_ps(w1);
        const __m256 v2 = _mm256_set1_ps(w2), v3 = _mm256_set1_ps(w3);
        for (int64_t j = head; j < end; j += 8) {
          __m256 v = _mm256_fmadd_ps(v1, _mm256_loadu_ps(b + j), _mm256_mul_ps(v0, _mm256_loadu_ps(a + j)));
          if (T > 2) v = _mm256_fmadd_ps(v2, _mm256_loadu_ps(c + j), v);
          if (T > 3) v = _mm256_fmadd_ps(v3, _mm256_loadu_ps(e + j), v);
          _mm256_stream_ps(d + j, v);
        }
        hi[0] = head, lo[1] = end;
      } else if (cpu_has_avx512()) {  // sixteen floats a step
        lo[0] = T == 2 ? blend16<2>(a, b, c, e, w0, w1, w2, w3, d, n)
                       : T == 3 ? blend16<3>(a, b, c, e, w0, w1, w2, w3, d, n) : blend16<4>(a, b, c, e, w0, w1, w2, w3, d, n);
      }
    }
#endif
    for (int r = 0; r < 2; ++r) {
      const int64_t j0 = lo[r], j1 = hi[r];
      if (T == 2) {
        blend_rows<2>(a, b, c, e, w0, w1, w2, w3, d, j0, j1);
      } else if (T == 3) {
        blend_rows<3>(a, b, c, e, w0, w1, w2, w3, d, j0, j1);
      } else {
        blend_rows<4>(a, b, c, e, w0, w1, w2, w3, d, j0, j1);
      }
    }
    return;
  }
  int64_t j = 0;
#if RESIZE_AD_AVX2
  if constexpr (std::is_same_v<acc_t, float> &&
                ((std::is_same_v<S, float> && std::is_same_v<D, float>) || half_rows<S, D, acc_t>())) {
    j = blend_many(src, off, w, T, out, n);
  }
#endif
  acc_t acc[B];
  for (int64_t j0 = j; j0 < n; j0 += B) {
    const int64_t m = std::min(B, n - j0);
    scale_row(acc, src + off[0] + j0, w[0], m);
    for (int64_t t = 1; t < T; ++t) madd_row(acc, src + off[t] + j0, w[t], m);
    convert_rows<acc_t, D, acc_t>(acc, out + j0, m);
  }
}

#if RESIZE_AD_AVX2
// The positions of block b's taps relative to L.blk_pos[b] (Line::blk_rel), tap j in rel[j].
template <int KT, typename acc_t>
inline void plan_rel(const Line<acc_t>& L, int64_t b, __m256i* rel) {
  const uint8_t* r = L.blk_rel.data() + b * KT * 8;
  for (int j = 0; j < KT; ++j)
    rel[j] = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(r + j * 8)));
}

// row[base + rel[i]] for the eight lanes i, from v[l] = row[base + 8 l .. base + 8 l + 8).
// Z (callers compiled for AVX-512VL: planned_run512): NL = 2 and 4 by one two-source permute
// of 16 or 32 floats, in place of NL permutes and NL - 1 blends and compares. Plane downscales,
// 1 thread, the AMD EPYC (Zen 4): bilinear 600 x 800 -> 224 x 224 1.13x and 1000 -> 400 1.18x
// faster.
RESIZE_AD_AVX512VL inline __m256 pick16(const __m256* v, __m256i rel) {
  return _mm256_permutex2var_ps(v[0], rel, v[1]);
}
RESIZE_AD_AVX512VL inline __m256 pick32(const __m256* v, __m256i rel) {
  const __m512 a = _mm512_insertf32x8(_mm512_castps256_ps512(v[0]), v[1], 1);
  const __m512 c = _mm512_insertf32x8(_mm512_castps256_ps512(v[2]), v[3], 1);
  return _mm512_castps512_ps256(_mm512_permutex2var_ps(a, _mm512_zextsi256_si512(rel), c));
}
template <int NL, bool Z = false>
inline __m256 pick(const __m256* v, __m256i rel) {
  if constexpr (Z && NL == 2) return pick16(v, rel);
  if constexpr (Z && NL == 4) return pick32(v, rel);
  __m256 r = _mm256_permutevar8x32_ps(v[0], rel);  // the permute reads rel's low three bits
  for (int l = 1; l < NL; ++l) {
    const __m256 m = _mm256_castsi256_ps(_mm256_cmpgt_epi32(rel, _mm256_set1_epi32(8 * l - 1)));
    r = _mm256_blendv_ps(r, _mm256_permutevar8x32_ps(v[l], rel), m);
  }
  return r;
}

// row[p + rel[i]] for the eight lanes i, from NL eight-float loads at p.
template <int NL>
inline __m256 load_pick(const float* p, __m256i rel) {
  __m256 v[NL];
  for (int l = 0; l < NL; ++l) v[l] = _mm256_loadu_ps(p + 8 * l);
  return pick<NL>(v, rel);
}

// pick, and 0 in the lanes whose rel is past the loads (kPadRel: the zero slot's padding taps),
// where PAD: a padding tap adds weight 0 times 0, as the gather from the zero slot does.
template <int NL, bool PAD, bool Z = false>
inline __m256 pick_padded(const __m256* v, __m256i rel) {
  const __m256 r = pick<NL, Z>(v, rel);
  if constexpr (!PAD) return r;
  const __m256 past = _mm256_castsi256_ps(_mm256_cmpgt_epi32(rel, _mm256_set1_epi32(8 * NL - 1)));
  return _mm256_andnot_ps(past, r);
}

// The two taps' weights of a Line::lerp line from the second's at p: loaded once (the compiler
// would load them again for the second use), the first computed as 1 minus them.
inline void lerp_weights(const float* p, __m256& w0, __m256& w1) {
  w1 = _mm256_loadu_ps(p);
  __asm__("" : "+x"(w1));
  w0 = _mm256_sub_ps(_mm256_set1_ps(1.0f), w1);
}

// Eight outputs from their taps' NL loads v (picked_sum: loaded from row + base): the sum of
// gather_line, in its order. LERP (KT = 2, Line::lerp): the first tap's weights computed as 1
// minus the second's, one load fewer in loops bound by their loads.
template <int KT, int NL, bool PAD, bool Z = false, bool LERP = false>
inline __m256 picked_sum_of(const __m256* v, const __m256i* rel, const float* wt, int64_t n) {
  if constexpr (LERP) {
    static_assert(KT == 2, "lerp lines have two taps");
    __m256 w0, w1;
    lerp_weights(wt + n, w0, w1);
    const __m256 acc = _mm256_mul_ps(w0, pick_padded<NL, PAD, Z>(v, rel[0]));
    return _mm256_fmadd_ps(w1, pick_padded<NL, PAD, Z>(v, rel[1]), acc);
  }
  __m256 acc = _mm256_mul_ps(_mm256_loadu_ps(wt), pick_padded<NL, PAD, Z>(v, rel[0]));
  for (int j = 1; j < KT; ++j)
    acc = _mm256_fmadd_ps(_mm256_loadu_ps(wt + j * n), pick_padded<NL, PAD, Z>(v, rel[j]), acc);
  return acc;
}
template <int KT, int NL, bool PAD, bool Z = false, bool LERP = false>
inline __m256 picked_sum(const float* row, int32_t base, const __m256i* rel, const float* wt, int64_t n) {
  __m256 v[NL];
  for (int l = 0; l < NL; ++l) v[l] = _mm256_loadu_ps(row + base + 8 * l);
  return picked_sum_of<KT, NL, PAD, Z, LERP>(v, rel, wt, n);
}

// Eight outputs from their taps' NL loads, for a number of taps K known at run time: the sum of
// gather_line, in its order. picked_sum's twin, kept apart: one template for both, loading each
// tap's positions in the loop, measured 0.87x-0.96x on the lines of at most four taps (bicubic
// odd sizes and downscales by three, 1 thread) against picked_sum's positions loaded first.
template <int NL, bool PAD, bool Z = false>
inline __m256 picked_sum_k(const float* row, int32_t base, const uint8_t* r, const float* wt, int64_t n,
                           int64_t K) {
  __m256 v[NL];
  for (int l = 0; l < NL; ++l) v[l] = _mm256_loadu_ps(row + base + 8 * l);
  auto rel = [&](int64_t j) {
    return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(r + j * 8)));
  };
  __m256 acc = _mm256_mul_ps(_mm256_loadu_ps(wt), pick_padded<NL, PAD, Z>(v, rel(0)));
  for (int64_t j = 1; j < K; ++j)
    acc = _mm256_fmadd_ps(_mm256_loadu_ps(wt + j * n), pick_padded<NL, PAD, Z>(v, rel(j)), acc);
  return acc;
}

// The lanes of tap t of a kRows block whose taps are the zero slot's padding (rel kPadRel), all
// ones: a kRows block's rels are 0 or kPadRel, which sign-extends to -1.
inline __m256 pad_lanes(const uint8_t* r, int64_t t) {
  return _mm256_castsi256_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(r + t * 8))));
}

// The pairs of floats from p + first[i], p + first[k] (the low half) and p + first[i2],
// p + first[k2] (the high half), each one 64-bit load: a two-tap kRows block's taps, the even
// floats of pairs4(.., 0, 1, 4, 5) and pairs4(.., 2, 3, 6, 7) tap 0 and the odd ones tap 1.
inline __m256 pairs4(const float* p, const int32_t* first, int i, int k, int i2, int k2) {
  auto half = [&](int u, int v) {
    const __m128 a = _mm_castpd_ps(_mm_load_sd(reinterpret_cast<const double*>(p + first[u])));
    return _mm_loadh_pi(a, reinterpret_cast<const __m64*>(p + first[v]));
  };
  return _mm256_insertf128_ps(_mm256_castps128_ps256(half(i, k)), half(i2, k2), 1);
}

// Eight outputs of a two-tap kRows block from its pairs a = pairs4(.., 0, 1, 4, 5) and
// c = pairs4(.., 2, 3, 6, 7): rows_sum's sum, the lanes of padding taps (PAD) 0.
template <bool PAD>
inline __m256 pairs_sum(__m256 a, __m256 c, const uint8_t* r, const float* wt, int64_t n) {
  __m256 t0 = _mm256_shuffle_ps(a, c, _MM_SHUFFLE(2, 0, 2, 0)), t1 = _mm256_shuffle_ps(a, c, _MM_SHUFFLE(3, 1, 3, 1));
  if constexpr (PAD) t0 = _mm256_andnot_ps(pad_lanes(r, 0), t0), t1 = _mm256_andnot_ps(pad_lanes(r, 1), t1);
  return _mm256_fmadd_ps(_mm256_loadu_ps(wt + n), t1, _mm256_mul_ps(_mm256_loadu_ps(wt), t0));
}

// Eight outputs of a kRows block: output i's taps are the floats from first[i] on, four at a
// time (taps 4 m .. 4 m + 3 from first[i] + 4 m) as four pixel rows transposed into four tap
// vectors (the taps past K unused); PAD: the lanes whose rel is kPadRel (the zero slot's
// padding taps) read 0, as gather_line's gathers mask them. The sum of gather_line, in its
// order. KT: the count of taps, 2 to 4, or 0 for K > 4 known at run time, which measured
// (an AMD EPYC with AVX2, 1 thread) against gathers: antialiased bilinear and bicubic 1024² ->
// 224² (NCHW) 1.73x-1.77x faster forward, 1.37x forward and backward; against the four loads'
// picks, lanczos 512² -> 224² 1.5x and antialiased bilinear 1.18x (16 x 3 x 512² -> 224²:
// 1.06x with 1 thread, 1.17x with 2).
template <int KT, bool PAD>
inline __m256 rows_sum(const float* row, const int32_t* __restrict first, const uint8_t* r, const float* wt,
                       int64_t n, int64_t K) {
  static_assert(KT == 0 || (KT >= 2 && KT <= 4), "kRows blocks have two or more taps");
  if constexpr (KT > 0) K = KT;
  auto padded = [&](__m256 x, int64_t t) { return PAD ? _mm256_andnot_ps(pad_lanes(r, t), x) : x; };
  if constexpr (KT == 2) {
    // Two taps: each output's pair of floats one 64-bit load, four pairs to a 128-bit half, the
    // taps the even and the odd floats (eight loads and four shuffles, where four floats per
    // output took eight loads, eight inserts and four shuffles).
    return pairs_sum<PAD>(pairs4(row, first, 0, 1, 4, 5), pairs4(row, first, 2, 3, 6, 7), r, wt, n);
  }
  __m256 acc = _mm256_setzero_ps();
  for (int64_t m = 0; m < K; m += 4) {
    __m256 a[4];
    for (int i = 0; i < 4; ++i) a[i] = _mm256_loadu2_m128(row + first[i + 4] + m, row + first[i] + m);
    const __m256 t0 = _mm256_unpacklo_ps(a[0], a[1]), t1 = _mm256_unpackhi_ps(a[0], a[1]);
    const __m256 t2 = _mm256_unpacklo_ps(a[2], a[3]), t3 = _mm256_unpackhi_ps(a[2], a[3]);
    const __m256 tap[4] = {_mm256_shuffle_ps(t0, t2, 0x44), _mm256_shuffle_ps(t0, t2, 0xEE),
                           _mm256_shuffle_ps(t1, t3, 0x44), _mm256_shuffle_ps(t1, t3, 0xEE)};
    for (int j = 0; j < 4 && m + j < K; ++j) {
      const int64_t t = m + j;
      const __m256 x = padded(tap[j], t);
      const __m256 w = _mm256_loadu_ps(wt + t * n);
      acc = t == 0 ? _mm256_mul_ps(w, x) : _mm256_fmadd_ps(w, x, acc);
    }
  }
  return acc;
}

// The even (ODD: odd) floats of the sixteen in a, c: a tap of a kStride2 block.
template <bool ODD = false>
inline __m256 every_second(__m256 a, __m256 c) {
  const __m256 e = ODD ? _mm256_shuffle_ps(a, c, _MM_SHUFFLE(3, 1, 3, 1)) : _mm256_shuffle_ps(a, c, _MM_SHUFFLE(2, 0, 2, 0));
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), _MM_SHUFFLE(3, 1, 2, 0)));
}
inline __m256 even_floats(const float* p) { return every_second(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8)); }

// Planned blocks [b0, b1) of a line, all of NL loads (Line::blk_loads), outputs 8 b0 .. 8 b1:
// one loop per load count, so that nothing but the block's own loads and permutes runs per
// block. KT > 0 fixes the number of taps at compile time; KT == 0 reads K.
template <int KT, int NL, bool PAD, bool Z = false, bool LERP = false>
inline void planned_run(const float* row, const int32_t* __restrict pos, const uint8_t* __restrict rels,
                        const float* __restrict wt, int64_t n, int64_t K, int64_t b0, int64_t b1,
                        float* out, int64_t step = 1) {
  for (int64_t b = b0; b < b1; ++b) {
    const uint8_t* r = rels + b * K * 8;
    const float* w = wt + 8 * b;
    if constexpr (NL == kStride2) {  // no padding taps in such a block
      const float* p = row + pos[b];
      __m256 acc = _mm256_mul_ps(_mm256_loadu_ps(w), even_floats(p + r[0]));
      for (int64_t j = 1; j < (KT > 0 ? KT : K); ++j)
        acc = _mm256_fmadd_ps(_mm256_loadu_ps(w + j * n), even_floats(p + r[j * 8]), acc);
      _mm256_storeu_ps(out + 8 * b, acc);
    } else if constexpr (NL == kStride2Pairs) {  // taps 2m, 2m + 1 from the same two loads
      const float* p = row + pos[b];
      __m256 a = _mm256_loadu_ps(p + r[0]), c = _mm256_loadu_ps(p + r[0] + 8);
      __m256 acc = _mm256_mul_ps(_mm256_loadu_ps(w), every_second(a, c));
      acc = _mm256_fmadd_ps(_mm256_loadu_ps(w + n), every_second<true>(a, c), acc);
      for (int64_t j = 2; j < (KT > 0 ? KT : K); j += 2) {
        a = _mm256_loadu_ps(p + r[j * 8]);
        c = _mm256_loadu_ps(p + r[j * 8] + 8);
        acc = _mm256_fmadd_ps(_mm256_loadu_ps(w + j * n), every_second(a, c), acc);
        acc = _mm256_fmadd_ps(_mm256_loadu_ps(w + (j + 1) * n), every_second<true>(a, c), acc);
      }
      _mm256_storeu_ps(out + 8 * b, acc);
    } else if constexpr (NL == kShifted) {  // tap j: tap 0's picks, j line steps on
      const float* p = row + pos[b];
      const __m256i rel = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(r)));
      auto tap = [&](int64_t j) { return _mm256_permutevar8x32_ps(_mm256_loadu_ps(p + j * step), rel); };
      __m256 acc;
      if constexpr (LERP) {
        __m256 w0, w1;
        lerp_weights(w + n, w0, w1);
        acc = _mm256_fmadd_ps(w1, tap(1), _mm256_mul_ps(w0, tap(0)));
      } else {
        acc = _mm256_mul_ps(_mm256_loadu_ps(w), tap(0));
        for (int64_t j = 1; j < (KT > 0 ? KT : K); ++j) acc = _mm256_fmadd_ps(_mm256_loadu_ps(w + j * n), tap(j), acc);
      }
      _mm256_storeu_ps(out + 8 * b, acc);
    } else if constexpr (NL == kRows) {  // pos: the line's idx, each output's first tap
      _mm256_storeu_ps(out + 8 * b, rows_sum<KT, PAD>(row, pos + 8 * b, r, w, n, K));
    } else if constexpr (KT > 0) {
      __m256i rel[KT];
      for (int j = 0; j < KT; ++j)
        rel[j] = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(r + j * 8)));
      _mm256_storeu_ps(out + 8 * b, picked_sum<KT, NL, PAD, Z, LERP>(row, pos[b], rel, w, n));
    } else {
      _mm256_storeu_ps(out + 8 * b, picked_sum_k<NL, PAD, Z>(row, pos[b], r, w, n, K));
    }
  }
}
// planned_run with Z, its picks of NL = 2 and 4 loads by the 512-bit permutes (cpu_has_avx512vl).
template <int KT, int NL, bool PAD, bool LERP = false>
RESIZE_AD_AVX512VL __attribute__((noinline, flatten)) void planned_run512(
    const float* row, const int32_t* pos, const uint8_t* rels, const float* wt, int64_t n, int64_t K,
    int64_t b0, int64_t b1, float* out) {
  planned_run<KT, NL, PAD, true, LERP>(row, pos, rels, wt, n, K, b0, b1, out);
}

template <int KT, bool PAD>
inline void planned_blocks(const float* row, const Line<float>& L, int nl, int64_t b0, int64_t b1,
                           float* out) {
  const int32_t* pos = L.blk_pos.data();
  const uint8_t* rels = L.blk_rel.data();
  const float* wt = L.wt.data();
  if (nl == kShifted) {  // (no padding taps)
    if constexpr (KT == 2) {
      if (L.lerp) return planned_run<2, kShifted, false, false, true>(row, pos, rels, wt, L.out, 2, b0, b1, out, L.step);
    }
    return planned_run<KT, kShifted, false>(row, pos, rels, wt, L.out, L.K, b0, b1, out, L.step);
  }
  if (nl == 1) return planned_run<KT, 1, PAD>(row, pos, rels, wt, L.out, L.K, b0, b1, out);
  if ((nl == 2 || nl == 4) && cpu_has_avx512vl()) {
    // Two-load blocks of lerp lines (upscales, slight downscales) compute the first weight:
    // their loads bound them (RGB bilinear 224² -> 256² 1.09x); of four loads (downscales by
    // more) they measured 0.97x so.
    if constexpr (KT == 2) {
      if (L.lerp && nl == 2) return planned_run512<2, 2, PAD, true>(row, pos, rels, wt, L.out, L.K, b0, b1, out);
    }
    if (nl == 2) return planned_run512<KT, 2, PAD>(row, pos, rels, wt, L.out, L.K, b0, b1, out);
    return planned_run512<KT, 4, PAD>(row, pos, rels, wt, L.out, L.K, b0, b1, out);
  }
  if (nl == 2) return planned_run<KT, 2, PAD>(row, pos, rels, wt, L.out, L.K, b0, b1, out);
  if (nl == kStride2) return planned_run<KT, kStride2, PAD>(row, pos, rels, wt, L.out, L.K, b0, b1, out);
  if (nl == kStride2Pairs) return planned_run<KT, kStride2Pairs, PAD>(row, pos, rels, wt, L.out, L.K, b0, b1, out);
  if constexpr (KT == 0 || (KT >= 2 && KT <= 4)) {  // (kRows blocks: K = 2 to 4 their own KT)
    if (nl == kRows) return planned_run<KT, kRows, PAD>(row, L.idx.data(), rels, wt, L.out, L.K, b0, b1, out);
  }
  planned_run<KT, 4, PAD>(row, pos, rels, wt, L.out, L.K, b0, b1, out);
}
#endif

// Along a line with inner == 1: out[o] = sum_j wt[j][o] * row[idx[j][o]] for o in [o0, o1).
// KT > 0 fixes the number of taps at compile time; KT == 0 reads it from the line. The vector
// body runs over the blocks of eight outputs of the line's load plan (Line::blk_loads): loads
// and permutes where the plan has them (AMD's gathers are slow), gathers elsewhere; the outputs
// before the first block and after the last, one at a time.
template <int KT, typename D, typename acc_t>
void gather_line(const acc_t* row, const Line<acc_t>& L, int64_t o0, int64_t o1, D* out) {
  const int64_t K = KT > 0 ? KT : L.K, n = L.out;
  const int32_t* __restrict idx = L.idx.data();
  const acc_t* __restrict wt = L.wt.data();
  // The zero slot's padding taps (position L.in) read as 0 without a load: the row may be the
  // input line itself, which has no slot past its end.
  const bool pad = L.zero_slot;
  const int32_t slot = static_cast<int32_t>(L.in);
  auto at = [&](int64_t j) {
    const int32_t p = idx[j];
    return pad && p == slot ? acc_t(0) : row[p];
  };
  auto one = [&](int64_t o) {
    acc_t acc = wt[o] * at(o);
    for (int64_t j = 1; j < K; ++j) acc = madd(wt[j * n + o], at(j * n + o), acc);
    out[o] = from_acc<D>(acc);
  };
  int64_t o = o0;
#if RESIZE_AD_AVX2
  if constexpr (std::is_same_v<acc_t, float> && std::is_same_v<D, float>) {
    for (; o < o1 && o % 8 != 0; ++o) one(o);
    // Runs of whole blocks of one load count (Line::blk_loads; 0: gathers), each in its own loop.
    const uint8_t* loads = L.blk_loads.empty() ? nullptr : L.blk_loads.data();
    const int64_t bend = o1 / 8;
    for (int64_t b = o / 8; b < bend;) {
      const int nl = loads != nullptr ? loads[b] : 0;
      const int64_t e = loads != nullptr ? std::min<int64_t>(bend, L.blk_run_end[b]) : bend;
      if (nl != 0) {
        if (L.zero_slot) {
          planned_blocks<KT, true>(row, L, nl, b, e, out);
        } else {
          planned_blocks<KT, false>(row, L, nl, b, e, out);
        }
        b = e;
        continue;
      }
      // Eight taps gathered; the zero slot's lanes masked off (0, as the slot holds).
      auto gather = [&](const int32_t* q) {
        const __m256i ij = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q));
        if (!pad) return _mm256_i32gather_ps(row, ij, 4);
        const __m256i live = _mm256_xor_si256(_mm256_cmpeq_epi32(ij, _mm256_set1_epi32(slot)),
                                              _mm256_set1_epi32(-1));
        return _mm256_mask_i32gather_ps(_mm256_setzero_ps(), row, ij, _mm256_castsi256_ps(live), 4);
      };
      for (; b < e; ++b) {
        const int64_t ob = 8 * b;
        __m256 acc = _mm256_mul_ps(_mm256_loadu_ps(wt + ob), gather(idx + ob));
        for (int64_t j = 1; j < K; ++j)
          acc = _mm256_fmadd_ps(_mm256_loadu_ps(wt + j * n + ob), gather(idx + j * n + ob), acc);
        _mm256_storeu_ps(out + ob, acc);
      }
    }
    o = std::max(o, bend * 8);
  }
#endif
  for (; o < o1; ++o) one(o);
}

// Exact values of the ragged rows in [o0, o1) (see Line::ragged_runs), position p of the line
// being at(p) and, for float lines, the four floats from p quad(p) (an __m128).
template <typename D, typename acc_t, typename At, typename Quad>
void ragged_rows(const Line<acc_t>& L, int64_t o0, int64_t o1, D* out, At at, Quad quad) {
  const auto& runs = L.ragged_runs;
  auto it = o0 == 0 ? runs.begin()
                    : std::lower_bound(runs.begin(), runs.end(), o0,
                                       [](const auto& r, int64_t o) { return r.o + r.width <= o; });
  for (; it != runs.end() && it->o < o1; ++it) {
    const int64_t o = it->o, n = it->len, s = it->start;
    const acc_t* wo = L.ragged_w.data() + (it - runs.begin()) * L.K;
#if RESIZE_AD_AVX2
    // An RGBA pixel: the same sums, a 128-bit multiply-add per tap. Scalar, the three such
    // pixels per line took 6 % of bicubic RGBA 224² -> 256² (1 thread, an EPYC); so, 1.06x
    // faster.
    if constexpr (std::is_same_v<acc_t, float> && std::is_same_v<D, float>) {
      if (it->width == 4 && o >= o0 && o + 4 <= o1) {
        __m128 acc = n > 0 ? _mm_mul_ps(_mm_set1_ps(wo[0]), quad(s)) : _mm_setzero_ps();
        for (int64_t j = 1; j < n; ++j) acc = _mm_fmadd_ps(_mm_set1_ps(wo[j]), quad(s + 4 * j), acc);
        _mm_storeu_ps(out + o, acc);
        continue;
      }
    }
#endif
    for (int64_t c = std::max<int64_t>(0, o0 - o); c < it->width && o + c < o1; ++c) {
      acc_t acc = n > 0 ? wo[0] * at(s + c) : acc_t(0);
      for (int64_t j = 1; j < n; ++j) acc = madd(wo[j], at(s + c + j * L.step), acc);
      out[o + c] = from_acc<D>(acc);
    }
  }
}

// ragged_rows of the line row.
template <typename D, typename acc_t>
void fix_ragged(const acc_t* row, const Line<acc_t>& L, int64_t o0, int64_t o1, D* out) {
#if RESIZE_AD_AVX2
  auto quad = [&](auto p) { return _mm_loadu_ps(row + p); };
#else
  auto quad = [](auto) { return 0; };  // not called: the baseline build has no vector branch
#endif
  ragged_rows(L, o0, o1, out, [&](int64_t p) { return row[p]; }, quad);
}

#if RESIZE_AD_AVX2
// A folded line of C = 3 or 4 channels (Line::step == C), two pixels at a time: each tap of a
// pixel is one 128-bit load of its C channels (and, for C = 3, the next pixel's first, whose
// lane is dropped), the pair's taps in the two halves of a vector. The sums of gather_line, in
// its order. Outputs [o0, o1) from the first whole pixel on; returns where it stopped (the
// caller finishes the rest): before a pixel whose taps' loads would leave the line
// (Line::pairs_end).
// The loop of pixel_pairs, each tap's pixel (C floats and, for C = 3, one more) from pixel(p).
// RGBA with two taps one pixel apart (bilinear, area, halvings): both taps of a pixel are the
// eight floats span(p) from the first, so a pair whose spans lie inside the line
// (Line::span_pairs) takes its taps from two spans, half the loads (and, blended, half the
// blends) of one per tap and pixel; so does RGB with two or four taps (each six floats of a
// span's two pixels put in place by three permutes), whose sums then come out in the lanes
// they are stored from; a ragged pixel's padding tap (two taps) is masked to 0 there, as
// pixel() reads it.
// The lanes a span pair of four taps keeps of its taps 1-3 (m[C - 3][4 a + b][j - 1]: pixel i
// with its last a taps the zero slot's padding, its C lanes from 0; pixel i + 1 with b, the
// lanes from C): all ones, else 0 where the tap is padding, so that it adds 0 times 0 as the
// masked pixel loads do.
struct PadKeep {
  alignas(32) int32_t m[2][16][3][8];
};
constexpr PadKeep pad_keep() {
  PadKeep k{};
  for (int c = 0; c < 2; ++c)
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b)
        for (int j = 1; j < 4; ++j)
          for (int l = 0; l < 8; ++l) k.m[c][4 * a + b][j - 1][l] = j < 4 - (l < 3 + c ? a : b) ? -1 : 0;
  return k;
}
constexpr PadKeep kPadKeep = pad_keep();

template <int C, int KT, typename Pixel, typename Span>
RESIZE_AD_INLINE int64_t pairs_of(const Line<float>& L, int64_t o0, int64_t o1, float* out, Pixel pixel, Span span) {
  const int64_t K = KT > 0 ? KT : L.K, n = L.out;
  const int32_t* __restrict idx = L.idx.data();
  const float* __restrict wt = L.wt.data();
  if (o0 % C != 0) return o0;  // a segment starting inside a pixel: left to the caller whole
  int64_t o = o0;
  // C = 3: the pair's six sums, packed; lanes 6 and 7 repeat lane 5 (overwritten next).
  const __m256i pack = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 6, 6);
  const __m256i spread = _mm256_setr_epi32(0, 0, 0, 0, 3, 3, 3, 3);
  auto weights = [&](int64_t j) {
    const __m256 w = _mm256_loadu_ps(wt + j * n + o);
    return C == 4 ? w : _mm256_permutevar8x32_ps(w, spread);
  };
  constexpr bool kSpans = KT == 2 || KT == 4;
  // C = 3 spans: a span's first pixel to lanes 3-5, its second to lanes 0-2 and to 3-5.
  const __m256i first_hi = _mm256_setr_epi32(0, 1, 2, 0, 1, 2, 0, 0);
  const __m256i second_lo = _mm256_setr_epi32(3, 4, 5, 3, 3, 3, 3, 3);
  const __m256i second_hi = _mm256_setr_epi32(3, 3, 3, 3, 4, 5, 3, 3);
  // Two taps of both pixels of a C = 3 pair from their spans x and y: the first tap's to u, the
  // second's to v.
  auto lanes = [&](__m256 x, __m256 y, __m256& u, __m256& v) {
    u = _mm256_blend_ps(x, _mm256_permutevar8x32_ps(y, first_hi), 0x38);
    v = _mm256_blend_ps(_mm256_permutevar8x32_ps(x, second_lo), _mm256_permutevar8x32_ps(y, second_hi), 0x38);
  };
  // Spans of two taps whose second tap of a pixel is the zero slot's padding (Line::span_pairs
  // bits 1 and 2): that pixel's lanes of the second tap's vector set to 0, as its masked load.
  // keep[code]: the lanes kept, for every code (no branch per pair).
  const bool masked = (KT == 2 || KT == 4) && L.zero_slot;
  // Four taps: tap j's lanes (1 to 3) of a pair of code `code` kept where they are no pixel's
  // padding (kPadKeep).
  auto keep4 = [&](__m256 t, uint8_t code, int j) {
    const int32_t* k = kPadKeep.m[C - 3][((code >> 1) & 3) * 4 + ((code >> 3) & 3)][j - 1];
    return _mm256_and_ps(t, _mm256_load_ps(reinterpret_cast<const float*>(k)));
  };
  __m256 keep[8];
  for (int code = 0; masked && KT == 2 && code < 8; ++code) {
    const int lo = code & 2 ? 0 : -1, hi = code & 4 ? 0 : -1;
    keep[code] = _mm256_castsi256_ps(C == 4 ? _mm256_setr_epi32(lo, lo, lo, lo, hi, hi, hi, hi)
                                            : _mm256_setr_epi32(lo, lo, lo, hi, hi, hi, -1, -1));
  }
  // An RGBA span pair's sums, the pixels' first taps at pa and pb; MASK: the second tap's lanes
  // kept as keep[code] says.
  // LERP: the first tap's weights are 1 minus the second's (Line::lerp), computed, not loaded.
  auto rgba_span = [&](auto mask, int32_t pa, int32_t pb, uint8_t code, auto lerp) {
    const __m256 a = span(pa), b = span(pb);
    __m256 w0, w1;
    if constexpr (decltype(lerp)::value) {
      lerp_weights(wt + n + o, w0, w1);  // C = 4: weights(1)'s floats
    } else {
      w0 = weights(0), w1 = weights(1);
    }
    __m256 acc = _mm256_mul_ps(w0, _mm256_permute2f128_ps(a, b, 0x20));
    __m256 t1 = _mm256_permute2f128_ps(a, b, 0x31);
    if constexpr (decltype(mask)::value) t1 = KT == 2 ? _mm256_and_ps(t1, keep[code]) : keep4(t1, code, 1);
    acc = _mm256_fmadd_ps(w1, t1, acc);
    if constexpr (KT == 4) {
      const __m256 c = span(pa + 8), d = span(pb + 8);
      __m256 t2 = _mm256_permute2f128_ps(c, d, 0x20), t3 = _mm256_permute2f128_ps(c, d, 0x31);
      if constexpr (decltype(mask)::value) t2 = keep4(t2, code, 2), t3 = keep4(t3, code, 3);
      acc = _mm256_fmadd_ps(weights(2), t2, acc);
      acc = _mm256_fmadd_ps(weights(3), t3, acc);
    }
    return acc;
  };
  const uint8_t* __restrict span_pairs = L.span_pairs.data();
  const bool steps = !L.step_pairs.empty();
  const uint8_t* __restrict step_pairs = L.step_pairs.data();
  // The pair at pixels i and i + 1 (outputs o .. o + 2 C - 1) as it is stored: C = 3's six sums
  // in lanes 0-5 (lanes 6 and 7 overwritten by the next pair's store).
  int64_t i = o / C;
  auto pair = [&]() __attribute__((always_inline)) -> __m256 {  // inlined: a call per pair ran 2x slower
    // Spans first: an RGB pair with step pairs has no span (resize_cpu.cpp build_line).
    const uint8_t code = kSpans ? span_pairs[i] : 0;
    if (code) {
      if constexpr (C == 3) {  // the pair's six sums in lanes 0-5 as they are stored: no packing
        __m256 u, v;  // two taps of the pair: lanes 0-2 the first pixel's, 3-5 the second's
        lanes(span(idx[o]), span(idx[o + C]), u, v);
        if (masked) v = KT == 2 ? _mm256_and_ps(v, keep[code]) : keep4(v, code, 1);
        __m256 acc = _mm256_mul_ps(_mm256_loadu_ps(wt + o), u);
        acc = _mm256_fmadd_ps(_mm256_loadu_ps(wt + n + o), v, acc);
        if constexpr (KT == 4) {  // taps 2 and 3: the spans six floats on
          lanes(span(idx[o] + 6), span(idx[o + C] + 6), u, v);
          if (masked) u = keep4(u, code, 2), v = keep4(v, code, 3);
          acc = _mm256_fmadd_ps(_mm256_loadu_ps(wt + 2 * n + o), u, acc);
          acc = _mm256_fmadd_ps(_mm256_loadu_ps(wt + 3 * n + o), v, acc);
        }
        return acc;
      }
      return masked ? rgba_span(std::true_type{}, idx[o], idx[o + C], code, std::false_type{})
                    : rgba_span(std::false_type{}, idx[o], idx[o + C], code, std::false_type{});
    }
    __m256 acc = _mm256_setzero_ps();
    if (steps && step_pairs[i]) {  // tap j of both pixels: the eight floats from the first's
      for (int64_t j = 0; j < K; ++j) {
        const __m256 v = span(idx[j * n + o]), w = _mm256_loadu_ps(wt + j * n + o);
        acc = j == 0 ? _mm256_mul_ps(w, v) : _mm256_fmadd_ps(w, v, acc);
      }
      return acc;
    }
    for (int64_t j = 0; j < K; ++j) {
      const __m256 v = _mm256_set_m128(pixel(idx[j * n + o + C]), pixel(idx[j * n + o]));
      acc = j == 0 ? _mm256_mul_ps(weights(j), v) : _mm256_fmadd_ps(weights(j), v, acc);
    }
    return C == 4 ? acc : _mm256_permutevar8x32_ps(acc, pack);
  };
  // 2 * C outputs per pair; C = 3 stores 8 floats, so the loop's pairs leave two outputs after
  // them. Both pixels' loads inside the line: before L.pairs_end.
  const int64_t end = std::min(o1 - (C == 3 ? 2 : 0), L.pairs_end);
  for (; o + 2 * C <= end; o += 2 * C, i += 2) {  // i: the pair's first pixel
    if constexpr (C == 4 && kSpans) {
      // A run of RGBA span pairs without a padding tap (code 1), in a loop without the other
      // kinds' branches: the same sums as the span case below. Span and step pairs mixed, a
      // branch each, ran RGBA bilinear 224² -> 256² 1.14x slower (1 thread, an EPYC). The
      // run reads no code per pair (it ends at Line::span_run_end) and both pixels' first taps
      // in one load: its loads, not its arithmetic, bound it (RGBA bilinear and bicubic
      // 224² <-> 256² and 512² -> 300² 1.09x-1.14x faster so).
      const int32_t* __restrict first = L.span_first.data();
      const int64_t stop = std::min<int64_t>(end, C * int64_t{L.span_run_end[i]});
      auto run = [&](auto lerp) {
        for (; o + 8 <= stop; o += 8, i += 2) {
          uint64_t both;
          std::memcpy(&both, first + i, sizeof(both));
          _mm256_storeu_ps(out + o, rgba_span(std::false_type{}, static_cast<int32_t>(both & 0xffffffffu),
                                              static_cast<int32_t>(both >> 32), 1, lerp));
        }
      };
      if (KT == 2 && L.lerp) run(std::true_type{}); else run(std::false_type{});
      if (o + 8 > end) break;
    }
    _mm256_storeu_ps(out + o, pair());
  }
  // C = 3: a pair ending at o1 or one before (the line's last) stores its six sums alone, here
  // rather than through the caller's scratch.
  if (C == 3 && o + 2 * C <= std::min(o1, L.pairs_end)) {
    const __m256 v = pair();
    _mm_storeu_ps(out + o, _mm256_castps256_ps128(v));
    _mm_storel_pi(reinterpret_cast<__m64*>(out + o + 4), _mm256_extractf128_ps(v, 1));
    o += 2 * C;
  }
  return o;
}

template <int C, int KT>
RESIZE_AD_INLINE int64_t pixel_pairs(const float* row, const Line<float>& L, int64_t o0, int64_t o1, float* out) {
  // A pixel's tap at the zero slot (position L.in, a padding tap of the whole pixel) is 0,
  // without a load: the row may be the input line itself.
  const bool pad = L.zero_slot;
  const int32_t slot = static_cast<int32_t>(L.in);
  return pairs_of<C, KT>(L, o0, o1, out, [&](int32_t p) {
    if (!pad) return _mm_loadu_ps(row + p);
    const bool zero = p == slot;
    return _mm_and_ps(_mm_loadu_ps(row + (zero ? 0 : p)), _mm_castsi128_ps(_mm_set1_epi32(zero ? 0 : -1)));
  }, [&](int32_t p) { return _mm256_loadu_ps(row + p); });
}

// Loads, broadcasts and multiply-adds of W = 4 (__m128) or 8 (__m256) floats, for LinesBlend.
template <int W>
inline auto vload(const float* p) {
  if constexpr (W == 4) return _mm_loadu_ps(p); else return _mm256_loadu_ps(p);
}
template <int W>
inline auto vset1(float w) {
  if constexpr (W == 4) return _mm_set1_ps(w); else return _mm256_set1_ps(w);
}
template <int W>
using vec = decltype(vload<W>(nullptr));
inline __m128 vmul(__m128 a, __m128 b) { return _mm_mul_ps(a, b); }
inline __m256 vmul(__m256 a, __m256 b) { return _mm256_mul_ps(a, b); }
inline __m128 vfmadd(__m128 a, __m128 b, __m128 c) { return _mm_fmadd_ps(a, b, c); }
inline __m256 vfmadd(__m256 a, __m256 b, __m256 c) { return _mm256_fmadd_ps(a, b, c); }

// The blend of T = 2 to 4 input lines (src + off[t], weights tw[t]) at a position, in blend's
// order, as W floats: blended_pairs' pixels (W = 4) and blended_blocks' loads (W = 8). TT > 0:
// T is TT, known to the compiler.
template <int W, int TT = 0>
struct LinesBlend {
  const float* r[4];
  vec<W> w[4];
  int64_t T;
  LinesBlend(const float* src, const int64_t* off, const float* tw, int64_t T_) : T(TT > 0 ? TT : T_) {
    for (int64_t t = 0; t < 4; ++t) {
      r[t] = src + off[t < T ? t : 1];
      w[t] = vset1<W>(t < T ? tw[t] : 0.f);
    }
  }
  vec<W> at(int64_t q) const {
    const int64_t n = TT > 0 ? TT : T;
    vec<W> v = vfmadd(w[1], vload<W>(r[1] + q), vmul(w[0], vload<W>(r[0] + q)));
    if (n > 2) v = vfmadd(w[2], vload<W>(r[2] + q), v);
    if (n > 3) v = vfmadd(w[3], vload<W>(r[3] + q), v);
    return v;
  }
};

// pixel_pairs over the blend of T input lines (src + off[t], weights tw[t]): each tap's pixel is
// blended where it is read, in blend's order, so the values are blend's and gather_sweep's.
// TT input lines, a function of its own (as blended_blocks_run: 1.1x-1.3x on RGB and RGBA
// downscales).
template <int C, int KT, int TT>
inline int64_t blended_pairs_body(const float* src, const int64_t* off, const float* tw,
                                  const Line<float>& L, int64_t o0, int64_t o1, float* out) {
  const bool pad = L.zero_slot;
  const int32_t slot = static_cast<int32_t>(L.in);
  const LinesBlend<4, TT> blended(src, off, tw, TT);
  const LinesBlend<8, TT> blended8(src, off, tw, TT);
  return pairs_of<C, KT>(L, o0, o1, out, [&](int32_t p) {
    const bool zero = pad && p == slot;
    const __m128 v = blended.at(zero ? 0 : p);
    return zero ? _mm_setzero_ps() : v;
  }, [&](int32_t p) { return blended8.at(p); });
}
template <int C, int KT, int TT>
__attribute__((noinline)) int64_t blended_pairs(const float* src, const int64_t* off, const float* tw,
                                                const Line<float>& L, int64_t o0, int64_t o1, float* out) {
  return blended_pairs_body<C, KT, TT>(src, off, tw, L, o0, o1, out);
}

// The first input position (at least lo, at most hi) that outputs [o, o1) of a gathered line
// read: where the rest of a line that a direct kernel stopped short of is blended into scratch.
inline int64_t rest_from(const Line<float>& L, int64_t o, int64_t o1, int64_t lo, int64_t hi) {
  int64_t from = hi;
  for (int64_t q = o; q < o1; ++q)
    if (L.len[q] > 0) from = std::min(from, L.start[q]);
  return std::max(from, lo);
}

// Whether sweep_segment and own_lines resample a downscaled line of one channel per position
// and two taps from the T input lines directly (blended_blocks): each block's loads blended
// where they are read, rather than the whole span blended into scratch and loaded again.
// Halvings (kStride2Pairs blocks: bilinear and area): each input position is then blended
// once, as in blend, but in registers. Lines of pairs (pair_rows: two-tap kRows blocks,
// bilinear downscales by more than two): always, 1 thread, an AMD EPYC with AVX2, one plane
// 600 x 800 -> 224² 1.22x faster, -> 224 x 180 1.28x, 1000² -> 300² 1.18x, 224² -> 64² 1.18x,
// 600 x 800 -> 224 x 352 (by 2.3) 1.01x; an input larger than the caches keep, its next line's
// rows prefetched: 2000 x 3000 -> 500 x 700 1.29x, two RGB 1000² -> 300² 1.05x (2 threads
// 1.20x); lines so wide that make_sweep took the ring before it counted them so (pair_rows)
// measured 1.2x-2x faster blended: three planes 1080 x 1920 -> 224² 1.32x, eight RGB 224² ->
// 28² 1.95x. Lines whose plans mix kinds of blocks (downscales by less than about 2.3): one
// plane 500² -> 400², 450² and 480² 1.16x-1.27x faster, 600 x 800 -> 384² 1.04x-1.12x, 375 x
// 500 -> 256² 2.6x, 2000 x 3000 -> 900 x 1400 1.22x.
inline bool blended_blocks_pay(const Line<float>& L, int64_t T) {
  return L.step == 1 && L.K == 2 && L.in >= L.out && !L.blk_loads.empty() && T >= 2 && T <= 4;
}

// f(std::integral_constant<int, T>{}) for T = 2, 3 or 4 input lines (4: more).
template <typename F>
inline int64_t with_lines(int64_t T, F f) {
  switch (T) {
    case 2: return f(std::integral_constant<int, 2>{});
    case 3: return f(std::integral_constant<int, 3>{});
    default: return f(std::integral_constant<int, 4>{});
  }
}

// f(std::integral_constant<int, T>{}) for T = 1 to 4 leading taps (fuse_pays' range): 1, else
// with_lines' counts.
template <typename F>
inline void with_taps(int64_t T, F f) {
  if (T == 1) return f(std::integral_constant<int, 1>{});
  with_lines(T, [&](auto t) {
    f(t);
    return int64_t{0};
  });
}

// A kStride2Pairs block of two taps from the blend of input lines (lines, LinesBlend<8>): its two
// loads at q blended, the even floats tap 0 and the odd ones tap 1 (weights w, w + n), as
// planned_run sums them.
template <typename Lines>
RESIZE_AD_INLINE __m256 halving_block(const Lines& lines, int64_t q, const float* w, int64_t n) {
  const __m256 a = lines.at(q), c = lines.at(q + 8);
  const __m256 acc = _mm256_mul_ps(_mm256_loadu_ps(w), every_second(a, c));
  return _mm256_fmadd_ps(_mm256_loadu_ps(w + n), every_second<true>(a, c), acc);
}

// The eight floats from float S of the sixteen in x then y (0 < S < 8): one lane permute and one
// in-lane byte shift.
template <int S>
inline __m256 shifted(__m256 x, __m256 y) {
  const __m256i m = _mm256_castps_si256(_mm256_permute2f128_ps(x, y, 0x21));  // floats 4 .. 11
  if constexpr (S == 4) {
    return _mm256_castsi256_ps(m);
  } else if constexpr (S < 4) {
    return _mm256_castsi256_ps(_mm256_alignr_epi8(m, _mm256_castps_si256(x), 4 * S));
  } else {
    return _mm256_castsi256_ps(_mm256_alignr_epi8(_mm256_castps_si256(y), m, 4 * (S - 4)));
  }
}

// A folded RGB line of exact halvings (Line::regular, step 3): output pixel o is
// w0 * pixel 2 o + w1 * pixel 2 o + 1 of the row from L.idx[0], the row's eight floats from
// position q being load(q). Eight pixels at a time, the 24 outputs from the 48 floats q .. q + 47
// of their 16 input pixels: each output vector's floats are those of two vectors
// t = w0 * row[q + a ..] + w1 * row[q + a + 3 ..] (every output's two products added as
// pixel_pairs adds them: the same values), picked by one permute each and blended: at a = 0
// and 6, 14 and 23, 31 and 37 (inside the 48 floats). Twelve loads for 24 outputs, where
// pixel_pairs takes 32; SHIFTED takes six, at q + 8 k, and shifts the other ten vectors out of
// neighbouring pairs of them (shifted: the same floats, so the same values). With a blend of two
// input lines per load, six in place of twelve measured 1.14x faster on 512 x 512 RGB halvings
// and 1.04x-1.32x on 256 x 256 (one thread, an EPYC; on a Xeon 1.3x on 256 x 256 and as fast
// on 512 x 512), but 0.91x-0.93x on 1024 x 1024, read from memory: sweeps of inputs larger than
// the caches keep (Sweep::prefetch) load each pair's taps.
// Outputs [o0, o1) while o0 starts a block and the block's floats lie inside the line; returns
// where it stopped (the caller finishes the rest).
template <bool SHIFTED, typename Load>
inline int64_t rgb_halving_of(const Line<float>& L, int64_t o0, int64_t o1, float* out, Load load) {
  if (o0 % 24 != 0) return o0;
  const __m256 w0 = _mm256_set1_ps(L.wt[0]), w1 = _mm256_set1_ps(L.wt[L.out]);
  const __m256i i0 = _mm256_setr_epi32(0, 1, 2, 6, 7, 2, 6, 7);
  const __m256i i1 = _mm256_setr_epi32(0, 4, 5, 6, 1, 2, 3, 7);
  const __m256i i2 = _mm256_setr_epi32(0, 1, 5, 6, 7, 5, 6, 7);
  auto t = [&](__m256 a, __m256 b, __m256i i) {
    return _mm256_permutevar8x32_ps(_mm256_fmadd_ps(w1, b, _mm256_mul_ps(w0, a)), i);
  };
  auto pair = [&](int64_t q, __m256i i) { return t(load(q), load(q + 3), i); };
  int64_t o = o0;
  for (; o + 24 <= o1 && L.idx[0] + 2 * (o + 24) <= L.in; o += 24) {
    const int64_t q = L.idx[0] + 2 * o;
    if constexpr (SHIFTED) {
      const __m256 b0 = load(q), b1 = load(q + 8), b2 = load(q + 16), b3 = load(q + 24), b4 = load(q + 32),
                   b5 = load(q + 40);
      _mm256_storeu_ps(out + o, _mm256_blend_ps(t(b0, shifted<3>(b0, b1), i0),
                                                t(shifted<6>(b0, b1), shifted<1>(b1, b2), i0), 0xE0));
      _mm256_storeu_ps(out + o + 8, _mm256_blend_ps(t(shifted<6>(b1, b2), shifted<1>(b2, b3), i1),
                                                    t(shifted<7>(b2, b3), shifted<2>(b3, b4), i1), 0xF0));
      _mm256_storeu_ps(out + o + 16, _mm256_blend_ps(t(shifted<7>(b3, b4), shifted<2>(b4, b5), i2),
                                                     t(shifted<5>(b4, b5), b5, i2), 0xE0));
    } else {
      _mm256_storeu_ps(out + o, _mm256_blend_ps(pair(q, i0), pair(q + 6, i0), 0xE0));
      _mm256_storeu_ps(out + o + 8, _mm256_blend_ps(pair(q + 14, i1), pair(q + 23, i1), 0xF0));
      _mm256_storeu_ps(out + o + 16, _mm256_blend_ps(pair(q + 31, i2), pair(q + 37, i2), 0xE0));
    }
  }
  return o;
}

inline int64_t rgb_halving(const float* row, const Line<float>& L, int64_t o0, int64_t o1, float* out) {
  return rgb_halving_of<true>(L, o0, o1, out, [&](int64_t q) { return _mm256_loadu_ps(row + q); });
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
// The blend of TT input lines r[t] (weights w[t]) at q, sixteen floats: LinesBlend::at's sums.
template <int TT>
RESIZE_AD_AVX512 RESIZE_AD_INLINE __m512 lines16(const float* const* r, const __m512* w, int64_t q) {
  __m512 v = _mm512_fmadd_ps(w[1], _mm512_loadu_ps(r[1] + q), _mm512_mul_ps(w[0], _mm512_loadu_ps(r[0] + q)));
  if constexpr (TT > 2) v = _mm512_fmadd_ps(w[2], _mm512_loadu_ps(r[2] + q), v);
  if constexpr (TT > 3) v = _mm512_fmadd_ps(w[3], _mm512_loadu_ps(r[3] + q), v);
  return v;
}

// blended_rgb_halving in 512-bit vectors (AVX-512): eight pixels (24 outputs) per step from the
// blends v0, v1, v2 of their 48 input floats, each blended once (the step's next vector is blended
// one step ahead, as the next step's v0): the first taps' floats of four output pixels (3 of every
// 6 from 0) and their second taps' (3 of every 6 from 3) picked from v0 and v1 by one two-source
// permute each, then w0 * first + w1 * second (a pixel's two taps, as rgb_halving_of adds them:
// the same values), twelve outputs stored masked; the other four pixels the same from v1 and v2,
// eight floats on. Every lane of the sums is an output: sums at every position with three
// compresses picking half of them (the form before) took 58 against 55 us on a 512 x 512 RGB
// halving (one thread, an EPYC). Returns where it stopped: a step whose loads would leave the
// line, or whose outputs would pass o1.
template <int TT>
RESIZE_AD_AVX512 __attribute__((noinline)) int64_t rgb_halving16(const float* src, const int64_t* off, const float* tw,
                                                                 const Line<float>& L, int64_t o0, int64_t o1, float* out) {
  if (o0 % 24 != 0) return o0;
  const float* r[4];
  __m512 w[4];
  for (int t = 0; t < TT; ++t) r[t] = src + off[t], w[t] = _mm512_set1_ps(tw[t]);
  const __m512 w0 = _mm512_set1_ps(L.wt[0]), w1 = _mm512_set1_ps(L.wt[L.out]);
  // Floats 6 k + c (first taps) and 6 k + 3 + c (second taps) of pixels k = 0 .. 3, c = 0 .. 2,
  // of v0 and v1's 32; the same eight floats on (four pixels later, from the next pair of vectors).
  const __m512i first = _mm512_setr_epi32(0, 1, 2, 6, 7, 8, 12, 13, 14, 18, 19, 20, 0, 0, 0, 0);
  const __m512i second = _mm512_setr_epi32(3, 4, 5, 9, 10, 11, 15, 16, 17, 21, 22, 23, 0, 0, 0, 0);
  const __m512i eight = _mm512_set1_epi32(8);
  const __m512i first8 = _mm512_add_epi32(first, eight), second8 = _mm512_add_epi32(second, eight);
  auto fits = [&](int64_t o) { return o + 24 <= o1 && L.idx[0] + 2 * o + 64 <= L.in; };
  int64_t o = o0;
  if (!fits(o)) return o;
  __m512 v0 = lines16<TT>(r, w, L.idx[0] + 2 * o);
  for (; fits(o); o += 24) {
    const int64_t q = L.idx[0] + 2 * o;
    const __m512 v1 = lines16<TT>(r, w, q + 16), v2 = lines16<TT>(r, w, q + 32), v3 = lines16<TT>(r, w, q + 48);
    const __m512 h0 = _mm512_fmadd_ps(w1, _mm512_permutex2var_ps(v0, second, v1),
                                      _mm512_mul_ps(w0, _mm512_permutex2var_ps(v0, first, v1)));
    const __m512 h1 = _mm512_fmadd_ps(w1, _mm512_permutex2var_ps(v1, second8, v2),
                                      _mm512_mul_ps(w0, _mm512_permutex2var_ps(v1, first8, v2)));
    _mm512_mask_storeu_ps(out + o, 0xFFF, h0);
    _mm512_mask_storeu_ps(out + o + 12, 0xFFF, h1);
    v0 = v3;
  }
  return o;
}

// own_lines' regular halvings of planes (C = 1) and of RGBA lines (C = 4) in 512-bit vectors
// (AVX-512): sixteen outputs per step from the blends x, c of the 32 input floats from q0 + 32 k,
// each blended once: the first taps' floats (C = 1: the even ones; C = 4: pixels 0, 2, 4, 6) and
// the second taps' picked from the two by one two-source permute each, then w0 * first +
// w1 * second, as own_lines' eight-float steps take them: the same values (a 512 x 512 plane's
// bilinear halving, one thread: 21-22 -> 20 us; an RGBA one, read from the L3 cache, as before).
// Returns the outputs it computed (a multiple of sixteen, at most n).
template <int C, int TT>
RESIZE_AD_AVX512 __attribute__((noinline)) int64_t regular_halving16(const float* src, const int64_t* off,
                                                                     const float* tw, const Line<float>& L,
                                                                     int64_t q0, int64_t n, float* out) {
  static_assert(C == 1 || C == 4, "planes and RGBA lines");
  const float* r[4];
  __m512 w[4];
  for (int t = 0; t < TT; ++t) r[t] = src + off[t], w[t] = _mm512_set1_ps(tw[t]);
  const __m512 w0 = _mm512_set1_ps(L.wt[0]), w1 = _mm512_set1_ps(L.wt[n]);
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  int64_t o = 0;
  for (; o + 16 <= n; o += 16) {
    const int64_t q = q0 + 2 * o;
    const __m512 x = lines16<TT>(r, w, q), c = lines16<TT>(r, w, q + 16);
    __m512 first, second;
    if constexpr (C == 1) {
      first = _mm512_permutex2var_ps(x, even, c);
      second = _mm512_permutex2var_ps(x, odd, c);
    } else {
      first = _mm512_shuffle_f32x4(x, c, _MM_SHUFFLE(2, 0, 2, 0));
      second = _mm512_shuffle_f32x4(x, c, _MM_SHUFFLE(3, 1, 3, 1));
    }
    _mm512_storeu_ps(out + o, _mm512_fmadd_ps(w1, second, _mm512_mul_ps(w0, first)));
  }
  return o;
}
#pragma GCC diagnostic pop

// rgb_halving over the blend of T = TT input lines, each load blended where it is read (in
// blend's order, so blend's values); blended_rgb_halving is it as a function of its own per TT,
// as blended_blocks_run.
template <int TT, bool SHIFTED>
inline int64_t blended_rgb_halving_body(const float* src, const int64_t* off, const float* tw,
                                        const Line<float>& L, int64_t o0, int64_t o1, float* out) {
  if (cpu_has_avx512()) o0 = rgb_halving16<TT>(src, off, tw, L, o0, o1, out);
  const LinesBlend<8, TT> blend8(src, off, tw, TT);
  return rgb_halving_of<SHIFTED>(L, o0, o1, out, [&](int64_t q) { return blend8.at(q); });
}
template <int TT, bool SHIFTED>
__attribute__((noinline)) int64_t blended_rgb_halving(const float* src, const int64_t* off, const float* tw,
                                                      const Line<float>& L, int64_t o0, int64_t o1, float* out) {
  return blended_rgb_halving_body<TT, SHIFTED>(src, off, tw, L, o0, o1, out);
}


// The blend of TT input lines (src + off[t], weights tw[t]) at position p, in blend's order.
template <int TT>
RESIZE_AD_INLINE float blend_at(const float* src, const int64_t* off, const float* tw, int64_t p) {
  float v = tw[0] * src[off[0] + p];
  for (int t = 1; t < TT; ++t) v = madd(tw[t], src[off[t] + p], v);
  return v;
}

// ragged_rows over the blend of TT input lines (src + off[t], weights tw[t]), each tap's
// position blended where it is read, in blend's order: the values of fix_ragged over the blend
// into scratch. After the blended kernels (blended_pairs), whose sums at the ragged pixels
// (a padding tap of weight 0 read at a position the pixel reads anyway) are not exact where
// that position holds an infinity or a NaN.
template <int TT>
void blended_ragged_run(const float* src, const int64_t* off, const float* tw, const Line<float>& L, int64_t o0,
                        int64_t o1, float* out) {
  const LinesBlend<4, TT> quad(src, off, tw, TT);
  ragged_rows(L, o0, o1, out, [&](int64_t p) { return blend_at<TT>(src, off, tw, p); },
              [&](auto p) { return quad.at(p); });
}
inline void blended_ragged(const float* src, const int64_t* off, const float* tw, int64_t T, const Line<float>& L,
                           int64_t o0, int64_t o1, float* out) {
  if (L.ragged_runs.empty() || o1 <= o0) return;
  with_lines(T, [&](auto t) {
    blended_ragged_run<decltype(t)::value>(src, off, tw, L, o0, o1, out);
    return o1;
  });
}

// Outputs [o0, o1) of a gathered line one at a time from the blend of TT input lines (src +
// off[t], weights tw[t]): each tap's position blended in blend's order (the zero slot's padding
// read as 0), the taps summed in gather_line's, so the values are those of the blend into
// scratch and the gather. The outputs after the blended kernels' last whole block or pair
// (blended_blocks_body; own_lines' RGB lines), in place of the scratch, and blended_picks'.
template <int TT>
inline void blended_tail(const float* src, const int64_t* off, const float* tw, const Line<float>& L, int64_t o0,
                         int64_t o1, float* out) {
  const int64_t K = L.K, n = L.out;
  const int32_t* __restrict idx = L.idx.data();
  const float* __restrict wt = L.wt.data();
  const int32_t slot = static_cast<int32_t>(L.in);
  auto at = [&](int64_t j) {
    const int32_t p = idx[j];
    return L.zero_slot && p == slot ? 0.f : blend_at<TT>(src, off, tw, p);
  };
  for (int64_t o = o0; o < o1; ++o) {
    float acc = wt[o] * at(o);
    for (int64_t j = 1; j < K; ++j) acc = madd(wt[j * n + o], at(j * n + o), acc);
    out[o] = acc;
  }
}

// Whether sweep_segment resamples a line of one tap per output (Line::unit: bilinear by an odd
// whole factor, whose every tap falls on an input position, as nearest) from the T input lines
// at its taps alone (blended_picks), rather than blending the whole span into scratch and
// picking from it: counted in operations, 2 T per output blended where read against 2 T + 1
// per eight floats of the span, downscales by more than about 6.5; folded RGB and RGBA lines,
// a pixel per 128-bit vector (2 T + 1 per pixel), downscales by more than eight pixels' floats
// per pixel (RGB by more than 2.7, RGBA by more than 2).
inline bool blended_picks_pay(const Line<float>& L, int64_t T) {
  const bool pixels = L.step == 3 || L.step == 4;
  return L.unit && L.K == 1 && L.ragged_runs.empty() && T >= 2 && T <= 4 &&
         (pixels ? 8 * L.out < L.step * L.in : 16 * T * L.out < (2 * T + 1) * L.in);
}
// blended_picks for TT input lines: folded RGB and RGBA lines a pixel at a time, its C floats
// (and, RGB, the next pixel's first, overwritten by that pixel's store) blended from one 128-bit
// load per input line, in blend's order, times the output's weight (as gather_line's one tap),
// up to the last pixel whose load stays inside the line (Line::pairs_end) and, RGB, before the
// last pixel; the rest, and lines of one channel, one output at a time (blended_tail).
template <int TT>
__attribute__((noinline)) int64_t blended_picks_run(const float* src, const int64_t* off, const float* tw,
                                                    const Line<float>& L, int64_t o0, int64_t o1, float* out) {
  const int64_t C = L.step;
  int64_t o = o0;
  if ((C == 3 || C == 4) && o0 % C == 0 && !L.zero_slot) {
    const LinesBlend<4, TT> px(src, off, tw, TT);
    const int32_t* __restrict idx = L.idx.data();
    const float* __restrict wt = L.wt.data();
    const int64_t end = std::min(L.pairs_end, o1 - (C == 3 ? C : 0));
    for (; o + C <= end; o += C) _mm_storeu_ps(out + o, _mm_mul_ps(_mm_loadu_ps(wt + o), px.at(idx[o])));
  }
  blended_tail<TT>(src, off, tw, L, o, o1, out);
  return o1;
}
inline int64_t blended_picks(const float* src, const int64_t* off, const float* tw, int64_t T, const Line<float>& L,
                             int64_t o0, int64_t o1, float* out) {
  return with_lines(T, [&](auto t) { return blended_picks_run<decltype(t)::value>(src, off, tw, L, o0, o1, out); });
}

// Outputs [o0, o1) of a blended_blocks_pay line from the blend of TT input lines (src + off[t],
// weights tw[t]), run by run of its load plan (Line::blk_run_end): each block's loads blended
// in blend's order where they are read, its taps taken from them as planned_run takes them from
// the blend in scratch (kRows: pairs4 and pairs_sum; kStride2Pairs: halving_block; one, two or
// four loads: picked_sum_of; kShifted: a load per tap), so the values are blend's and
// gather_line's; the outputs before the first whole block (a segment's start) and, where every
// block was blended, after the last one at a time (blended_tail); ragged pixels rewritten after
// (blended_ragged_run). Returns o1, or the first output of a block of another kind (gathers, a
// line's end in kStride2), where the caller finishes through scratch. ahead (not 0): each cache
// line of the input lines `ahead` floats on is prefetched as the blocks reach its position
// (own_lines' MEM lines: the next line's rows).
template <int TT>
inline int64_t blended_blocks_body(const float* src, const int64_t* off, const float* tw, const Line<float>& L,
                                   int64_t o0, int64_t o1, float* out, int64_t ahead = 0) {
  const int64_t head = std::min(o1, (o0 + 7) / 8 * 8);
  blended_tail<TT>(src, off, tw, L, o0, head, out);
  const LinesBlend<8, TT> lines(src, off, tw, TT);
  const uint8_t* __restrict loads = L.blk_loads.data();
  const int32_t* __restrict idx = L.idx.data();
  const int32_t* __restrict pos = L.blk_pos.data();
  const uint8_t* __restrict rels = L.blk_rel.data();
  const float* __restrict wt = L.wt.data();
  const int64_t n = L.out, bend = o1 / 8;
  int64_t b = head / 8;
  int64_t q = b < bend ? idx[8 * b] : 0;  // (ahead) the next position to prefetch
  auto prefetch = [&](int64_t last) {
    if (ahead == 0) return;
    for (; q <= last; q += 16)
      for (int t = 0; t < TT; ++t) __builtin_prefetch(lines.r[t] + q + ahead);
  };
  auto rel = [&](int64_t j) {
    return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(rels + b * 16 + j * 8)));
  };
  auto picks = [&](auto nl, auto pad, int64_t e) {
    constexpr int NL = decltype(nl)::value;
    for (; b < e; ++b) {
      prefetch(pos[b] + 8 * NL - 1);
      __m256 v[NL];
      for (int l = 0; l < NL; ++l) v[l] = lines.at(pos[b] + 8 * l);
      const __m256i r[2] = {rel(0), rel(1)};
      _mm256_storeu_ps(out + 8 * b, picked_sum_of<2, NL, decltype(pad)::value>(v, r, wt + 8 * b, n));
    }
  };
  auto runs = [&](auto pad) {
    while (b < bend) {
      const int64_t e = std::min<int64_t>(bend, L.blk_run_end[b]);
      switch (loads[b]) {
        case kRows:
          for (; b < e; ++b) {
            const int32_t* f = idx + 8 * b;
            prefetch(f[7] + 1);
            __m256 a = _mm256_mul_ps(lines.w[0], pairs4(lines.r[0], f, 0, 1, 4, 5));
            __m256 c = _mm256_mul_ps(lines.w[0], pairs4(lines.r[0], f, 2, 3, 6, 7));
            for (int t = 1; t < TT; ++t) {
              a = _mm256_fmadd_ps(lines.w[t], pairs4(lines.r[t], f, 0, 1, 4, 5), a);
              c = _mm256_fmadd_ps(lines.w[t], pairs4(lines.r[t], f, 2, 3, 6, 7), c);
            }
            _mm256_storeu_ps(out + 8 * b, pairs_sum<decltype(pad)::value>(a, c, rels + b * 16, wt + 8 * b, n));
          }
          break;
        case kStride2Pairs:
          for (; b < e; ++b) {
            const int64_t p = pos[b] + rels[b * 16];
            prefetch(p + 15);
            _mm256_storeu_ps(out + 8 * b, halving_block(lines, p, wt + 8 * b, n));
          }
          break;
        case kShifted:  // tap j: tap 0's picks from the load j positions on (no padding taps)
          for (; b < e; ++b) {
            prefetch(pos[b] + 8);
            const __m256i r = rel(0);
            const __m256 t0 = _mm256_permutevar8x32_ps(lines.at(pos[b]), r);
            const __m256 t1 = _mm256_permutevar8x32_ps(lines.at(pos[b] + 1), r);
            const __m256 acc = _mm256_mul_ps(_mm256_loadu_ps(wt + 8 * b), t0);
            _mm256_storeu_ps(out + 8 * b, _mm256_fmadd_ps(_mm256_loadu_ps(wt + n + 8 * b), t1, acc));
          }
          break;
        case 1: picks(std::integral_constant<int, 1>{}, pad, e); break;
        case 2: picks(std::integral_constant<int, 2>{}, pad, e); break;
        case 4: picks(std::integral_constant<int, 4>{}, pad, e); break;
        default: return;
      }
    }
  };
  if (L.zero_slot) runs(std::true_type{}); else runs(std::false_type{});
  const int64_t end = b == bend ? o1 : 8 * b;
  if (b == bend) blended_tail<TT>(src, off, tw, L, std::max(head, 8 * b), o1, out);
  if (!L.ragged_runs.empty()) blended_ragged_run<TT>(src, off, tw, L, o0, end, out);
  return end;
}
template <int TT>
__attribute__((noinline)) int64_t blended_blocks_run(const float* src, const int64_t* off, const float* tw,
                                                     const Line<float>& L, int64_t o0, int64_t o1, float* out) {
  return blended_blocks_body<TT>(src, off, tw, L, o0, o1, out);
}
inline int64_t blended_blocks(const float* src, const int64_t* off, const float* tw, int64_t T,
                              const Line<float>& L, int64_t o0, int64_t o1, float* out) {
  return with_lines(T, [&](auto t) { return blended_blocks_run<decltype(t)::value>(src, off, tw, L, o0, o1, out); });
}

// Whether sweep_segment resamples an RGB halving (Line::regular, step 3) from the T input lines
// directly (blended_rgb_halving): always, for two to four lines.
inline bool blended_rgb_halving_pays(const Line<float>& L, int64_t T) {
  return L.step == 3 && L.regular && T >= 2 && T <= 4;
}


// blended_rgb_halving for T input lines; `from_memory` (Sweep::prefetch: an input larger than
// the caches keep) loads each pair's taps, the others shift them from six loads (rgb_halving_of).
inline int64_t blended_rgb_halving_line(const float* src, const int64_t* off, const float* tw, int64_t T,
                                        const Line<float>& L, int64_t o0, int64_t o1, float* out,
                                        bool from_memory) {
  return with_lines(T, [&](auto t) {
    constexpr int TT = decltype(t)::value;
    return from_memory ? blended_rgb_halving<TT, false>(src, off, tw, L, o0, o1, out)
                       : blended_rgb_halving<TT, true>(src, off, tw, L, o0, o1, out);
  });
}

// f(std::integral_constant<int, C>{}, std::integral_constant<int, KT>{}) for a folded line of
// C = L.step (3, else 4) channels and KT = L.K taps where that is 2 or 4, 0 (read from the line)
// otherwise.
template <typename F>
RESIZE_AD_INLINE auto with_pixels(const Line<float>& L, F f) {
  auto taps = [&](auto c) {
    switch (L.K) {
      case 2: return f(c, std::integral_constant<int, 2>{});
      case 4: return f(c, std::integral_constant<int, 4>{});
      default: return f(c, std::integral_constant<int, 0>{});
    }
  };
  return L.step == 3 ? taps(std::integral_constant<int, 3>{}) : taps(std::integral_constant<int, 4>{});
}

// blended_pairs for the line's C and K, its ragged pixels then rewritten (blended_ragged; those
// after where it stopped are the caller's, through scratch).
inline int64_t blended_pairs_line(const float* src, const int64_t* off, const float* tw, int64_t T,
                                  const Line<float>& L, int64_t o0, int64_t o1, float* out) {
  const int64_t o = with_pixels(L, [&](auto c, auto k) {
    return with_lines(T, [&](auto t) {
      return blended_pairs<decltype(c)::value, decltype(k)::value, decltype(t)::value>(src, off, tw, L, o0, o1, out);
    });
  });
  blended_ragged(src, off, tw, T, L, o0, std::min(o, o1), out);
  return o;
}
#endif

#if RESIZE_AD_AVX2
// Outputs [a, b) of a folded RGB / RGBA line's steady pairs (Line::steady_lo; a and b pairs of
// pixels from steady_lo on): tap j of each pair is the eight floats from its first pixel's tap,
// one pixel after the pair before's, with the pair's weights, which repeat. The sums of
// gather_line, in its order. For C = 3, lanes 6 and 7 of each store are the next pair's, stored
// again after it (so b + 2 <= the caller's end).
template <int C, int KT>
inline void steady_run(const float* row, const Line<float>& L, int64_t a, int64_t b, float* out) {
  const int64_t K = KT > 0 ? KT : L.K, n = L.out;
  __m256 w[4];
  const float* p[4];
  for (int64_t j = 0; j < 4; ++j) {
    w[j] = _mm256_loadu_ps(L.wt.data() + (j < K ? j : 0) * n + a);
    p[j] = row + L.idx[(j < K ? j : 0) * n + a];
  }
  for (int64_t o = a, q = 0; o < b; o += 2 * C, q += C) {
    __m256 acc = _mm256_mul_ps(w[0], _mm256_loadu_ps(p[0] + q));
    for (int64_t j = 1; j < K; ++j) acc = _mm256_fmadd_ps(w[j], _mm256_loadu_ps(p[j] + q), acc);
    _mm256_storeu_ps(out + o, acc);
  }
}

inline void steady_pairs(const float* row, const Line<float>& L, int64_t a, int64_t b, float* out) {
  with_pixels(L, [&](auto c, auto k) { steady_run<decltype(c)::value, decltype(k)::value>(row, L, a, b, out); });
}
#endif

#if RESIZE_AD_AVX2
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
// Outputs [a, b) of an RGBA line's halving run (Line::halving_lo; a and b four pixels from
// halving_lo on), four pixels per 512-bit vector: tap j of pixels o .. o + 3 is every second
// pixel from the first's tap j, two 512-bit loads and a shuffle of their 128-bit lanes; the
// weights broadcast. The sums of gather_line, in its order.
RESIZE_AD_AVX512 void halving_quads(const float* row, const Line<float>& L, int64_t a, int64_t b, float* out) {
  const int64_t n = L.out, lo = L.halving_lo;
  __m512 w[4];
  for (int64_t j = 0; j < 4; ++j) w[j] = _mm512_set1_ps(L.wt[j * n + lo]);
  const float* p = row + L.idx[lo] + 2 * (a - lo);
  for (int64_t o = a; o < b; o += 16, p += 32) {
    const __m512 x = _mm512_loadu_ps(p), y = _mm512_loadu_ps(p + 16);  // pixels 0-3, 4-7
    const __m512 u = _mm512_loadu_ps(p + 8), v = _mm512_loadu_ps(p + 24);  // pixels 2-5, 6-9
    __m512 acc = _mm512_mul_ps(w[0], _mm512_shuffle_f32x4(x, y, 0x88));  // pixels 0, 2, 4, 6
    acc = _mm512_fmadd_ps(w[1], _mm512_shuffle_f32x4(x, y, 0xDD), acc);  // 1, 3, 5, 7
    acc = _mm512_fmadd_ps(w[2], _mm512_shuffle_f32x4(u, v, 0x88), acc);  // 2, 4, 6, 8
    acc = _mm512_fmadd_ps(w[3], _mm512_shuffle_f32x4(u, v, 0xDD), acc);  // 3, 5, 7, 9
    _mm512_storeu_ps(out + o, acc);
  }
}

// The quads of quads_of in 256-bit vectors (AVX2, without AVX-512): each quad as two pairs of
// pixels, two pixels per vector (a pixel per 128-bit lane); taps(a, b, j), pixels a and b's tap
// j (from their first taps' positions a, b) in the low and high lanes; a pair's padding lanes
// zeroed by one of four masks (Quad::pair_keep). RGB's pairs packed by one
// permute, the quad's second pair stored as its six sums alone. The same sums, in the same order.
template <int C, int KT, bool PAD, typename Taps>
RESIZE_AD_INLINE void quads_of8(const Line<float>& L, int64_t q0, int64_t q1, float* out, Taps taps) {
  const auto* __restrict quads = L.quads.data();
  const float* __restrict w = L.quad_w.data()->w;
  const __m256i pack = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 6, 6);
  // The lanes kept of a pair whose pixels keep the tap (bit 0: the first, bit 1: the second).
  const __m256 keep[4] = {_mm256_setzero_ps(), _mm256_castsi256_ps(_mm256_setr_epi32(-1, -1, -1, -1, 0, 0, 0, 0)),
                          _mm256_castsi256_ps(_mm256_setr_epi32(0, 0, 0, 0, -1, -1, -1, -1)),
                          _mm256_castsi256_ps(_mm256_set1_epi32(-1))};
  for (int64_t q = q0; q < q1; ++q) {
    const auto& Q = quads[q];
    const float* wq = w + 16 * KT * q;
    for (int pr = 0; pr < 2; ++pr) {
      const int32_t a = Q.first[2 * pr], b = Q.first[2 * pr + 1];
      __m256 acc = _mm256_mul_ps(_mm256_load_ps(wq + 8 * pr), taps(a, b, 0));
      for (int j = 1; j < KT; ++j) {
        __m256 t = taps(a, b, j);
        if constexpr (PAD) t = _mm256_and_ps(t, keep[Q.pair_keep[j - 1][pr]]);
        acc = _mm256_fmadd_ps(_mm256_load_ps(wq + 16 * j + 8 * pr), t, acc);
      }
      if constexpr (C == 4) {
        _mm256_storeu_ps(out + 16 * q + 8 * pr, acc);
      } else if (pr == 0) {  // lanes 6 and 7 overwritten by the second pair's sums
        _mm256_storeu_ps(out + 12 * q, _mm256_permutevar8x32_ps(acc, pack));
      } else {
        const __m256 v = _mm256_permutevar8x32_ps(acc, pack);
        _mm_storeu_ps(out + 12 * q + 6, _mm256_castps256_ps128(v));
        _mm_storel_pi(reinterpret_cast<__m64*>(out + 12 * q + 10), _mm256_extractf128_ps(v, 1));
      }
    }
  }
}

// rgba_quads and rgb_quads of four taps in 256-bit vectors (quads_of8): RGBA, tap j of two
// pixels a lane permute of their spans' loads (the span of taps 2 h, 2 h + 1 one 256-bit load per
// pixel); RGB, each pixel's tap one 128-bit load (its fourth float unused).
template <bool PAD>
__attribute__((noinline)) void rgba_quads8(const float* row, const Line<float>& L, int64_t q0, int64_t q1,
                                           float* out) {
  quads_of8<4, 4, PAD>(L, q0, q1, out, [&](int32_t a, int32_t b, int j) {
    const __m256 x = _mm256_loadu_ps(row + a + 8 * (j / 2)), y = _mm256_loadu_ps(row + b + 8 * (j / 2));
    return j % 2 == 0 ? _mm256_permute2f128_ps(x, y, 0x20) : _mm256_permute2f128_ps(x, y, 0x31);
  });
}
template <bool PAD>
__attribute__((noinline)) void rgb_quads8(const float* row, const Line<float>& L, int64_t q0, int64_t q1,
                                          float* out) {
  quads_of8<3, 4, PAD>(L, q0, q1, out, [&](int32_t a, int32_t b, int j) {
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(row + a + 3 * j)), _mm_loadu_ps(row + b + 3 * j), 1);
  });
}

// Quads [q0, q1) of an RGB or RGBA line (Line::quads; C = 3 or 4 channels), four pixels per
// 512-bit vector, a pixel per 128-bit lane: taps(a, b, h), pixels a and b's taps 2 h and
// 2 h + 1 (from their first taps' positions a, b) in the lanes of pixel a's first, its second,
// pixel b's first, its second; tap j of the four one shuffle of the 128-bit lanes of two such
// vectors, PAD (Line::zero_slot): its lanes of the zero slot's padding zeroed (keep), as
// pairs_of's masks; the weights one aligned load per tap (Line::quad_w). RGB's fourth float per
// lane is unused: its twelve sums packed by one permute and stored masked. The sums of
// gather_line, in its order.
template <int C, int KT, bool PAD, typename Taps>
RESIZE_AD_AVX512 RESIZE_AD_INLINE void quads_of(const Line<float>& L, int64_t q0, int64_t q1, float* out, Taps taps) {
  const auto* __restrict quads = L.quads.data();
  const float* __restrict w = L.quad_w.data()->w;
  const __m512i pack = _mm512_setr_epi32(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 0, 0, 0, 0);
  auto keep = [&](const uint16_t* k, __m512 x, __m512 y, auto imm) {
    if constexpr (PAD) return _mm512_maskz_shuffle_f32x4(_load_mask16(const_cast<uint16_t*>(k)), x, y, decltype(imm)::value);
    return _mm512_shuffle_f32x4(x, y, decltype(imm)::value);
  };
  using Even = std::integral_constant<int, 0x88>;
  using Odd = std::integral_constant<int, 0xDD>;
  for (int64_t q = q0; q < q1; ++q) {
    const auto& Q = quads[q];
    const float* wq = w + 16 * KT * q;
    const __m512 x = taps(Q.first[0], Q.first[1], 0), y = taps(Q.first[2], Q.first[3], 0);
    __m512 acc = _mm512_mul_ps(_mm512_load_ps(wq), _mm512_shuffle_f32x4(x, y, 0x88));
    acc = _mm512_fmadd_ps(_mm512_load_ps(wq + 16), keep(Q.keep, x, y, Odd{}), acc);
    if constexpr (KT == 4) {
      const __m512 u = taps(Q.first[0], Q.first[1], 1), v = taps(Q.first[2], Q.first[3], 1);
      acc = _mm512_fmadd_ps(_mm512_load_ps(wq + 32), keep(Q.keep + 1, u, v, Even{}), acc);
      acc = _mm512_fmadd_ps(_mm512_load_ps(wq + 48), keep(Q.keep + 2, u, v, Odd{}), acc);
    }
    if constexpr (C == 4) {
      _mm512_storeu_ps(out + 16 * q, acc);
    } else {
      _mm512_mask_storeu_ps(out + 12 * q, 0x0FFF, _mm512_permutexvar_ps(pack, acc));
    }
  }
}

// RGBA: a pixel's two taps are the eight floats from the first, one 256-bit load; two pixels'
// one vector.
template <int KT, bool PAD>
RESIZE_AD_AVX512 __attribute__((noinline)) void rgba_quads(const float* row, const Line<float>& L, int64_t q0,
                                                           int64_t q1, float* out) {
  quads_of<4, KT, PAD>(L, q0, q1, out, [&](int32_t a, int32_t b, int h) {
    return _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(_mm256_loadu_ps(row + a + 8 * h))),
                                               _mm256_castps_pd(_mm256_loadu_ps(row + b + 8 * h)), 1));
  });
}

// RGB: a pixel's taps are the 3 K floats from the first (one 512-bit load for four taps, 256-bit
// for two), two pixels' taps put in their lanes by one two-source permute.
template <int KT, bool PAD>
RESIZE_AD_AVX512 __attribute__((noinline)) void rgb_quads(const float* row, const Line<float>& L, int64_t q0,
                                                          int64_t q1, float* out) {
  // Taps 0 and 1 (lo) or 2 and 3 (hi) of pixels a and b (b's floats from 16 on).
  const __m512i lo = _mm512_setr_epi32(0, 1, 2, 0, 3, 4, 5, 3, 16, 17, 18, 16, 19, 20, 21, 19);
  const __m512i hi = _mm512_setr_epi32(6, 7, 8, 6, 9, 10, 11, 9, 22, 23, 24, 22, 25, 26, 27, 25);
  auto load = [&](int32_t p) {
    if constexpr (KT == 4) return _mm512_loadu_ps(row + p);
    return _mm512_castps256_ps512(_mm256_loadu_ps(row + p));
  };
  quads_of<3, KT, PAD>(L, q0, q1, out, [&](int32_t a, int32_t b, int h) {
    return _mm512_permutex2var_ps(load(a), h ? hi : lo, load(b));
  });
}
#pragma GCC diagnostic pop
#endif

template <typename D, typename acc_t>
void gather_sweep(const acc_t* row, const Line<acc_t>& L, int64_t o0, int64_t o1, D* out, float* obuf,
                  bool runs = true);

#if RESIZE_AD_AVX2
// Eight outputs of a unit run at d, from its taps at x (tap j at x + C j) and its weights at w
// (tap j's at w + n j).
template <int KT, bool LERP>
RESIZE_AD_INLINE void unit_vec(const float* __restrict x, const float* __restrict w, int64_t n, int64_t C,
                               float* __restrict d) {
  __m256 acc;
  if constexpr (LERP) {
    __m256 w0, w1;
    lerp_weights(w + n, w0, w1);
    acc = _mm256_fmadd_ps(w1, _mm256_loadu_ps(x + C), _mm256_mul_ps(w0, _mm256_loadu_ps(x)));
  } else {
    acc = _mm256_mul_ps(_mm256_loadu_ps(w), _mm256_loadu_ps(x));
    for (int j = 1; j < KT; ++j) acc = _mm256_fmadd_ps(_mm256_loadu_ps(w + j * n), _mm256_loadu_ps(x + C * j), acc);
  }
  _mm256_storeu_ps(d, acc);
}

// Outputs [o0, o1) of a line with unit runs (Line::unit_runs) of KT taps: each run's part in
// them (of eight outputs or more) eight outputs per vector, tap j of output o + v of a run from o
// at p + C j + v, the last vector ending at the part's end (over outputs the one before
// computed: the same values); the outputs between those parts by the other kernels (fewer than
// eight, a line's clamped ends: by gather_line directly, without the others' setup). A segment
// that holds all of gapless runs takes their vectors in one loop (Line::unit_vecs): the work
// per run (its bounds, its part, the loads of its fields) cost as much as its three vectors on
// RGB 224² -> 256² (about 4.5 cycles per vector in all; 1.15x faster so, 1 thread). The sums
// of gather_line, in its order; LERP (Line::lerp): the first tap's weights computed as 1 minus
// the second's, as its own loops do.
template <int KT, bool LERP>
void unit_runs_of(const float* row, const Line<float>& L, int64_t o0, int64_t o1, float* out, float* obuf) {
  const int64_t n = L.out, C = L.step;
  const float* __restrict wt = L.wt.data();
  auto others = [&](int64_t a) {  // [o0, a)
    if (a - o0 >= 8) gather_sweep(row, L, o0, a, out, obuf, false);
    else if (a > o0) gather_line<KT>(row, L, o0, a, out);
  };
  const auto* const end = L.unit_runs.data() + L.unit_runs.size();
  if (!L.unit_vecs.empty() && o0 <= L.unit_runs.front().o && o1 >= end[-1].e) {
    // The whole of the gapless runs: their vectors in one loop (Line::unit_vecs).
    others(L.unit_runs.front().o);
    for (const auto& v : L.unit_vecs) unit_vec<KT, LERP>(row + v[1], wt + v[0], n, C, out + v[0]);
    o0 = end[-1].e;
    others(o1);
    return;
  }
  const auto* it = std::upper_bound(L.unit_runs.data(), end, o0, [](int64_t o, const auto& r) { return o < r.e; });
  for (; it != end && it->o < o1; ++it) {
    const int64_t a = std::max<int64_t>(o0, it->o), b = std::min<int64_t>(o1, it->e), len = b - a;
    if (len < 8) continue;
    others(a);
    const float* x = row + it->p + (a - it->o);
    int64_t v = 0;
    for (; v + 8 <= len; v += 8) unit_vec<KT, LERP>(x + v, wt + a + v, n, C, out + a + v);
    if (v < len) unit_vec<KT, LERP>(x + len - 8, wt + a + len - 8, n, C, out + a + len - 8);
    o0 = b;
  }
  others(o1);
}

// unit_runs_of for the line's count of taps (two to four).
inline void unit_runs_line(const float* row, const Line<float>& L, int64_t o0, int64_t o1, float* out,
                           float* obuf) {
  with_lines(L.K, [&](auto t) {
    constexpr int TT = decltype(t)::value;
    if (TT == 2 && L.lerp) unit_runs_of<2, true>(row, L, o0, o1, out, obuf);
    else unit_runs_of<TT, false>(row, L, o0, o1, out, obuf);
    return int64_t{0};
  });
}
#endif

template <typename D, typename acc_t>
void gather_sweep(const acc_t* row, const Line<acc_t>& L, int64_t o0, int64_t o1, D* out,
                  float* obuf, bool runs) {
#if RESIZE_AD_AVX2
  // The vector path writes float: stage half / bfloat16 outputs through obuf.
  if constexpr (std::is_same_v<acc_t, float> && !std::is_same_v<D, float>) {
    float* b = obuf - o0;
    gather_sweep<float, float>(row, L, o0, o1, b, nullptr);
    convert_rows<float, D, float>(obuf, out + o0, o1 - o0);
    return;
  }
#endif
#if RESIZE_AD_AVX2
  if constexpr (std::is_same_v<acc_t, float> && std::is_same_v<D, float>) {
    if (runs && !L.unit_runs.empty()) return unit_runs_line(row, L, o0, o1, out, obuf);
    // The steady pairs of RGB and RGBA lines (x2 upscales); the outputs before them by the
    // kernels below, those after them from o0 on.
    // A run [lo, hi) of whole units from lo: its part in [o0, o1) by `kernel`, the outputs before
    // it by the kernels here; false where o1 is reached, else o0 moved past it.
    auto run = [&](int64_t lo, int64_t hi, int64_t unit, auto kernel) {
      const int64_t a = lo + std::max<int64_t>(0, o0 - lo + unit - 1) / unit * unit;
      const int64_t b = a + std::max<int64_t>(0, std::min(o1, hi) - a) / unit * unit;
      if (b <= a) return true;
      if (a > o0) gather_sweep(row, L, o0, a, out, obuf);
      kernel(a, b);
      if (b >= o1) return false;
      o0 = b;
      return true;
    };
    // C = 3 stores eight floats a pair: the run ends two outputs before o1 at the latest.
    if (L.steady_hi > L.steady_lo && L.K > 1 &&
        !run(L.steady_lo, std::min(L.steady_hi, o1 - (L.step == 3 ? 2 : 0)), 2 * L.step,
             [&](int64_t a, int64_t b) { steady_pairs(row, L, a, b, out); }))
      return;
    // The halving run of RGBA lines of four taps (AVX-512); the outputs before it as below.
    if (L.halving_hi > L.halving_lo && cpu_has_avx512() &&
        !run(L.halving_lo, L.halving_hi, 16, [&](int64_t a, int64_t b) { halving_quads(row, L, a, b, out); }))
      return;
    // The runs of quads of RGBA lines and of RGB ones downscaling, in 512-bit vectors with
    // AVX-512, else in 256-bit ones for four taps (of two, pairs_of's span runs measured as fast
    // or faster: RGBA bilinear 224² -> 256² 0.93x through the quads, RGB 512² -> 300² 0.99x);
    // the outputs before each as below.
    const bool z = cpu_has_avx512();
    if (!L.quads.empty() && (L.step == 4 || (L.in >= L.out && !L.regular)) && (z || L.K == 4)) {
      const int64_t Q = 4 * L.step, qe = o1 / Q;
      for (int64_t q = (o0 + Q - 1) / Q; q < qe;) {
        const int64_t e = std::min<int64_t>(qe, L.quad_run_end[q]);
        if (e == q) {
          ++q;
          continue;
        }
        if (Q * q > o0) gather_sweep(row, L, o0, Q * q, out, obuf, false);
        auto quads = [&](auto pad) {
          constexpr bool PAD = decltype(pad)::value;
          if (!z) return L.step == 3 ? rgb_quads8<PAD>(row, L, q, e, out) : rgba_quads8<PAD>(row, L, q, e, out);
          if (L.step == 3) return L.K == 4 ? rgb_quads<4, PAD>(row, L, q, e, out) : rgb_quads<2, PAD>(row, L, q, e, out);
          return L.K == 4 ? rgba_quads<4, PAD>(row, L, q, e, out) : rgba_quads<2, PAD>(row, L, q, e, out);
        };
        L.zero_slot ? quads(std::true_type{}) : quads(std::false_type{});
        o0 = Q * e;
        q = e;
      }
      if (o0 >= o1) return;
    }
    // RGBA lines, and RGB ones downscaling (measured 1.1x-1.5x; on RGB upscales the load
    // plan's permutes measured 1.05x-1.15x faster), except the downscales that 512-bit permutes
    // pick (Line::picked, AVX-512VL). Without AVX-512, RGB upscales of four taps too: bicubic
    // channels_last 224² -> 256², 224² -> 300² and 200 x 300 -> 233 x 333 measured 1.2x-1.4x
    // faster so (1 thread, an AMD EPYC with AVX2; 1.8x with 2), bilinear ones no faster.
    if (L.step == 3 && L.regular) o0 = rgb_halving(row, L, o0, o1, out);
    const bool picked = L.picked && cpu_has_avx512vl();
    const bool rgb_pairs = L.in >= L.out || (L.K == 4 && !cpu_has_avx512());
    if ((L.step == 4 || (L.step == 3 && rgb_pairs)) && L.K > 1 && !picked) {
      o0 = with_pixels(L, [&](auto c, auto k) {
        return pixel_pairs<decltype(c)::value, decltype(k)::value>(row, L, o0, o1, out);
      });
    }
  }
#endif
  switch (L.K) {
    case 1: return gather_line<1>(row, L, o0, o1, out);
    case 2: return gather_line<2>(row, L, o0, o1, out);
    case 3: return gather_line<3>(row, L, o0, o1, out);
    case 4: return gather_line<4>(row, L, o0, o1, out);
    default: return gather_line<0>(row, L, o0, o1, out);
  }
}

#if RESIZE_AD_AVX2
// A folded nearest line of C = 3 or 4 channels: each pixel one 128-bit load (C = 3: with the
// next pixel's first channel, dropped), stored in whole vectors: C = 3, eight pixels packed
// into three 256-bit stores; C = 4, two pixels per store. Pixels one by one after that (C = 3:
// the fourth lane overwritten by the next pixel's store). Outputs [o0, o1) from the first whole
// pixel on; returns where it stopped (the caller copies the rest): before a pixel whose load
// would leave the line or whose store would pass o1. A store per pixel measured 1.1x faster
// than scalar copies on RGB and RGBA downscales and 1.3x on RGBA x2; whole vectors 1.4x faster
// again (RGB and RGBA channels_last 224² <-> 256² and 512² -> 1024², 1 and 2 threads, an AMD
// EPYC with AVX2): the stores bind it, a 128-bit store per pixel ran 2x slower than three
// 256-bit stores per eight pixels.
template <int C>
int64_t pixel_copy(const float* row, const Line<float>& L, int64_t o0, int64_t o1, float* out) {
  if (o0 % C != 0) return o0;
  const int32_t* __restrict idx = L.idx.data();
  int64_t o = o0;
  // Every pixel before pairs_end has its load inside the line (no zero slot: one tap, weight 1).
  const int64_t end = L.zero_slot ? o0 : std::min(o1, L.pairs_end);
  if constexpr (C == 3) {
    for (; o + 24 <= end; o += 24) {
      // Pixels k and k + 4 in the halves of p[k]; per half, four pixels' twelve floats as
      // x = (a0 b0 c0 a1), y = (b1 c1 a2 b2), z = (c2 a3 b3 c3).
      __m256 p[4];
      for (int k = 0; k < 4; ++k) p[k] = _mm256_loadu2_m128(row + idx[o + 3 * k + 12], row + idx[o + 3 * k]);
      const __m256 x = _mm256_blend_ps(p[0], _mm256_shuffle_ps(p[1], p[1], 0), 0x88);
      const __m256 y = _mm256_shuffle_ps(p[1], p[2], _MM_SHUFFLE(1, 0, 2, 1));
      const __m256 t = _mm256_shuffle_ps(p[2], p[3], _MM_SHUFFLE(0, 0, 2, 2));  // c2 c2 a3 a3
      const __m256 z = _mm256_shuffle_ps(t, p[3], _MM_SHUFFLE(2, 1, 2, 0));
      _mm256_storeu_ps(out + o, _mm256_permute2f128_ps(x, y, 0x20));
      _mm256_storeu_ps(out + o + 8, _mm256_blend_ps(z, x, 0xF0));
      _mm256_storeu_ps(out + o + 16, _mm256_permute2f128_ps(y, z, 0x31));
    }
  } else {
    for (; o + 8 <= end; o += 8) _mm256_storeu_ps(out + o, _mm256_loadu2_m128(row + idx[o + 4], row + idx[o]));
  }
  for (; o + 4 <= o1 && idx[o] + 4 <= L.in; o += C) _mm_storeu_ps(out + o, _mm_loadu_ps(row + idx[o]));
  return o;
}
#endif

// Nearest-style line (one tap of weight 1 per output): a pure gather.
template <typename S, typename D, typename acc_t>
void copy_line(const S* row, const Line<acc_t>& L, int64_t o0, int64_t o1, D* out) {
  const int32_t* __restrict idx = L.idx.data();
  int64_t o = o0;
#if RESIZE_AD_AVX2
  if constexpr (sizeof(S) == 4 && std::is_same_v<S, D>) {
    const float* r = reinterpret_cast<const float*>(row);
    float* d = reinterpret_cast<float*>(out);
    if (L.step == 3) o = pixel_copy<3>(r, L, o, o1, d);
    if (L.step == 4) o = pixel_copy<4>(r, L, o, o1, d);
    if (!L.blk_loads.empty() && !L.zero_slot) {  // the load plan's blocks (as in gather_line)
      for (; o < o1 && o % 8 != 0; ++o) d[o] = r[idx[o]];
      for (; o + 8 <= o1; o += 8) {
        const int64_t b = o / 8;
        const int nl = L.blk_loads[b];
        const float* p = r + L.blk_pos[b];
        // Taps within 32 floats: at most four loads and their permutes (where four are needed,
        // 1.05x-1.3x faster than eight scalar loads).
        if (nl == kStride2) {  // (one tap: never kStride2Pairs)
          _mm256_storeu_ps(d + o, even_floats(p + L.blk_rel[b * 8]));
          continue;
        }
        if (nl != 0) {
          __m256i rel[1];
          plan_rel<1>(L, b, rel);
          _mm256_storeu_ps(d + o, nl == 1   ? load_pick<1>(p, rel[0])
                                  : nl == 2 ? load_pick<2>(p, rel[0])
                                            : load_pick<4>(p, rel[0]));
          continue;
        }
        // Taps farther apart (downscales by more than four): scalar loads, which measured faster
        // than a gather (1.5-2x on nearest-exact downscales).
        for (int q = 0; q < 8; ++q) d[o + q] = r[idx[o + q]];
      }
    }
  }
#endif
  for (; o < o1; ++o) {
    if constexpr (std::is_same_v<S, D>) {
      out[o] = row[idx[o]];
    } else {
      out[o] = from_acc<D>(to_acc<acc_t>(row[idx[o]]));
    }
  }
}

template <typename D, typename acc_t>
void gather_dispatch(const acc_t* row, const Line<acc_t>& L, int64_t o0, int64_t o1, D* out,
                     float* obuf) {
  if (!L.ragged_runs.empty()) {  // fix_ragged's first cache lines, fetched during the sweep
    __builtin_prefetch(L.ragged_runs.data());
    __builtin_prefetch(L.ragged_w.data());
  }
  gather_sweep(row, L, o0, o1, out, obuf);
  fix_ragged(row, L, o0, o1, out);
}

// n bytes from src to dst with non-temporal stores where dst is 16-byte aligned (the ends by
// memcpy): the destination's cache lines are written without being read first, which halves
// the memory traffic of an output larger than the cache. The caller fences (_mm_sfence) before
// other threads read dst.
inline void stream_copy(void* dst, const void* src, size_t n) {
#if defined(__SSE2__)
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
  const size_t head = std::min(n, (16 - (reinterpret_cast<uintptr_t>(d) & 15)) & 15);
  std::memcpy(d, s, head);
  d += head, s += head, n -= head;
#if RESIZE_AD_AVX2
  if (n >= 64 && (reinterpret_cast<uintptr_t>(d) & 31) != 0) {  // to 32 bytes
    _mm_stream_si128(reinterpret_cast<__m128i*>(d), _mm_loadu_si128(reinterpret_cast<const __m128i*>(s)));
    d += 16, s += 16, n -= 16;
  }
  for (; n >= 64; d += 64, s += 64, n -= 64) {  // 256-bit: 1.05x-1.1x on nearest x2 upscales
    _mm256_stream_si256(reinterpret_cast<__m256i*>(d), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s)));
    _mm256_stream_si256(reinterpret_cast<__m256i*>(d) + 1,
                        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s) + 1));
  }
#endif
  for (; n >= 64; d += 64, s += 64, n -= 64) {
    for (int i = 0; i < 4; ++i)
      _mm_stream_si128(reinterpret_cast<__m128i*>(d) + i,
                       _mm_loadu_si128(reinterpret_cast<const __m128i*>(s) + i));
  }
  for (; n >= 16; d += 16, s += 16, n -= 16)
    _mm_stream_si128(reinterpret_cast<__m128i*>(d), _mm_loadu_si128(reinterpret_cast<const __m128i*>(s)));
  std::memcpy(d, s, n);
#else
  std::memcpy(dst, src, n);
#endif
}

// Along a line with inner > 1 (a vector of `inner` contiguous elements per position):
// out[o][c] = sum_j w[o][j] * row[start[o] + j][c] for o in [o0, o1). nt (Sweep::stream_rows):
// copies and two-tap rows store non-temporally.
// A copied position (nearest) prefetches the position this many ahead: copies of pixels of
// several channels from an input larger than the caches are bound by the latency of each
// pixel's load (1.3x-2.6x on nearest channels_last with 16 channels, 600 x 800 -> 224 and
// 1000 x 1000 -> 400, 1 thread).
constexpr int64_t kInnerAhead = 8;

#if RESIZE_AD_AVX2
// Eight floats to d, non-temporally where NT (d 32-byte aligned).
template <bool NT>
inline void store8(float* d, __m256 v) {
  if constexpr (NT) {
    _mm256_stream_ps(d, v);
  } else {
    _mm256_storeu_ps(d, v);
  }
}

// f(std::integral_constant<int, V>{}, std::bool_constant<nt>{}) for positions of inner / 8
// eight-float vectors: V is that count for 1 to 4 and 8 vectors, 0 (the kernel reads inner)
// otherwise.
template <typename F>
inline void with_vectors(int64_t inner, bool nt, F f) {
  auto v = [&](auto n) {
    switch (inner / 8) {
      case 1: return f(std::integral_constant<int, 1>{}, n);
      case 2: return f(std::integral_constant<int, 2>{}, n);
      case 3: return f(std::integral_constant<int, 3>{}, n);
      case 4: return f(std::integral_constant<int, 4>{}, n);
      case 8: return f(std::integral_constant<int, 8>{}, n);
      default: return f(std::integral_constant<int, 0>{}, n);
    }
  };
  return nt ? v(std::true_type{}) : v(std::false_type{});
}

// inner_line for float lines of at most two taps and V eight-float vectors per position (V = 0:
// inner / 8), its sums and copies (and so its values) without its per-position loops over the
// channels: positions of two taps, of one (a copy where its weight is 1) and of none. NT:
// stored non-temporally (out 32-byte aligned).
template <int V, bool NT>
void two_tap_line(const float* row, const Line<float>& L, int64_t inner_, int64_t o0, int64_t o1, float* out) {
  const int64_t inner = V > 0 ? 8 * V : inner_, K = L.K;
  const int64_t* __restrict start = L.start.data();
  const int64_t* __restrict len = L.len.data();
  const float* __restrict w = L.w.data();
  for (int64_t o = o0; o < o1; ++o) {
    const float* a = row + start[o] * inner;
    float* d = out + o * inner;
    const int64_t n = len[o];
    if (n == 2) {
      const __m256 w0 = _mm256_set1_ps(w[o * K]), w1 = _mm256_set1_ps(w[o * K + 1]);
      for (int64_t c = 0; c < inner; c += 8)
        store8<NT>(d + c, _mm256_fmadd_ps(w1, _mm256_loadu_ps(a + inner + c), _mm256_mul_ps(w0, _mm256_loadu_ps(a + c))));
    } else if (n == 1 && w[o * K] == 1.f) {
      for (int64_t c = 0; c < inner; c += 8) store8<NT>(d + c, _mm256_loadu_ps(a + c));
    } else if (n == 1) {
      const __m256 w0 = _mm256_set1_ps(w[o * K]);
      for (int64_t c = 0; c < inner; c += 8) store8<NT>(d + c, _mm256_mul_ps(w0, _mm256_loadu_ps(a + c)));
    } else {
      for (int64_t c = 0; c < inner; c += 8) store8<NT>(d + c, _mm256_setzero_ps());
    }
  }
}
#endif

template <typename R, typename D, typename acc_t>
void inner_line(const R* row, const Line<acc_t>& L, int64_t inner, int64_t o0, int64_t o1,
                D* out, bool nt = false) {
#if RESIZE_AD_AVX2
  if constexpr (std::is_same_v<R, float> && std::is_same_v<D, float> && std::is_same_v<acc_t, float>) {
    if (L.K <= 2 && inner % 8 == 0 && inner <= 64 && (!nt || (reinterpret_cast<uintptr_t>(out) & 31) == 0)) {
      return with_vectors(inner, nt, [&](auto v, auto n) {
        two_tap_line<decltype(v)::value, decltype(n)::value>(row, L, inner, o0, o1, out);
      });
    }
  }
#endif
  constexpr int64_t B = 128;
  acc_t acc[B];
  for (int64_t o = o0; o < o1; ++o) {
    D* __restrict d = out + o * inner;
    const int64_t n = L.len[o];
    const acc_t* wo = L.w.data() + o * L.K;
    const R* s = row + L.start[o] * inner;
    if (n == 0) {
      std::fill(d, d + inner, D(0));
      continue;
    }
    if (n == 1 && wo[0] == acc_t(1)) {
      if (o + kInnerAhead < o1) {
        const char* f = reinterpret_cast<const char*>(row + L.start[o + kInnerAhead] * inner);
        for (int64_t q = 0; q < static_cast<int64_t>(inner * sizeof(R)); q += 64) __builtin_prefetch(f + q);
      }
      if constexpr (std::is_same_v<R, D>) {
        if (nt) {
          stream_copy(d, s, inner * sizeof(D));
#if RESIZE_AD_AVX2
        } else if (std::is_same_v<R, float> && inner % 8 == 0 && inner <= 32) {  // inline, not a call
          const float* fs = reinterpret_cast<const float*>(s);
          float* fd = reinterpret_cast<float*>(d);
          for (int64_t c = 0; c < inner; c += 8) _mm256_storeu_ps(fd + c, _mm256_loadu_ps(fs + c));
#endif
        } else {
          std::memcpy(d, s, inner * sizeof(D));
        }
      } else {
        convert_rows<R, D, acc_t>(s, d, inner);
      }
      continue;
    }
    if (n == 2) {
      const R* __restrict a = s;
      const R* __restrict b = s + inner;
      const acc_t w0 = wo[0], w1 = wo[1];
#if RESIZE_AD_AVX2
      // nt (Sweep::stream_rows): the same sums, stored non-temporally where d is aligned.
      if constexpr (std::is_same_v<R, float> && std::is_same_v<D, float>) {
        if (nt && inner % 8 == 0 && (reinterpret_cast<uintptr_t>(d) & 31) == 0) {
          const __m256 v0 = _mm256_set1_ps(w0), v1 = _mm256_set1_ps(w1);
          for (int64_t c = 0; c < inner; c += 8)
            _mm256_stream_ps(d + c, _mm256_fmadd_ps(v1, _mm256_loadu_ps(b + c),
                                                    _mm256_mul_ps(v0, _mm256_loadu_ps(a + c))));
          continue;
        }
      }
#endif
      blend_rows<2>(a, b, a, a, w0, w1, acc_t(0), acc_t(0), d, 0, inner);
      continue;
    }
#if RESIZE_AD_AVX2
    // One tap of another weight (a backward's transposed table: the positions only one output
    // reads), stored directly: through the generic loop below, scaled into acc and copied out by
    // a memcpy of each short position, the backward of trilinear (2, 16, 54, 61, 22) ->
    // (25, 29, 12) spent 70 % of its time in its passes' copies.
    if constexpr (std::is_same_v<R, float> && std::is_same_v<D, float> && std::is_same_v<acc_t, float>) {
      if (n == 1) {
        const __m256 w0 = _mm256_set1_ps(wo[0]);
        int64_t c = 0;
        for (; c + 8 <= inner; c += 8) _mm256_storeu_ps(d + c, _mm256_mul_ps(w0, _mm256_loadu_ps(s + c)));
        for (; c < inner; ++c) d[c] = wo[0] * s[c];
        continue;
      }
    }
#endif
    if (n == 3) {  // (bicubic backwards): the generic loop's sums, without its copy
      blend_rows<3>(s, s + inner, s + 2 * inner, s, wo[0], wo[1], wo[2], acc_t(0), d, 0, inner);
      continue;
    }
    if (n == 4) {  // e.g. the transposed table of a x2 linear upsampling
      const R* __restrict a = s;
      const R* __restrict b = s + inner;
      const R* __restrict e = s + 2 * inner;
      const R* __restrict f = s + 3 * inner;
      blend_rows<4>(a, b, e, f, wo[0], wo[1], wo[2], wo[3], d, 0, inner);
      continue;
    }
    for (int64_t c0 = 0; c0 < inner; c0 += B) {
      const int64_t m = std::min(B, inner - c0);
      scale_row(acc, s + c0, wo[0], m);
      for (int64_t k = 1; k < n; ++k) madd_row(acc, s + k * inner + c0, wo[k], m);
      convert_rows<acc_t, D, acc_t>(acc, d + c0, m);
    }
  }
}

#if RESIZE_AD_AVX2
// A nearest line (Line::unit) of V eight-float vectors per position: out[o] = row[start[o]],
// position by position, the one eight ahead prefetched (inner_line's copy without its per
// position tests: 16-channel channels_last nearest downscales measured 1.0x-1.1x faster).
// NT: stored non-temporally (Sweep::stream_rows; out 32-byte aligned).
template <int V, bool NT>
void unit_copy(const float* row, const Line<float>& L, int64_t inner_, int64_t o0, int64_t o1, float* out) {
  const int64_t inner = V > 0 ? 8 * V : inner_;
  const int64_t* __restrict start = L.start.data();
  for (int64_t o = o0; o < o1; ++o) {
    if (o + kInnerAhead < o1) {
      const char* f = reinterpret_cast<const char*>(row + start[o + kInnerAhead] * inner);
      for (int64_t q = 0; q < inner * 4; q += 64) __builtin_prefetch(f + q);
    }
    const float* s = row + start[o] * inner;
    float* d = out + o * inner;
    for (int64_t v = 0; v < inner / 8; ++v) store8<NT>(d + 8 * v, _mm256_loadu_ps(s + 8 * v));
  }
}

// The most floats per position unit_copy takes.
constexpr int64_t kUnitCopyMax = 64;
#endif

// Whether sweep_segment blends the leading taps and applies the last axis' table in one sweep
// (fused_line) rather than through the blended line in scratch: float lines of whole vectors,
// up to four leading taps, where recomputing the blend per last-axis tap costs less than
// storing the blended span and reading it back (counted in vector multiply-adds: T per tap
// fused; T per input position, a store and a load, then one per tap, staged). Channels_last
// area and bilinear halvings measured 1.3x-1.5x faster fused, the backward of nearest x2
// (channels_last, 64 channels) 1.15x, of a bilinear halving 2x; the ties (bicubic halving,
// antialias) measured 0.95x-1.05x, and stay staged.
template <typename S, typename D, typename acc_t>
bool fuse_pays(int64_t inner, int64_t T, int64_t taps, int64_t span) {
  constexpr bool floats = std::is_same_v<S, float> && std::is_same_v<D, float> && std::is_same_v<acc_t, float>;
  constexpr bool doubles = std::is_same_v<S, double> && std::is_same_v<D, double> && std::is_same_v<acc_t, double>;
  return RESIZE_AD_AVX2 && (floats || doubles) && inner % (floats ? 8 : 4) == 0 && T <= 4 &&
         T * taps < (T + 2) * span + taps;
}

// Along a line with inner > 1 (fuse_pays), the blend of the T input lines (off, tw) and the last
// axis' table in one sweep: out[o][c] = sum_j w[o][j] * v[start[o] + j][c] with
// v[p][c] = sum_t tw[t] * src[off[t] + p * inner + c], each sum in blend's and inner_line's order,
// so the values are theirs. nt (Sweep::stream_rows): stored non-temporally where out is aligned.
#if RESIZE_AD_AVX2
// The vector operations of fused_rows on W elements E: eight floats or four doubles (AVX2),
// sixteen floats or eight doubles (AVX-512F, for the callers built for it).
struct Floats8 {
  using E = float;
  using T = __m256;
  static constexpr int W = 8;
  static T load(const float* p) { return _mm256_loadu_ps(p); }
  static T set1(float w) { return _mm256_set1_ps(w); }
  static T mul(T a, T b) { return _mm256_mul_ps(a, b); }
  static T fmadd(T a, T b, T c) { return _mm256_fmadd_ps(a, b, c); }
  static void store(float* p, T v) { _mm256_storeu_ps(p, v); }
  static void stream(float* p, T v) { _mm256_stream_ps(p, v); }
};
struct Floats16 {
  using E = float;
  using T = __m512;
  static constexpr int W = 16;
  RESIZE_AD_AVX512 static T load(const float* p) { return _mm512_loadu_ps(p); }
  RESIZE_AD_AVX512 static T set1(float w) { return _mm512_set1_ps(w); }
  RESIZE_AD_AVX512 static T mul(T a, T b) { return _mm512_mul_ps(a, b); }
  RESIZE_AD_AVX512 static T fmadd(T a, T b, T c) { return _mm512_fmadd_ps(a, b, c); }
  RESIZE_AD_AVX512 static void store(float* p, T v) { _mm512_storeu_ps(p, v); }
  RESIZE_AD_AVX512 static void stream(float* p, T v) { _mm512_stream_ps(p, v); }
};
struct Doubles4 {
  using E = double;
  using T = __m256d;
  static constexpr int W = 4;
  static T load(const double* p) { return _mm256_loadu_pd(p); }
  static T set1(double w) { return _mm256_set1_pd(w); }
  static T mul(T a, T b) { return _mm256_mul_pd(a, b); }
  static T fmadd(T a, T b, T c) { return _mm256_fmadd_pd(a, b, c); }
  static void store(double* p, T v) { _mm256_storeu_pd(p, v); }
  static void stream(double* p, T v) { _mm256_stream_pd(p, v); }
};
struct Doubles8 {
  using E = double;
  using T = __m512d;
  static constexpr int W = 8;
  RESIZE_AD_AVX512 static T load(const double* p) { return _mm512_loadu_pd(p); }
  RESIZE_AD_AVX512 static T set1(double w) { return _mm512_set1_pd(w); }
  RESIZE_AD_AVX512 static T mul(T a, T b) { return _mm512_mul_pd(a, b); }
  RESIZE_AD_AVX512 static T fmadd(T a, T b, T c) { return _mm512_fmadd_pd(a, b, c); }
  RESIZE_AD_AVX512 static void store(double* p, T v) { _mm512_storeu_pd(p, v); }
  RESIZE_AD_AVX512 static void stream(double* p, T v) { _mm512_stream_pd(p, v); }
};

// fused_line's loop in vectors of V::W elements (inner a multiple of W): per lane the same
// multiplies and adds in the same order whatever W, so the same values. Always inlined, into
// fused_line (Floats8, Doubles4) and fused_line512 (Floats16, Doubles8), whose targets its
// operations need (the 512-bit type in its signature never crosses a call: hence no -Wpsabi).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
// The blend of the T input lines at element p: fused_line's v[p].
template <typename V, typename E = typename V::E>
RESIZE_AD_INLINE typename V::T fused_blend(const typename V::T* vw, const E* s0, const E* s1, const E* s2,
                                           const E* s3, int64_t T, int64_t p) {
  typename V::T v = V::mul(vw[0], V::load(s0 + p));
  if (T > 1) v = V::fmadd(vw[1], V::load(s1 + p), v);
  if (T > 2) v = V::fmadd(vw[2], V::load(s2 + p), v);
  if (T > 3) v = V::fmadd(vw[3], V::load(s3 + p), v);
  return v;
}

// One output position of fused_rows with N = 1 or 2 taps of the last axis, unrolled.
template <typename V, int TT, int N, typename E = typename V::E>
RESIZE_AD_INLINE void fused_position(const typename V::T* vw, const E* s0, const E* s1, const E* s2,
                                     const E* s3, const E* wo, int64_t p0, int64_t inner, E* d,
                                     bool stream) {
  const typename V::T w0 = V::set1(wo[0]), w1 = V::set1(wo[N - 1]);
  for (int64_t c = 0; c < inner; c += V::W) {
    typename V::T acc = V::mul(w0, fused_blend<V>(vw, s0, s1, s2, s3, TT, p0 + c));
    if (N == 2) acc = V::fmadd(w1, fused_blend<V>(vw, s0, s1, s2, s3, TT, p0 + inner + c), acc);
    if (stream) {
      V::stream(d + c, acc);
    } else {
      V::store(d + c, acc);
    }
  }
}

// With T (1 to 4 leading taps) known to the compiler; positions of one or two taps take
// fused_position, the others a loop over their taps.
template <typename V, int T, typename E = typename V::E>
RESIZE_AD_INLINE void fused_rows(const E* src, const int64_t* off, const E* tw, const Line<E>& L,
                                 int64_t inner, int64_t o0, int64_t o1, E* out, bool nt) {
  typename V::T vw[4];
  for (int64_t t = 0; t < T; ++t) vw[t] = V::set1(tw[t]);
  const E* s0 = src + off[0];
  const E* s1 = src + off[T > 1 ? 1 : 0];
  const E* s2 = src + off[T > 2 ? 2 : 0];
  const E* s3 = src + off[T > 3 ? 3 : 0];
  for (int64_t o = o0; o < o1; ++o) {
    E* __restrict d = out + o * inner;
    const int64_t n = L.len[o];
    const E* wo = L.w.data() + o * L.K;
    const int64_t p0 = L.start[o] * inner;
    if (n == 0) {
      std::fill(d, d + inner, E(0));
      continue;
    }
    const bool stream = nt && (reinterpret_cast<uintptr_t>(d) & (sizeof(E) * V::W - 1)) == 0;
    if (n == 1) {
      fused_position<V, T, 1>(vw, s0, s1, s2, s3, wo, p0, inner, d, stream);
      continue;
    }
    if (n == 2) {
      fused_position<V, T, 2>(vw, s0, s1, s2, s3, wo, p0, inner, d, stream);
      continue;
    }
    for (int64_t c = 0; c < inner; c += V::W) {
      typename V::T acc = V::mul(V::set1(wo[0]), fused_blend<V>(vw, s0, s1, s2, s3, T, p0 + c));
      for (int64_t j = 1; j < n; ++j)
        acc = V::fmadd(V::set1(wo[j]), fused_blend<V>(vw, s0, s1, s2, s3, T, p0 + j * inner + c), acc);
      if (stream) {
        V::stream(d + c, acc);
      } else {
        V::store(d + c, acc);
      }
    }
  }
}
#pragma GCC diagnostic pop

// fused_line's loop in 512-bit vectors (V: Floats16 or Doubles8; inner a multiple of V::W,
// AVX-512F), with the count of leading taps known to the compiler, so that the loop tests none:
// the channels_last bilinear halving of (4, 64, 56, 56), read from the L3 cache, measured 60 ->
// 57-58 us with 1 thread and 37-38 -> 34-35 us with 2 with two taps known (an AMD EPYC, Zen 4).
// fused_line's 256-bit loop (AVX2) likewise.
template <typename V, typename E = typename V::E>
RESIZE_AD_AVX512 void fused_line512(const E* src, const int64_t* off, const E* tw, int64_t T, const Line<E>& L,
                                    int64_t inner, int64_t o0, int64_t o1, E* out, bool nt) {
  switch (T) {  // with_taps' switch: a lambda would not take this function's target
    case 1: return fused_rows<V, 1>(src, off, tw, L, inner, o0, o1, out, nt);
    case 2: return fused_rows<V, 2>(src, off, tw, L, inner, o0, o1, out, nt);
    case 3: return fused_rows<V, 3>(src, off, tw, L, inner, o0, o1, out, nt);
    default: return fused_rows<V, 4>(src, off, tw, L, inner, o0, o1, out, nt);
  }
}
#endif

// float lines in vectors of 8 or 16 floats, double lines in vectors of 4 or 8 doubles
// (channels_last float64 bilinear, 1 thread: (1, 16, 256²) -> 128² 0.46 -> 0.41 ms, (4, 64, 64²)
// -> 21² 0.26 -> 0.20 ms, against native's 0.41 and 0.20 ms).
template <typename S, typename D, typename acc_t>
void fused_line(const S* src, const int64_t* off, const acc_t* tw, int64_t T, const Line<acc_t>& L,
                int64_t inner, int64_t o0, int64_t o1, D* out, bool nt) {
#if RESIZE_AD_AVX2
  // In 512-bit vectors (Wide) where the CPU has them and they divide the position, else in
  // 256-bit ones (Narrow) with the count of leading taps known to the compiler.
  auto in_vectors = [&](auto wide, auto narrow) {
    using Wide = decltype(wide);
    using Narrow = decltype(narrow);
    if (inner % Wide::W == 0 && cpu_has_avx512()) return fused_line512<Wide>(src, off, tw, T, L, inner, o0, o1, out, nt);
    with_taps(T, [&](auto t) { fused_rows<Narrow, decltype(t)::value>(src, off, tw, L, inner, o0, o1, out, nt); });
  };
  if constexpr (std::is_same_v<S, float> && std::is_same_v<D, float> && std::is_same_v<acc_t, float>) {
    return in_vectors(Floats16{}, Floats8{});
  }
  if constexpr (std::is_same_v<S, double> && std::is_same_v<D, double> && std::is_same_v<acc_t, double>) {
    return in_vectors(Doubles8{}, Doubles4{});
  }
#endif
  // Not reached for other types or the baseline build: fuse_pays is false there.
}

// The taps of the leading axes for output line (b, oi[0], ..., oi[m-1]): input line offsets
// (in elements: lines times in_row, the elements of an input line) and products of weights.
// Returns their number (0: a row of a transposed table that reads nothing). The offsets are
// scaled as the last axis writes them, not in a loop after it: that loop, vectorised, read back
// the scalar stores just made (a stalled store-to-load forward per line).
template <typename acc_t>
int64_t lead_taps(const Sweep<acc_t>& P, int64_t b, const int64_t* oi, int64_t in_row, int64_t* off, acc_t* tw) {
  const size_t m = P.lead.size();
  int64_t T = 1;
  off[0] = m == 0 ? b * in_row : b;
  tw[0] = acc_t(1);
  for (size_t i = 0; i < m && T > 0; ++i) {
    const Line<acc_t>& a = *P.lead[i];
    const int64_t s = a.start[oi[i]], n = a.len[oi[i]];
    const int64_t scale = i + 1 == m ? in_row : 1;
    const acc_t* wa = a.w.data() + oi[i] * a.K;
    for (int64_t t = T - 1; t >= 0; --t) {
      const int64_t o_t = off[t] * a.in + s;
      const acc_t w_t = tw[t];
      for (int64_t j = n - 1; j >= 0; --j) {
        off[t * n + j] = (o_t + j) * scale;
        tw[t * n + j] = w_t * wa[j];
      }
    }
    T *= n;
  }
  return T;
}

// Per-thread scratch of a sweep: the blended line, the staged outputs of the vector gather, and
// the taps of the leading axes. Each region starts on a 64-byte boundary (the int64 taps after
// the float buffer would otherwise be misaligned when seg_len is odd).
template <typename acc_t>
struct SweepScratch {
  acc_t* tmp;
  float* obuf;
  int64_t* off;
  acc_t* tw;
  unsigned char* stage;  // one segment of output when the sweep streams (Sweep::stream)
  acc_t* slots;          // the ring (Sweep::ring): slot k at k * slot_len
  int64_t slot_len;

  SweepScratch(const Sweep<acc_t>& P, size_t dst_elem) {
    auto align64 = [](size_t n) { return (n + 63) / 64 * 64; };
    const size_t tmp_bytes = align64((P.last->in * P.inner + 8) * sizeof(acc_t));
    const size_t obuf_bytes = align64((P.seg_len + 8) * sizeof(float));
    const size_t taps_bytes = align64(P.max_taps * (sizeof(int64_t) + sizeof(acc_t)));
    const size_t stage_bytes = align64(P.stream ? P.seg_len * P.inner * dst_elem : 0);
    slot_len = (P.seg_len * P.inner + 15) / 16 * 16;
    const size_t ring_bytes = P.ring * P.nseg * slot_len * sizeof(acc_t);
    unsigned char* base = scratch(tmp_bytes + obuf_bytes + taps_bytes + stage_bytes + ring_bytes + 64);
    tmp = reinterpret_cast<acc_t*>(base);
    obuf = reinterpret_cast<float*>(base + tmp_bytes);
    off = reinterpret_cast<int64_t*>(base + tmp_bytes + obuf_bytes);
    tw = reinterpret_cast<acc_t*>(off + P.max_taps);
    stage = base + tmp_bytes + obuf_bytes + taps_bytes;
    slots = reinterpret_cast<acc_t*>(stage + stage_bytes);
    tmp[P.last->in] = acc_t(0);  // the zero slot (Line::zero_slot; inner == 1 only)
  }
};

// Whether run_sweep prefetches the next line's rows of row_bytes each (of an input larger than
// the caches keep, lines stepping over rows; `taps` rows per line, `step` rows from one line's
// to the next's): short rows, and rows of up to 4 KiB that consecutive lines share (`shared`)
// where a line reads more than four of them; see run_sweep for the measurements. Not lines of
// one or two rows stepping at most two, nor lines of rows over 512 bytes that read as many rows
// as they step: the rows read are then every other one or all of them, which the hardware's
// prefetchers follow, and the prefetches cost more than they brought (the Intel Xeon, 1 / 2
// threads: float64 nearest-exact (17, 5, 275, 140) -> 143 x 66 1.32 -> 1.18 / 0.93 -> 0.62 ms;
// bilinear halving of (16, 32, 256, 128) 4.13 -> 3.62 ms (1 thread); alternating, 4 rounds:
// area (8, 32, 300, 400) -> 100 x 133 18.9 -> 11.1 / 6.3 -> 4.2 ms, trilinear channels_last_3d
// (9, 8, 72, 33, 52) -> (21, 9, 14) 0.94 -> 0.85 / 0.55 -> 0.49 ms). Lines that skip rows keep
// them: bilinear (8, 32, 300, 400) -> 100 x 133 ran 1.25x slower without.
inline bool prefetches_rows(int64_t row_bytes, bool shared, int64_t taps, int64_t step) {
  if ((taps <= 2 && step <= 2) || (taps >= step && row_bytes > 512)) return false;
  return row_bytes > 256 && (row_bytes <= 2048 || (shared && taps > 4 && row_bytes <= 4096));
}

// The rows from one output line's first to the next's along a leading axis a, rounded up: what
// prefetches_rows counts as their step.
template <typename acc_t>
int64_t rows_step(const Line<acc_t>& a) {
  return (a.in + a.out - 1) / std::max<int64_t>(1, a.out);
}

#if RESIZE_AD_AVX2
// Sweeps whose every line is one kernel over the whole line, reading its own input lines (one
// leading axis, one segment; no ring, stage, streaming, pretouch or row prefetch): run_sweep runs
// their lines through own_lines. kHalving: halvings of planes, the line in kStride2Pairs blocks
// (blended_blocks; regular ones their own loop); kPairs, kPairs2: RGBA lines (of two taps:
// kPairs2) whose pixel pairs reach the line's end (blended_pairs, where it pays for the line's
// count of leading taps); kStaged: other gathered lines of one channel per position (the blend
// of the input lines into scratch, then the gather, or downscales of two taps, blended_blocks,
// through scratch from a block it does not take on; lines with halving blocks only so;
// kStagedAhead: those of an input larger than the caches keep whose consecutive lines share no
// rows, the next line's rows prefetched as this line's are blended, blend_ahead, or as its
// blocks reach them, blended_blocks); kRgbHalving: RGB lines of exact halvings
// (Line::regular, blended_rgb_halving; the pixels after the last block of eight one output at a
// time, blended_tail); kRgbPairs: other RGB lines of several taps (blended_pairs where it pays,
// the pixels after the last pair as those of kRgbHalving).
enum class OwnLines { kNone, kHalving, kPairs, kPairs2, kStaged, kStagedAhead, kRgbHalving, kRgbPairs };

inline OwnLines own_lines_of(const Sweep<float>& P) {
  const Line<float>& L = *P.last;
  if (P.lead.size() != 1 || P.nseg != 1 || P.ring != 0 || P.stream || P.stream_rows || P.pretouch ||
      P.inner != 1)
    return OwnLines::kNone;
  // An input larger than the caches keep whose rows run_sweep prefetches (prefetches_rows, any
  // line sharing rows with the next counted as all of them): own_lines does not, so such sweeps
  // stay with run_sweep.
  bool shared = false;
  if (P.prefetch) {
    const Line<float>& a = *P.lead[0];
    for (int64_t o = 1; o < a.out && !shared; ++o)
      shared = a.len[o - 1] > 0 && a.start[o - 1] + a.len[o - 1] > a.start[o];
    if (prefetches_rows((P.seg_hi[0] - P.seg_lo[0]) * int64_t{sizeof(float)}, shared, a.K, rows_step(a)))
      return OwnLines::kNone;
  }
  // Staged lines go through scratch and gather_dispatch, as sweep_segment's do: any length, and
  // ragged pixels (Line::ragged_runs) fixed there.
  const bool staged = L.step == 1 && !L.identity && !L.unit && !L.idx.empty() &&
                      (blended_blocks_pay(L, 2) ||
                       std::none_of(L.blk_loads.begin(), L.blk_loads.end(), [](uint8_t l) { return l == kStride2Pairs; }));
  const OwnLines as_staged = !staged ? OwnLines::kNone : P.prefetch && !shared ? OwnLines::kStagedAhead : OwnLines::kStaged;
  // RGB and RGBA lines with ragged pixels: rewritten after each line (blended_ragged_run).
  if (L.step == 3 && L.K > 1 && !L.regular) return OwnLines::kRgbPairs;
  if (L.step == 3 && L.regular) return OwnLines::kRgbHalving;
  if (L.out % 8 != 0) return as_staged;
  if (L.step == 4 && L.K > 1 && L.pairs_end == L.out) return L.K == 2 ? OwnLines::kPairs2 : OwnLines::kPairs;
  if (!L.ragged_runs.empty()) return as_staged;
  if (blended_blocks_pay(L, 2) &&
      std::all_of(L.blk_loads.begin(), L.blk_loads.end(), [](uint8_t l) { return l == kStride2Pairs; }))
    return OwnLines::kHalving;
  return as_staged;
}

// blend of TT input lines (src + off[t], weights tw[t]) into out[0, n), the same sums in the same
// order, each cache line of the rows `ahead` floats on prefetched as the same one of these is
// read (the next line's rows, spread over this line's blend rather than fetched in a burst).
template <int TT>
inline void blend_ahead(const float* src, const int64_t* off, const float* tw, float* __restrict out, int64_t n,
                        int64_t ahead) {
  const LinesBlend<8, TT> blend8(src, off, tw, TT);
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    for (int t = 0; t < TT; ++t) __builtin_prefetch(blend8.r[t] + j + ahead);
    _mm256_storeu_ps(out + j, blend8.at(j));
    _mm256_storeu_ps(out + j + 8, blend8.at(j + 8));
  }
  if (j < n) blend(src + j, off, tw, TT, out + j, n - j);
}

// Lines [r, r1) of an own_lines_of sweep whose leading taps number TT (two to four), each as
// sweep_segment computes it (blended_blocks, C = 1; blended_pairs, C = 4 and K = KT;
// blended_rgb_halving, C = 3 and REG; blended_pairs, C = 3 and K = KT otherwise; blended_blocks,
// C = 0 downscales of two taps; staged through the scratch line tmp, other C = 0 lines): a function of its own, so that run_sweep's work per line (its
// taps, the dispatch to the line's kernel, a call) is not paid per line (1.26x on bilinear
// halvings of 512 x 512 planes). RGB and RGBA lines where blended_pairs does not pay for TT taps
// (slight downscales, upscales) are staged as C = 0 lines are: RGB 256 x 256 -> 224 x 224
// bilinear 55 -> 51 us, RGBA 69 -> 61 us (1 thread, an EPYC). Returns the first line it did not
// compute: one with another count of taps, or r1.
// REG: a regular line (Line::regular), positions computed and weights broadcast. MEM: an input
// larger than the caches keep (Sweep::prefetch), whose RGB halvings load each pair's taps
// (blended_rgb_halving_line's from_memory) and whose staged lines (kStagedAhead) prefetch the
// next line's rows as they blend (blend_ahead) or, downscales of two taps, as blended_blocks'
// blocks reach them (its `ahead`).
template <int C, int KT, int TT, bool REG, bool MEM = false>
__attribute__((noinline)) int64_t own_lines(const Sweep<float>& P, const float* src, float* dst, int64_t r,
                                            int64_t r1, float* tmp, float* obuf) {
  const Line<float>& a = *P.lead[0];
  const Line<float>& L = *P.last;
  const int64_t in_row = L.in, n = L.out;
  // RGB and RGBA lines where blending each tap's pixel where it is read does not pay: staged, as
  // C = 0 (the blend into scratch, then the gather), in this loop rather than run_sweep's.
  const bool staged = (C == 4 || (C == 3 && !REG)) && !blended_pairs_pay(L, TT);
  const bool rows = C == 0 && blended_blocks_pay(L, TT);
  int64_t b = r / a.out, oi = r % a.out;
  for (; r < r1; ++r) {
    if (a.len[oi] != TT) break;
    int64_t off[4];
    const int64_t first = b * a.in + a.start[oi];
    for (int t = 0; t < TT; ++t) off[t] = (first + t) * in_row;
    const float* const tw = a.w.data() + oi * a.K;
    float* const out = dst + r * n;
    // MEM: how far on the next line's rows are (0: none), prefetched as this line is resampled.
    const int64_t next = MEM && oi + 1 < a.out ? (a.start[oi + 1] - a.start[oi]) * in_row : 0;
    if (C == 0 || staged) {
      // Downscales of two taps: each block's loads blended where read (blended_blocks); the
      // rest, from a block they do not take on (o), and the other lines: the blend into
      // scratch, then the gather.
      const int64_t o = C == 0 && rows ? blended_blocks_body<TT>(src, off, tw, L, 0, n, out, next) : 0;
      if (o < n) {
        const int64_t lo = o > 0 ? rest_from(L, o, n, P.seg_lo[0], P.seg_hi[0]) : P.seg_lo[0], hi = P.seg_hi[0];
        if (hi > lo) {
          if constexpr (MEM) {  // the next line's rows prefetched as this line's are blended
            blend_ahead<TT>(src + lo, off, tw, tmp + lo, hi - lo, next);
          } else {
            blend(src + lo, off, tw, TT, tmp + lo, hi - lo);
          }
        }
        gather_dispatch(static_cast<const float*>(tmp), L, o, n, out, obuf);
      }
    } else if constexpr (C == 3) {
      // The pixels after the last block of eight (REG) or pair: one output at a time, blended
      // where read (blended_tail).
      const int64_t o = REG ? blended_rgb_halving_body<TT, !MEM>(src, off, tw, L, 0, n, out)
                            : blended_pairs_body<3, KT, TT>(src, off, tw, L, 0, n, out);
      blended_tail<TT>(src, off, tw, L, o, n, out);
      if (!REG && !L.ragged_runs.empty()) blended_ragged_run<TT>(src, off, tw, L, 0, n, out);
    } else if constexpr (REG) {
      // Each block's (C = 1) or pixel pair's (C = 4) loads 16 floats after the last's, and the
      // same two weights.
      const LinesBlend<8, TT> blend8(src, off, tw, TT);
      const __m256 w0 = _mm256_set1_ps(L.wt[0]), w1 = _mm256_set1_ps(L.wt[n]);
      const int64_t q0 = C == 1 ? L.blk_pos[0] + L.blk_rel[0] : L.idx[0];
      const int64_t done = cpu_has_avx512() ? regular_halving16<C, TT>(src, off, tw, L, q0, n, out) : 0;
      for (int64_t k = done / 8; k < n / 8; ++k) {
        const int64_t q = q0 + 16 * k;
        const __m256 x = blend8.at(q), c = blend8.at(q + 8);
        __m256 acc;
        if constexpr (C == 1) {
          acc = _mm256_mul_ps(w0, every_second(x, c));
          acc = _mm256_fmadd_ps(w1, every_second<true>(x, c), acc);
        } else {
          acc = _mm256_mul_ps(w0, _mm256_permute2f128_ps(x, c, 0x20));
          acc = _mm256_fmadd_ps(w1, _mm256_permute2f128_ps(x, c, 0x31), acc);
        }
        _mm256_storeu_ps(out + 8 * k, acc);
      }
    } else if constexpr (C == 1) {
      blended_blocks_body<TT>(src, off, tw, L, 0, n, out);
    } else if constexpr (C == 4) {
      blended_pairs_body<C, KT, TT>(src, off, tw, L, 0, n, out);
      if (!L.ragged_runs.empty()) blended_ragged_run<TT>(src, off, tw, L, 0, n, out);
    }
    if (++oi == a.out) oi = 0, ++b;
  }
  return r;
}

#endif

// Outputs [o0, o1) of one output line, whose leading taps are (off, tw)[0, T) (offsets already
// in elements).
template <typename src_t, typename dst_t, typename acc_t>
void sweep_segment(const Sweep<acc_t>& P, const src_t* src, dst_t* drow, int64_t sg, int64_t o0,
                   int64_t o1, const SweepScratch<acc_t>& S, const int64_t* off, const acc_t* tw,
                   int64_t T) {
  const Line<acc_t>& last = *P.last;
  const int64_t inner = P.inner;
  const bool direct = T == 1 && tw[0] == acc_t(1);
  // The output line streamed out by its own stores; never a slot of the ring, which is re-read.
  const bool stream = P.stream_rows && P.ring == 0;
  if (last.identity) {
    blend(src + o0 * inner, off, tw, T, drow + o0 * inner, (o1 - o0) * inner);
    return;
  }
  if (last.unit && direct) {  // nearest along every axis: a gather of the input line
    if (inner == 1) {
      copy_line(src + off[0], last, o0, o1, drow);
      return;
    }
#if RESIZE_AD_AVX2
    // A copy moves bits: float16 and bfloat16 positions of 16 to 128 channels (a multiple of
    // 16) copy as half as many floats.
    if constexpr (std::is_same_v<src_t, dst_t> && std::is_same_v<acc_t, float>) {
      const int64_t floats = inner * static_cast<int64_t>(sizeof(src_t)) / 4;
      if ((inner * sizeof(src_t)) % 32 == 0 && floats <= kUnitCopyMax &&
          (!stream || (reinterpret_cast<uintptr_t>(drow) & 31) == 0)) {
        return with_vectors(floats, stream, [&](auto v, auto n) {
          unit_copy<decltype(v)::value, decltype(n)::value>(reinterpret_cast<const float*>(src + off[0]), last,
                                                            floats, o0, o1, reinterpret_cast<float*>(drow));
        });
      }
    }
#endif
    inner_line(src + off[0], last, inner, o0, o1, drow, stream);
    return;
  }
  const int64_t lo = P.seg_lo[sg], hi = P.seg_hi[sg];
  if (inner == 1) {
    const acc_t* row;
    int64_t o = o0;
    if (direct && std::is_same_v<src_t, acc_t>) {
      row = reinterpret_cast<const acc_t*>(src) + off[0];
    } else {
      int64_t from = lo;
#if RESIZE_AD_AVX2
      if constexpr (std::is_same_v<src_t, float> && std::is_same_v<dst_t, float> && std::is_same_v<acc_t, float>) {
        const bool rgb = blended_rgb_halving_pays(last, T);
        const bool blocks = blended_blocks_pay(last, T), picks = blended_picks_pay(last, T);
        if (rgb || blocks || picks || blended_pairs_pay(last, T)) {
          o = rgb      ? blended_rgb_halving_line(src, off, tw, T, last, o0, o1, drow, P.prefetch)
              : blocks ? blended_blocks(src, off, tw, T, last, o0, o1, drow)
              : picks  ? blended_picks(src, off, tw, T, last, o0, o1, drow)
                       : blended_pairs_line(src, off, tw, T, last, o0, o1, drow);
          if (o >= o1) return;
          if (o > o0) from = rest_from(last, o, o1, lo, hi);  // the rest through scratch: the span its taps read
        }
      }
#endif
      if (hi > from) blend(src + from, off, tw, T, S.tmp + from, hi - from);
      row = S.tmp;
    }
    gather_dispatch(row, last, o, o1, drow, S.obuf);
  } else if (direct) {
    inner_line(src + off[0], last, inner, o0, o1, drow, stream);
  } else if (fuse_pays<src_t, dst_t, acc_t>(inner, T, last.sum_len * (o1 - o0) / last.out, hi - lo)) {
    fused_line(src, off, tw, T, last, inner, o0, o1, drow, stream);
  } else {
    if (hi > lo) blend(src + lo * inner, off, tw, T, S.tmp + lo * inner, (hi - lo) * inner);
    inner_line(static_cast<const acc_t*>(S.tmp), last, inner, o0, o1, drow, stream);
  }
}

// Per-thread state of the ring of rows (Sweep::ring): per segment of the line, `ring` slots
// (slot j of segment sg at (sg * ring + j) * slot_len in SweepScratch::slots), the input line
// each holds (key, -1: none) and the slot to take next.
struct Ring {
  int64_t n;
  c10::SmallVector<int64_t, 8> key;
  c10::SmallVector<int64_t, 2> next;
  Ring(int64_t slots, int64_t nseg) : n(slots) {
    if (n > 0) key.assign(n * nseg, -1), next.assign(nseg, 0);
  }
};

// The slots of segment sg that hold input lines lines[0, T) (offsets in elements), each
// resampled along the last axis (outputs [o0, o1)) into the oldest slot the line does not read
// unless a slot holds it already: slot[t] for lines[t]. Returns the segment's first slot.
template <typename src_t, typename acc_t>
acc_t* fill_slots(const Sweep<acc_t>& P, const src_t* src, int64_t sg, int64_t o0, int64_t o1,
                const SweepScratch<acc_t>& S, Ring& R, const int64_t* lines, int64_t T, int64_t* slot) {
  int64_t* key = R.key.data() + sg * R.n;
  uint32_t used = 0;  // slots this line reads (R.n <= 16)
  for (int64_t t = 0; t < T; ++t) {
    slot[t] = -1;
    for (int64_t j = 0; j < R.n; ++j) {
      if (key[j] == lines[t]) {
        slot[t] = j;
        used |= 1u << j;
        break;
      }
    }
  }
  acc_t* const slots = S.slots + sg * R.n * S.slot_len;
  int64_t& next = R.next[sg];
  for (int64_t t = 0; t < T; ++t) {
    if (slot[t] >= 0) continue;
    while (used >> next & 1u) next = next + 1 == R.n ? 0 : next + 1;
    const int64_t j = next;
    key[j] = lines[t];
    used |= 1u << j;
    slot[t] = j;
    const acc_t one = acc_t(1);  // the input line alone, resampled along the last axis
    sweep_segment(P, src, slots + j * S.slot_len - o0 * P.inner, sg, o0, o1, S, &key[j], &one, 1);
  }
  return slots;
}

// Outputs [o0, o1) of segment sg of one output line through the ring: the input lines of its T
// leading taps (S.off, in elements) in slots (fill_slots), blended with the taps' weights.
template <typename src_t, typename dst_t, typename acc_t>
void ring_line(const Sweep<acc_t>& P, const src_t* src, dst_t* line, int64_t sg, int64_t o0,
               int64_t o1, const SweepScratch<acc_t>& S, int64_t T, Ring& R) {
  int64_t slot[16];
  const acc_t* const slots = fill_slots(P, src, sg, o0, o1, S, R, S.off, T, slot);
  for (int64_t t = 0; t < T; ++t) S.off[t] = slot[t] * S.slot_len;
  blend(slots, S.off, S.tw, T, line + o0 * P.inner, (o1 - o0) * P.inner, P.stream_rows);
}

#if RESIZE_AD_AVX2
// Whether run_sweep takes a ring sweep's lines through ring_lines: float, one leading axis, one
// segment, and nothing per line besides the ring (no stage, pretouch or row prefetch).
inline bool ring_lines_of(const Sweep<float>& P) {
  return P.ring > 0 && P.lead.size() == 1 && P.nseg == 1 && !P.stream && !P.pretouch && !P.prefetch;
}

// Lines [r, r1) of a ring_lines_of sweep whose leading taps number TT (two to four), each as
// run_sweep's ring_line computes it (the same slots taken, the same sums), in a loop of its own:
// the taps read from the leading line directly, no work per line besides the ring's (a line
// with the taps of the one before is computed again rather than copied: the same values). RGB
// and RGBA channels_last bilinear 224² -> 256² ran 1.12x-1.18x faster so, bicubic RGBA
// 1.03x-1.07x, a plane's bilinear 512² -> 1024² 1.10x (1 thread, an EPYC). Returns the first
// line it did not compute: one with another count of taps, or r1.
template <int TT>
__attribute__((noinline)) int64_t ring_lines(const Sweep<float>& P, const float* src, float* dst, int64_t r,
                                             int64_t r1, const SweepScratch<float>& S, Ring& R) {
  const Line<float>& a = *P.lead[0];
  const int64_t in_row = P.last->in * P.inner, out_row = P.last->out * P.inner, n = P.last->out;
  int64_t b = r / a.out, oi = r % a.out;
  for (; r < r1; ++r) {
    if (a.len[oi] != TT) break;
    int64_t lines[TT], slot[TT];
    for (int t = 0; t < TT; ++t) lines[t] = (b * a.in + a.start[oi] + t) * in_row;
    const float* const slots = fill_slots(P, src, 0, 0, n, S, R, lines, TT, slot);
    for (int t = 0; t < TT; ++t) lines[t] = slot[t] * S.slot_len;  // now the slots' offsets
    blend(slots, lines, a.w.data() + oi * a.K, TT, dst + r * out_row, out_row, P.stream_rows);
    if (++oi == a.out) oi = 0, ++b;
  }
  return r;
}
#endif

// Runs a Sweep: every output line (b, o_1, ..., o_{k-1}), split in segments along the last
// axis when there are too few lines to keep every thread busy. Threads: torch's intra-op pool,
// in chunks (parallel.h).
template <typename src_t, typename dst_t, typename acc_t>
void run_sweep(const Sweep<acc_t>& P, const src_t* src, dst_t* dst) {
  const Line<acc_t>& last = *P.last;
  const int64_t m = static_cast<int64_t>(P.lead.size());
  const int64_t in_row = last.in * P.inner, out_row = last.out * P.inner;

  // Where item (line r, segment sg) starts in dst; items are in memory order.
  auto item_at = [&](int64_t item) {
    const int64_t r = item / P.nseg, o = std::min(last.out, (item % P.nseg) * P.seg_len);
    return reinterpret_cast<char*>(dst + r * out_row + o * P.inner);
  };

#if RESIZE_AD_AVX2
  OwnLines own = OwnLines::kNone;
  bool own_ring = false;
  if constexpr (std::is_same_v<src_t, float> && std::is_same_v<dst_t, float> && std::is_same_v<acc_t, float>) {
    own = own_lines_of(P);
    own_ring = ring_lines_of(P);
  }
#endif
  // The ring of rows, one per thread for the whole sweep (Sweep::ring): the lines its slots hold
  // (in the thread's scratch) stay valid from one of the thread's chunks to the next, so that a
  // chunk following the thread's last resamples only the input lines it adds, not its whole
  // window again. With 2 threads a sweep of 256 lines ran in 16 chunks; channels_last RGBA
  // bicubic 224² -> 256² then resampled a fifth more input lines than with 1.
  // Copies along every axis (nearest), lines of one channel whose rows run_sweep would not
  // prefetch: each line a copy_line from its one input row, found from the leading axes' starts
  // alone, or the line before copied where the leading taps repeat (upscales). Without the
  // per-line work below (the taps, the prefetch's tests, sweep_segment's dispatch): 3-D
  // nearest-exact (4, 32, 42, 38, 21) -> (31, 26, 16), lines of 16 outputs, 2823 -> 1467 us;
  // NCHW nearest (8, 64, 64²) -> 128 x 48 1430 -> 880 us, three planes 256² -> 224² 46 -> 41 us
  // (1 thread, the Intel Xeon).
  const bool copies = lead_copies(P) && m > 0 && last.unit && !last.identity && P.inner == 1 && P.nseg == 1 &&
                      P.ring == 0 && !P.stream && !P.stream_rows && !P.pretouch &&
                      !(P.prefetch && prefetches_rows((P.seg_hi[0] - P.seg_lo[0]) * int64_t{sizeof(src_t)}, false, 1,
                                                      rows_step(*P.lead[m - 1])));
  const bool one_thread = at::get_num_threads() <= 1 || at::in_parallel_region();
  c10::SmallVector<Ring, 2> rings(P.ring > 0 ? (one_thread ? 1 : at::get_num_threads()) : 0, Ring(P.ring, P.nseg));
  parallel_chunks(0, P.rows * P.nseg, P.grain, [&](int64_t begin, int64_t end) {
    const SweepScratch<acc_t> S(P, sizeof(dst_t));
    // Sweep::pretouch: the chunk's bytes [item_at(begin), item_at(end)) are its own; one store
    // per page faults them in, up to 64 KiB past the item about to be computed.
    char* const chunk_end = P.pretouch ? item_at(end) : nullptr;
    char* touched = P.pretouch ? item_at(begin) : nullptr;
    auto touch_to = [&](const char* next) {
      constexpr uintptr_t page = 4096;
      const uintptr_t t = reinterpret_cast<uintptr_t>(touched);
      const uintptr_t e = std::min(reinterpret_cast<uintptr_t>(next) + (uintptr_t{64} << 10),
                                   reinterpret_cast<uintptr_t>(chunk_end));
      if (e <= t) return;
      *touched = 0;
      for (uintptr_t q = (t + page) & ~(page - 1); q < e; q += page) touched[q - t] = 0;
      touched += e - t;
    };
    Ring none(0, P.nseg);
    Ring& ring = rings.empty() ? none : rings[one_thread ? 0 : at::get_thread_num()];
    // Streaming: segments are computed into S.stage (indexed as the line is) and streamed out;
    // `staged` is the item whose values the stage holds.
    int64_t staged = -1;
    int64_t prev_off = 0;  // the previous line's first leading tap, for the prefetch below
    // Item = (line r, segment sg); line r = (b, oi[0], ..., oi[m-1]). Advanced as an odometer.
    int64_t r, sg, b;
    int64_t oi[8] = {0};
    auto seek = [&](int64_t item) {
      r = item / P.nseg, sg = item % P.nseg, b = r;
      for (int64_t i = m - 1; i >= 0; --i) {
        oi[i] = b % P.lead[i]->out;
        b /= P.lead[i]->out;
      }
    };
    seek(begin);
    auto advance = [&] {
      if (++sg < P.nseg) return;
      sg = 0;
      ++r;
      for (int64_t i = m - 1; i >= 0; --i) {
        if (++oi[i] < P.lead[i]->out) return;
        oi[i] = 0;
      }
      ++b;
    };
    for (int64_t item = begin; item < end; ++item, advance()) {
#if RESIZE_AD_AVX2
      if constexpr (std::is_same_v<src_t, float> && std::is_same_v<dst_t, float> && std::is_same_v<acc_t, float>) {
        // An own_lines_of sweep: the lines from here on that have two to four leading taps
        // through own_lines; the first that has not (or none), below.
        if (const int64_t T = own != OwnLines::kNone ? P.lead[0]->len[oi[0]] : 0; T >= 2 && T <= 4) {
          item = with_lines(T, [&](auto t) {
            constexpr int TT = decltype(t)::value;
            const bool reg = P.last->regular;
            switch (own) {
              case OwnLines::kHalving:
                return reg ? own_lines<1, 2, TT, true>(P, src, dst, item, end, S.tmp, S.obuf)
                           : own_lines<1, 2, TT, false>(P, src, dst, item, end, S.tmp, S.obuf);
              case OwnLines::kPairs2:
                return reg ? own_lines<4, 2, TT, true>(P, src, dst, item, end, S.tmp, S.obuf)
                           : own_lines<4, 2, TT, false>(P, src, dst, item, end, S.tmp, S.obuf);
              case OwnLines::kStaged:
                return own_lines<0, 0, TT, false>(P, src, dst, item, end, S.tmp, S.obuf);
              case OwnLines::kStagedAhead:
                return own_lines<0, 0, TT, false, true>(P, src, dst, item, end, S.tmp, S.obuf);
              case OwnLines::kRgbHalving:
                return P.prefetch ? own_lines<3, 2, TT, true, true>(P, src, dst, item, end, S.tmp, S.obuf)
                                  : own_lines<3, 2, TT, true>(P, src, dst, item, end, S.tmp, S.obuf);
              case OwnLines::kRgbPairs:
                return P.last->K == 2   ? own_lines<3, 2, TT, false>(P, src, dst, item, end, S.tmp, S.obuf)
                       : P.last->K == 4 ? own_lines<3, 4, TT, false>(P, src, dst, item, end, S.tmp, S.obuf)
                                        : own_lines<3, 0, TT, false>(P, src, dst, item, end, S.tmp, S.obuf);
              default:
                return P.last->K == 4 ? own_lines<4, 4, TT, false>(P, src, dst, item, end, S.tmp, S.obuf)
                                      : own_lines<4, 0, TT, false>(P, src, dst, item, end, S.tmp, S.obuf);
            }
          });
          if (item == end) break;
          seek(item);
        }
        if (const int64_t T = own_ring ? P.lead[0]->len[oi[0]] : 0; T >= 2 && T <= 4) {
          item = with_lines(T, [&](auto t) {
            return ring_lines<decltype(t)::value>(P, src, dst, item, end, S, ring);
          });
          if (item == end) break;
          seek(item);
        }
      }
#endif
      if (P.pretouch) touch_to(item_at(item + 1));
      const int64_t o0 = sg * P.seg_len;
      const int64_t o1 = std::min(last.out, o0 + P.seg_len);
      dst_t* const drow = dst + r * out_row;
      const size_t seg_bytes = (o1 - o0) * P.inner * sizeof(dst_t);
      // Same leading taps as the previous line, already written by this thread: copy it (from
      // the stage when it holds that line's segment). A line streamed out by its own stores
      // (stream_rows) has left the cache: computing it again reads less.
      if (m > 0 && oi[m - 1] > 0 && P.lead[m - 1]->same_prev[oi[m - 1]] && item - P.nseg >= begin) {
        if (!P.stream && !P.stream_rows) {
          std::memcpy(drow + o0 * P.inner, drow - out_row + o0 * P.inner, seg_bytes);
          continue;
        }
        if (staged == item - P.nseg) {
          stream_copy(drow + o0 * P.inner, S.stage, seg_bytes);
          staged = item;
          continue;
        }
      }
      if (copies) {  // (a repeated line copied above)
        int64_t off = b;
        for (int64_t i = 0; i < m; ++i) off = off * P.lead[i]->in + P.lead[i]->start[oi[i]];
        copy_line(src + off * in_row, last, 0, last.out, drow);
        continue;
      }
      // Where this segment is computed: the line itself, or the stage standing in for it.
      dst_t* line = P.stream ? reinterpret_cast<dst_t*>(S.stage) - o0 * P.inner : drow;
      const int64_t T = lead_taps(P, b, oi, in_row, S.off, S.tw);
      if (T == 0) {
        std::fill(line + o0 * P.inner, line + o1 * P.inner, dst_t(0));
      } else {
        // Leading axes that step more than one input line per output line (downscales, and the
        // backward of upscales, whose transposed tables step two lines per line), where the rows
        // read are short: the hardware prefetchers do not see the jump to the next line's rows, so
        // fetch them now, `ahead` lines ahead (as many as keep about 16 KiB in flight, at most
        // four), assuming the same step as from the previous line to this one (wrong only where a
        // plane ends). Nearest-exact and area downscales of rows of 112 and 128 floats measured
        // 1.4x-2.3x faster with them; where consecutive lines share rows (T > step / in_row),
        // bilinear x2 backwards of 128-float rows 1.2x-1.3x, antialiased and bicubic downscales of
        // 1000- and 1024-float rows 1.1x-1.3x with one thread (0.93x-1.05x with two). On an AMD
        // EPYC (Zen 4) the prefetches of lines of four such rows stalled the thread (bicubic
        // downscales of three 600 x 800 and 1000 x 1000 planes to 224 and 400: 1.2x-1.6x faster
        // without them, 1 and 2 threads), while antialiased bilinear 1024 -> 224 (ten rows a
        // line) still gained with one thread: rows of 2 to 4 KiB are prefetched for lines of
        // more than four. Rows of at
        // most 64 floats the prefetchers follow themselves: there the prefetches measured
        // 1.06x-1.12x slower (antialiased, area and bilinear halvings of 64 x 64 planes); so they
        // did on rows of 768 to 1024 floats that consecutive lines do not share (bilinear, area and
        // nearest-exact downscales: 1.06x-1.25x slower), and on rows longer than a page where lines
        // share them (1.1x-1.2x, rows of 1280 floats and more; bicubic / 2). Lines that step one
        // row or none (upscales) read the rows the previous line read or the next one. Inputs
        // the caches keep are not prefetched (Sweep::prefetch).
        const int64_t step = S.off[0] - prev_off;
        prev_off = S.off[0];
        const int64_t lo = P.seg_lo[sg] * P.inner, hi = P.seg_hi[sg] * P.inner;
        const int64_t row_bytes = (hi - lo) * static_cast<int64_t>(sizeof(src_t));
        const bool shared = T * in_row > step;  // consecutive lines read some rows in common
        if (P.prefetch && step > in_row && prefetches_rows(row_bytes, shared, T, step / in_row)) {
          const int64_t bytes = T * row_bytes;
          const int64_t ahead = std::clamp<int64_t>((int64_t{16} << 10) / bytes, 1, 4);
          constexpr int64_t per_line = 64 / sizeof(src_t);
          for (int64_t t = 0; t < T; ++t) {
            const src_t* next = src + S.off[t] + ahead * step;
            for (int64_t j = lo; j < hi; j += per_line) __builtin_prefetch(next + j);
          }
        }
        if (P.ring) {
          ring_line(P, src, line, sg, o0, o1, S, T, ring);
        } else {
          sweep_segment(P, src, line, sg, o0, o1, S, S.off, S.tw, T);
        }
      }
      if (P.stream) {
        stream_copy(drow + o0 * P.inner, S.stage, seg_bytes);
        staged = item;
      }
    }
#if defined(__SSE2__)
    if (P.stream || P.stream_rows) _mm_sfence();  // streamed lines visible when the region ends
#endif
  }, P.interleave);
}
