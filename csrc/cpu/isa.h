// The instruction sets the CPU kernels are built for. The kernel files (line_sweep.h,
// fixed_point_kernels.h) are compiled twice, once for the baseline ISA and once under
// `#pragma GCC target("avx2,fma,f16c")`; cpu_has_avx2() picks one at run time.
#pragma once

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define RESIZE_AD_HAVE_AVX2_BUILD 1
#else
#define RESIZE_AD_HAVE_AVX2_BUILD 0
#endif

namespace resize_ad {

inline bool cpu_has_avx2() {
#if RESIZE_AD_HAVE_AVX2_BUILD
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
  return ok;
#else
  return false;
#endif
}

// Whether the CPU (and the OS, which saves the 512-bit registers) has AVX-512F: the AVX2 build's
// kernels bound by their arithmetic on lines of many channels then run in 512-bit vectors
// (line_sweep.h RESIZE_AD_AVX512).
inline bool cpu_has_avx512() {
#if RESIZE_AD_HAVE_AVX2_BUILD
  static const bool ok = cpu_has_avx2() && __builtin_cpu_supports("avx512f");
  return ok;
#else
  return false;
#endif
}

// Whether the CPU has AVX-512VL and DQ (512-bit permutes on 256-bit halves): the plane lines'
// picks of 16 and 32 floats (line_sweep.h planned_run512).
inline bool cpu_has_avx512vl() {
#if RESIZE_AD_HAVE_AVX2_BUILD
  static const bool ok = cpu_has_avx512() && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
  return ok;
#else
  return false;
#endif
}

// Whether the CPU has AVX-512BW (512-bit integer madds): planar uint8 passes of 16-tap windows
// (fixed_point_kernels.h planar16_512).
inline bool cpu_has_avx512bw() {
#if RESIZE_AD_HAVE_AVX2_BUILD
  static const bool ok = cpu_has_avx512() && __builtin_cpu_supports("avx512bw");
  return ok;
#else
  return false;
#endif
}

// Whether the CPU has AVX-512VBMI (byte permutes across the 512-bit vector, with BW): uint8
// channels_last results copied into planes (planar_copy.cpp).
inline bool cpu_has_avx512vbmi() {
#if RESIZE_AD_HAVE_AVX2_BUILD
  static const bool ok = cpu_has_avx512bw() && __builtin_cpu_supports("avx512vbmi");
  return ok;
#else
  return false;
#endif
}

// Whether the CPU has AVX-512's bfloat16 conversion (and DQ and VL for its 256-bit forms):
// float to bfloat16 stores then take one conversion per eight floats (line_sweep.h
// bf16_store_rows).
inline bool cpu_has_avx512bf16() {
#if RESIZE_AD_HAVE_AVX2_BUILD
  static const bool ok = cpu_has_avx512() && __builtin_cpu_supports("avx512bf16") &&
                         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
  return ok;
#else
  return false;
#endif
}

}  // namespace resize_ad
