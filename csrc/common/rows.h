// One table row per output index, for every mode: the window start, its length and its weights,
// in native's exact arithmetic. The host table builder (tables.cpp) runs these in a loop; a device
// kernel can run the same code (everything here is C10_HOST_DEVICE, allocation-free: the caller
// provides a weight buffer of row_capacity() entries).
//
// Precision: T is ATen's opmath type for the dtype (float for float32 and the half types, double
// for float64; double for ATen's uint8 tables). Rounding: native's CPU kernels are compiled once
// per capability (aten/src/ATen/native/cpu/UpSampleKernel.cpp is built for DEFAULT, AVX2 and
// AVX512), and GCC contracts a * b + c into one fused multiply-add wherever the target has FMA:
// the DEFAULT kernels round the product, the AVX2/AVX512 kernels do not. nvcc contracts too. The
// template parameter Fma says which of the two a table reproduces; mul_add() is the one place
// where it matters, used exactly at the expressions native's compiled kernels contract (found by
// comparing one-hot outputs of native's kernels with these rows under each capability:
// tests/test_tables_exact.py).
#pragma once

#include <c10/macros/Macros.h>
#include <cmath>
#include <cstdint>

#include "filters.h"

namespace resize_ad {
namespace rows {

// a * b, rounded: on a CUDA device the explicit intrinsics keep nvcc from fusing it with the add
// that follows (the host build has no FMA contraction: setup.py does not target FMA hardware).
C10_HOST_DEVICE inline float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
C10_HOST_DEVICE inline double mul_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
C10_HOST_DEVICE inline float fused(float a, float b, float c) { return fmaf(a, b, c); }
C10_HOST_DEVICE inline double fused(double a, double b, double c) { return fma(a, b, c); }

// a * b + c as native's kernel computes it: rounded once (contracted) or twice.
template <bool Fma, typename T>
C10_HOST_DEVICE inline T mul_add(T a, T b, T c) {
  if constexpr (Fma) {
    return fused(a, b, c);
  } else {
    return mul_rn(a, b) + c;
  }
}

// UpSample.h area_pixel_compute_source_index: scale * (dst + 0.5) - 0.5 is one fma in the
// contracted kernels.
template <bool Fma, typename T>
C10_HOST_DEVICE inline T source_index(T scale, int64_t dst, bool align_corners, bool cubic) {
  if (align_corners) return mul_rn(scale, static_cast<T>(dst));
  const T src = mul_add<Fma>(scale, static_cast<T>(dst) + static_cast<T>(0.5), static_cast<T>(-0.5));
  return (!cubic && src < static_cast<T>(0)) ? static_cast<T>(0) : src;
}

// UpSample.h cubic_convolution1 / cubic_convolution2 as get_cubic_upsample_coefficients
// (bicubic without antialias) runs them in the contracted kernels: of
//   cubic_convolution1 = ((A + 2) * x - (A + 3)) * x * x + 1
//   cubic_convolution2 = ((A * x - 5 * A) * x + 8 * A) * x - 4 * A
// every step but the last is one fma; the last step of each is rounded twice. Found by matching
// native's AVX2 weights bit for bit: on 7526 interior rows of random sizes (both align_corners)
// every other choice for the last steps and for the middle step of cubic_convolution2 differs
// in a third to three quarters of the rows; the border rows of 4 -> 6 (align_corners) settle
// the first step of cubic_convolution2. The first step of cubic_convolution1 gave the same bits
// fused or not on every row tried; it is taken fused, like its twin.
template <bool Fma, typename T>
C10_HOST_DEVICE inline T cubic1(T x, T A) {
  const T p = mul_add<Fma>(A + static_cast<T>(2), x, -(A + static_cast<T>(3)));
  return mul_rn(mul_rn(p, x), x) + static_cast<T>(1);
}
template <bool Fma, typename T>
C10_HOST_DEVICE inline T cubic2(T x, T A) {
  const T p = mul_add<Fma>(A, x, -(static_cast<T>(5) * A));
  const T q = mul_add<Fma>(p, x, static_cast<T>(8) * A);
  return mul_rn(q, x) - static_cast<T>(4) * A;
}

// The same polynomials as the filters of the PIL-style windows and of the uint8 tables evaluate
// them (UpSampleKernel.cpp HelperInterpCubic::aa_filter, called through a function pointer):
// there every step is one fma, cubic_convolution2 is Horner's scheme in three. Found as above,
// on native's antialias (A = -0.5) and uint8 (A = -0.75) tables.
template <bool Fma, typename T>
C10_HOST_DEVICE inline T cubic1_filter(T x, T A) {
  const T p = mul_add<Fma>(A + static_cast<T>(2), x, -(A + static_cast<T>(3)));
  return mul_add<Fma>(mul_rn(p, x), x, static_cast<T>(1));
}
template <bool Fma, typename T>
C10_HOST_DEVICE inline T cubic2_filter(T x, T A) {
  const T p = mul_add<Fma>(A, x, -(static_cast<T>(5) * A));
  const T q = mul_add<Fma>(p, x, static_cast<T>(8) * A);
  return mul_add<Fma>(q, x, -(static_cast<T>(4) * A));
}

// Everything a row depends on besides o, fixed per axis (axis_params() in tables.cpp fills it).
template <typename T>
struct AxisParams {
  Mode mode = Mode::Nearest;
  bool align_corners = false;
  bool stretch = false;     // antialias: the filter widens by the scale when downsampling
  bool uint8 = false;       // ATen's uint8 linear / cubic tables (before int16 quantisation)
  int64_t in = 0, out = 0;
  T scale = 0;              // area_pixel_compute_scale<T>
  // PIL-style windows (UpSampleKernel.cpp _compute_index_ranges_weights):
  T support = 0;
  T invscale = 1;
  int64_t max_taps = 1;
};

// Weights a row can hold at most (the buffer size the caller provides).
template <typename T>
C10_HOST_DEVICE inline int64_t row_capacity(const AxisParams<T>& p) {
  switch (p.mode) {
    case Mode::Nearest:
    case Mode::NearestExact:
      return 1;
    case Mode::Area: {  // ceil(in / out) + 1 covers every bin
      return (p.in + p.out - 1) / p.out + 1;
    }
    case Mode::Linear:
      if (!p.stretch && !p.uint8) return 2;
      break;
    case Mode::Cubic:
      if (!p.stretch && !p.uint8) return 4;
      break;
    default:
      break;
  }
  if (p.uint8 && !p.stretch) return p.mode == Mode::Cubic ? 4 : 2;
  return p.max_taps;
}

// Nearest: UpSampleKernel.cpp HelperInterpNearest::compute_indices_weights (scale * o, floored
// in float). No add: nothing to contract.
template <typename T>
C10_HOST_DEVICE inline int64_t nearest_row(const AxisParams<T>& p, int64_t o, int64_t& start,
                                           double* w) {
  const T real = source_index<false>(p.scale, o, /*align_corners=*/true, false);
  const int64_t i = static_cast<int64_t>(floorf(static_cast<float>(real)));
  start = i < p.in - 1 ? i : p.in - 1;
  w[0] = 1.0;
  return 1;
}

// Nearest-exact: HelperInterpNearestExact (round half up of the pixel-centre index; the + 0.5 is
// a double literal, so that sum is taken in double).
template <bool Fma, typename T>
C10_HOST_DEVICE inline int64_t nearest_exact_row(const AxisParams<T>& p, int64_t o, int64_t& start,
                                                 double* w) {
  const T real = source_index<Fma>(p.scale, o, /*align_corners=*/false, false);
  const int64_t i = static_cast<int64_t>(floorf(static_cast<float>(real + 0.5)));
  start = i < p.in - 1 ? i : p.in - 1;
  w[0] = 1.0;
  return 1;
}

// Linear: UpSample.h compute_source_index_and_lambda.
template <bool Fma, typename T>
C10_HOST_DEVICE inline int64_t linear_row(const AxisParams<T>& p, int64_t o, int64_t& start,
                                          double* w) {
  if (p.in == p.out) {  // ATen copies
    start = o;
    w[0] = 1.0;
    return 1;
  }
  const T real = source_index<Fma>(p.scale, o, p.align_corners, /*cubic=*/false);
  int64_t i0;
  T l1;
  guard_index_and_lambda(real, p.in, i0, l1);
  const T l0 = static_cast<T>(1) - l1;
  start = i0;
  if (i0 < p.in - 1) {
    w[0] = static_cast<double>(l0);
    w[1] = static_cast<double>(l1);
    return 2;
  }
  // Both taps read the last pixel (ATen's offset 0): one tap holding both weights.
  w[0] = static_cast<double>(l0) + static_cast<double>(l1);
  return 1;
}

// Bicubic (A = -0.75, border taps replicated): HelperInterpCubic::compute_indices_weights and
// UpSample.h get_cubic_upsample_coefficients. The taps that clamp onto the same border pixel
// are merged into one weight (in double: the sum of floats, exact or nearly so).
template <bool Fma, typename T>
C10_HOST_DEVICE inline int64_t cubic_row(const AxisParams<T>& p, int64_t o, int64_t& start,
                                         double* w) {
  const T real = source_index<Fma>(p.scale, o, p.align_corners, /*cubic=*/true);
  int64_t i;
  T t;
  guard_index_and_lambda(real, p.in, i, t);
  const T A = static_cast<T>(-0.75);
  const T x2 = static_cast<T>(1) - t;
  const T c[4] = {cubic2<Fma>(t + static_cast<T>(1), A), cubic1<Fma>(t, A), cubic1<Fma>(x2, A),
                  cubic2<Fma>(x2 + static_cast<T>(1), A)};
  auto clampi = [&](int64_t v) { return v < 0 ? int64_t{0} : (v > p.in - 1 ? p.in - 1 : v); };
  const int64_t lo = clampi(i - 1), hi = clampi(i + 2);
  for (int64_t k = 0; k <= hi - lo; ++k) w[k] = 0.0;
  for (int j = 0; j < 4; ++j) w[clampi(i - 1 + j) - lo] += static_cast<double>(c[j]);
  start = lo;
  return hi - lo + 1;
}

// uint8 bilinear / bicubic without antialias: UpSampleKernel.cpp
// HelperInterpBase::_compute_indices_min_size_weights with scalar_t = double, its filters
// HelperInterpLinear::aa_filter and HelperInterpCubic::aa_filter<double, false> (A = -0.75).
// The weights of taps outside the input accumulate onto the border pixels (as the float path's
// clamped indices do); wmax is the running maximum ATen derives the int16 precision from.
template <bool Fma>
C10_HOST_DEVICE inline int64_t u8_row(const AxisParams<double>& p, int64_t o, int64_t& start,
                                      double* w, double& wmax) {
  const bool cubic = p.mode == Mode::Cubic;
  const int64_t interp = cubic ? 4 : 2;
  const double real = source_index<Fma>(p.scale, o, p.align_corners, cubic);
  int64_t index;
  double lambda;
  guard_index_and_lambda(real, p.in, index, lambda);
  const int64_t support = interp / 2;
  const int64_t umin = index - support + 1, umax = index + support + 1;
  const int64_t xmin = umin > 0 ? umin : 0;
  int64_t xsize = (umax < p.in ? umax : p.in) - xmin;
  xsize = xsize < 0 ? 0 : (xsize > interp ? interp : xsize);
  for (int64_t j = 0; j < interp; ++j) w[j] = 0.0;
  wmax = 0.0;
  int64_t wi = 0;
  for (int64_t j = 0; j < interp; ++j) {
    double x = static_cast<double>(j + 1 - support) - lambda;
    x = x < 0 ? -x : x;
    double v;
    if (!cubic) {
      v = x < 1.0 ? 1.0 - x : 0.0;
    } else {
      v = x < 1.0 ? cubic1_filter<Fma>(x, -0.75) : (x < 2.0 ? cubic2_filter<Fma>(x, -0.75) : 0.0);
    }
    if (umin + j <= 0) {
      wi = 0;
    } else if (umin + j >= p.in - 1) {
      wi = xsize - 1;
    }
    w[wi] += v;
    wmax = wmax > w[wi] ? wmax : w[wi];
    ++wi;
  }
  start = xmin;
  return xsize;
}

// ATen's int16 fixed-point weight (_compute_index_ranges_int16_weights): w * 2^precision
// rounded half away from zero, truncated to int16, as the double n / 2^precision (exact).
C10_HOST_DEVICE inline double fixed_point_weight(double w, int precision) {
  const double one = static_cast<double>(int64_t{1} << precision);
  const double v = w * one;
  const int n = v < 0 ? static_cast<int>(-0.5 + v) : static_cast<int>(0.5 + v);
  return static_cast<double>(static_cast<int16_t>(n)) / one;
}

// Area: adaptive average pooling bins [floor(o*I/O), ceil((o+1)*I/O)). The products are taken
// in 128 bits: o * I overflows int64 once I * O > 2^63.
C10_HOST_DEVICE inline int64_t area_row(int64_t in, int64_t out, int64_t o, int64_t& start,
                                        double* w) {
  using wide = __int128;
  const int64_t a = static_cast<int64_t>(static_cast<wide>(o) * in / out);
  const int64_t b = static_cast<int64_t>((static_cast<wide>(o + 1) * in + out - 1) / out);
  for (int64_t k = 0; k < b - a; ++k) w[k] = 1.0 / static_cast<double>(b - a);
  start = a;
  return b - a;
}

// The filters of the PIL-style windows; Keys' cubic contracts as HelperInterpCubic::aa_filter
// does. The others have no a * b + c.
template <bool Fma, typename T>
C10_HOST_DEVICE inline T window_filter(Mode mode, T x) {
  if (mode == Mode::Cubic) {  // Keys a = -0.5 (PIL, ATen aa_filter<use_keys_cubic=true>)
    const T ax = x < T(0) ? -x : x;
    const T a = static_cast<T>(-0.5);
    if (ax < T(1)) return cubic1_filter<Fma>(ax, a);
    if (ax < T(2)) return cubic2_filter<Fma>(ax, a);
    return T(0);
  }
  return filter_value<T>(mode, x);
}

// PIL-style window (antialias and the extra filters): UpSampleKernel.cpp
// HelperInterpBase::_compute_indices_min_size_weights_aa, PIL precompute_coeffs. The centre
// scale * (o + 0.5) is a product taken in double and rounded to T, so nothing contracts in float;
// in double GCC fuses it into centre -/+ support (same expression block), checked by
// tests/test_tables_exact.py. Like native's separable antialias kernel, an axis whose size does
// not change is copied, whatever scale was passed.
template <bool Fma, typename T>
C10_HOST_DEVICE inline int64_t window_row(const AxisParams<T>& p, int64_t o, int64_t& start,
                                          double* w) {
  if (p.in == p.out) {
    start = o;
    w[0] = 1.0;
    return 1;
  }
  const double ctr = static_cast<double>(p.scale) * (static_cast<double>(o) + 0.5);
  const T center = static_cast<T>(ctr);
  int64_t xmin = static_cast<int64_t>((center - p.support) + 0.5);
  xmin = xmin > 0 ? xmin : 0;
  int64_t xmax = static_cast<int64_t>((center + p.support) + 0.5);
  int64_t xsize = (xmax < p.in ? xmax : p.in) - xmin;
  xsize = xsize < 0 ? 0 : (xsize > p.max_taps ? p.max_taps : xsize);
  T total = 0;
  for (int64_t j = 0; j < xsize; ++j) {
    const T arg = static_cast<T>((static_cast<T>(j + xmin) - center + 0.5) * p.invscale);
    const T v = window_filter<Fma, T>(p.mode, arg);
    w[j] = static_cast<double>(v);  // exact: T is float or double
    total += v;
  }
  if (total != T(0)) {
    for (int64_t j = 0; j < xsize; ++j) w[j] = static_cast<double>(static_cast<T>(w[j]) / total);
  }
  start = xsize == 0 ? (xmin < p.in - 1 ? xmin : p.in - 1) : xmin;
  return xsize;
}

// One row of any mode. wmax: uint8 tables only (see u8_row), else the row's largest weight.
template <bool Fma, typename T>
C10_HOST_DEVICE inline int64_t table_row(const AxisParams<T>& p, int64_t o, int64_t& start,
                                         double* w, double& wmax) {
  wmax = -1.0;
  if constexpr (sizeof(T) == sizeof(double)) {
    if (p.uint8 && (p.mode == Mode::Linear || p.mode == Mode::Cubic) && !p.stretch) {
      if (p.in == p.out) {  // ATen's separable uint8 kernel copies this axis
        start = o;
        w[0] = 1.0;
        return 1;
      }
      return u8_row<Fma>(p, o, start, w, wmax);
    }
  }
  switch (p.mode) {
    case Mode::Nearest: return nearest_row(p, o, start, w);
    case Mode::NearestExact: return nearest_exact_row<Fma>(p, o, start, w);
    case Mode::Area: return area_row(p.in, p.out, o, start, w);
    case Mode::Linear:
      return p.stretch ? window_row<Fma>(p, o, start, w) : linear_row<Fma>(p, o, start, w);
    case Mode::Cubic:
      return p.stretch ? window_row<Fma>(p, o, start, w) : cubic_row<Fma>(p, o, start, w);
    default:
      return window_row<Fma>(p, o, start, w);
  }
}

}  // namespace rows
}  // namespace resize_ad
