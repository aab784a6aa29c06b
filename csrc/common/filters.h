// The modes' table families, the scale and index helpers of ATen's UpSample.h
// (compute_scales_value, area_pixel_compute_scale, guard_index_and_lambda) and the filters of
// the PIL-style windows, for the CPU and CUDA builds alike. The row formulas that use them, in
// native's exact rounding, are rows.h (the cubic polynomials live there: their rounding depends
// on the contraction). Templated on the arithmetic type so that the table builder reproduces
// ATen's float/double promotions exactly.
#pragma once

#include <c10/macros/Macros.h>
#include <cmath>
#include <cstdint>

namespace resize_ad {

enum class Mode : int {
  Nearest = 0,
  NearestExact,
  Linear,    // linear / bilinear / trilinear (2 taps, or the triangle filter with antialias)
  Cubic,     // bicubic / cubic (4 taps A=-0.75, or Keys A=-0.5 with antialias)
  Area,      // adaptive average pooling bins
  Box,       // PIL BOX
  Hamming,   // PIL HAMMING
  Lanczos3,  // PIL LANCZOS (a = 3)
  Lanczos5,
  Mitchell,  // Mitchell-Netravali B = C = 1/3 (TF mitchellcubic)
  Gaussian,  // TF gaussian: sigma 0.5, radius 1.5
};

// UpSample.h: compute_scales_value
template <typename T>
C10_HOST_DEVICE inline T compute_scales_value(double scale, int64_t in, int64_t out) {
  return scale > 0. ? static_cast<T>(1.0 / scale) : static_cast<T>(in) / out;
}

// UpSample.h: area_pixel_compute_scale
template <typename T>
C10_HOST_DEVICE inline T area_pixel_compute_scale(int64_t in, int64_t out, bool align_corners,
                                                  double scale) {
  if (align_corners) {
    return out > 1 ? static_cast<T>(in - 1) / (out - 1) : static_cast<T>(0);
  }
  return compute_scales_value<T>(scale, in, out);
}

// UpSample.h area_pixel_compute_source_index is rows.h source_index (its rounding depends on
// the contraction of native's kernel).

// UpSample.h: guard_index_and_lambda (floorf on purpose: ATen floors in float precision).
template <typename T>
C10_HOST_DEVICE inline void guard_index_and_lambda(T real, int64_t in, int64_t& index, T& lambda) {
  int64_t i = static_cast<int64_t>(floorf(static_cast<float>(real)));
  index = i < in - 1 ? i : in - 1;
  T l = real - static_cast<T>(index);
  lambda = l < T(0) ? T(0) : (l > T(1) ? T(1) : l);
}

// Filters of the PIL-style (antialias) windows, evaluated at a distance x in input pixels
// (already divided by the stretch). Sources: PIL Resample.c (box, bilinear, hamming, bicubic,
// lanczos), ATen UpSampleKernel.cpp (aa_filter), TF's image_resizer_state / sampling_kernels.h
// (mitchellcubic, gaussian).
// sin(pi x) / (pi x) in T precision (std::sin's float overload for float), as ATen's
// HelperInterpLanczos::sinc_filter.
template <typename T>
C10_HOST_DEVICE inline T sinc_pi(T x) {
  if (x == T(0)) return T(1);
  x = x * static_cast<T>(3.14159265358979323846);
  return std::sin(x) / x;
}

// ATen's HelperInterpLanczos::aa_filter evaluates sinc_filter(x) * sinc_filter(x / 3.0): the
// division by the double 3.0 makes the second factor (and the product) double precision even
// for float, rounded to T once at the end. Reproduced here, for a = 3 and a = 5 alike.
template <typename T>
C10_HOST_DEVICE inline T lanczos(T ax, int a) {
  return ax < T(a) ? static_cast<T>(sinc_pi<T>(ax) * sinc_pi<double>(ax / static_cast<double>(a)))
                   : T(0);
}

// Keys' cubic (Mode::Cubic) is rows.h's window_filter: its rounding depends on the contraction.
template <typename T>
C10_HOST_DEVICE inline T filter_value(Mode mode, T x) {
  T ax = x < T(0) ? -x : x;
  switch (mode) {
    case Mode::Linear:
      return ax < T(1) ? T(1) - ax : T(0);
    case Mode::Box:  // PIL box_filter: 1 on (-0.5, 0.5]
      return (x > T(-0.5) && x <= T(0.5)) ? T(1) : T(0);
    case Mode::Hamming: {  // PIL hamming_filter, with its float constants 0.54f and 0.46f
      if (ax == T(0)) return T(1);
      if (ax >= T(1)) return T(0);
      T px = ax * static_cast<T>(3.14159265358979323846);
      return sin(px) / px * (static_cast<T>(0.54f) + static_cast<T>(0.46f) * cos(px));
    }
    case Mode::Lanczos3:  // PIL lanczos_filter, ATen HelperInterpLanczos::aa_filter
      return lanczos(ax, 3);
    case Mode::Lanczos5:
      return lanczos(ax, 5);
    case Mode::Mitchell: {  // Mitchell & Netravali 1988, B = C = 1/3
      const T B = T(1) / T(3), C = T(1) / T(3);
      if (ax < T(1))
        return ((T(12) - T(9) * B - T(6) * C) * ax * ax * ax +
                (T(-18) + T(12) * B + T(6) * C) * ax * ax + (T(6) - T(2) * B)) / T(6);
      if (ax < T(2))
        return ((-B - T(6) * C) * ax * ax * ax + (T(6) * B + T(30) * C) * ax * ax +
                (T(-12) * B - T(48) * C) * ax + (T(8) * B + T(24) * C)) / T(6);
      return T(0);
    }
    case Mode::Gaussian: {  // TF GaussianKernel: sigma = 0.5, radius = 3 sigma
      const T sigma = static_cast<T>(0.5);
      return ax < T(1.5) ? exp(-x * x / (T(2) * sigma * sigma)) : T(0);
    }
    default:
      return T(0);
  }
}

// Half width of a filter's support in input pixels before stretching.
C10_HOST_DEVICE inline double filter_radius(Mode mode) {
  switch (mode) {
    case Mode::Linear: return 1.0;
    case Mode::Cubic: return 2.0;
    case Mode::Box: return 0.5;
    case Mode::Hamming: return 1.0;
    case Mode::Lanczos3: return 3.0;
    case Mode::Lanczos5: return 5.0;
    case Mode::Mitchell: return 2.0;
    case Mode::Gaussian: return 1.5;
    default: return 0.0;
  }
}

}  // namespace resize_ad
