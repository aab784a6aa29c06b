// Compiles the kernel header named by RESIZE_AD_KERNELS twice, in the including namespace: as
// `base` for the baseline ISA and, where the compiler can (isa.h), as `avx2` under
// `#pragma GCC target("avx2,fma,f16c")`, with RESIZE_AD_AVX2 set to 0 and 1. cpu_has_avx2() picks one
// at run time. Used by resize_cpu.cpp (line_sweep.h) and fixed_point.cpp
// (fixed_point_kernels.h). No include guard: included once per kernel header.
//
//   #define RESIZE_AD_KERNELS "line_sweep.h"
//   #include "isa_twice.h"

namespace base {
#define RESIZE_AD_AVX2 0
#include RESIZE_AD_KERNELS
#undef RESIZE_AD_AVX2
}  // namespace base

#if RESIZE_AD_HAVE_AVX2_BUILD
#pragma GCC push_options
#pragma GCC target("avx2,fma,f16c")
namespace avx2 {
#define RESIZE_AD_AVX2 1
#include RESIZE_AD_KERNELS
#undef RESIZE_AD_AVX2
}  // namespace avx2
#pragma GCC pop_options
#endif

#undef RESIZE_AD_KERNELS
