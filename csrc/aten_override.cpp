// resize_ad's kernels for aten's upsample ops, registered at the dispatcher while patched.
//
// resize_ad.patch() creates a torch::Library of kind IMPL for "aten" at the CPU key (and the
// CUDA key when this build has CUDA kernels) whose kernels call resize_ad::resize /
// resize_ad::resize_backward through the dispatcher; unpatch() destroys it, which deregisters
// the kernels and makes the native ones active again. Because the override sits below
// autograd, everything that reaches an aten upsample op is covered: F.interpolate however it
// was bound (torchvision, kornia, timm), TorchScript programs, C++ callers, and aten's autograd
// formulas, whose backward and double backward call the overridden *_backward and forward ops.
//
// Each kernel keeps the semantics of the aten op it replaces (UpSample.h and
// UpSampleKernel.cpp, torch 2.14): scales as native passes them, native CPU's nearest index
// rules (see nearest_cpu_drops_scales). What resize_ad does not compute as native does (other
// dtypes, uint8 modes whose native result differs, empty or malformed input) goes to the
// native kernel through the op's out= variant, which this library leaves alone, so those calls
// give native's results and native's errors.
#include <Python.h>
#include <ATen/core/Tensor.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/LegacyTypeDispatch.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/_upsample_bicubic2d_aa_backward_ops.h>
#include <ATen/ops/_upsample_bicubic2d_aa_ops.h>
#include <ATen/ops/_upsample_bilinear2d_aa_backward_ops.h>
#include <ATen/ops/_upsample_bilinear2d_aa_ops.h>
#include <ATen/ops/_upsample_nearest_exact1d_backward_ops.h>
#include <ATen/ops/_upsample_nearest_exact1d_ops.h>
#include <ATen/ops/_upsample_nearest_exact2d_backward_ops.h>
#include <ATen/ops/_upsample_nearest_exact2d_ops.h>
#include <ATen/ops/_upsample_nearest_exact3d_backward_ops.h>
#include <ATen/ops/_upsample_nearest_exact3d_ops.h>
#include <ATen/ops/upsample_bicubic2d_backward_ops.h>
#include <ATen/ops/upsample_bicubic2d_ops.h>
#include <ATen/ops/upsample_bilinear2d_backward_ops.h>
#include <ATen/ops/upsample_bilinear2d_ops.h>
#include <ATen/ops/upsample_linear1d_backward_ops.h>
#include <ATen/ops/upsample_linear1d_ops.h>
#include <ATen/ops/upsample_nearest1d_backward_ops.h>
#include <ATen/ops/upsample_nearest1d_ops.h>
#include <ATen/ops/upsample_nearest2d_backward_ops.h>
#include <ATen/ops/upsample_nearest2d_ops.h>
#include <ATen/ops/upsample_nearest3d_backward_ops.h>
#include <ATen/ops/upsample_nearest3d_ops.h>
#include <ATen/ops/upsample_trilinear3d_backward_ops.h>
#include <ATen/ops/upsample_trilinear3d_ops.h>
#if __has_include(<ATen/ops/_upsample_lanczos2d_aa_ops.h>)
#include <ATen/ops/_upsample_lanczos2d_aa_backward_ops.h>
#include <ATen/ops/_upsample_lanczos2d_aa_ops.h>
#define RESIZE_AD_NATIVE_LANCZOS 1
#endif
#include <c10/util/Exception.h>
#include <torch/csrc/Exceptions.h>
#include <torch/library.h>

#include <atomic>
#include <cmath>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "common/capabilities.h"

namespace resize_ad {
namespace {

using OptScale = std::optional<double>;
using ResizeFn = at::Tensor(const at::Tensor&, c10::SymIntArrayRef, c10::string_view, bool,
                            std::optional<c10::ArrayRef<double>>, bool);

// How many aten upsample calls the override sent to resize_ad, and how many it passed to the
// native kernel: the tests' evidence of which kernel ran.
std::atomic<int64_t> g_routed{0};
std::atomic<int64_t> g_passed{0};

enum class Dev { CPU, CUDA };

struct Spec {
  const char* mode;
  bool antialias;
  bool nearest;     // "nearest": native's index rules depend on device and layout
  // uint8 on CUDA: native CUDA's uint8 is resize_ad's only for element copies (on the CPU, the
  // capability table's uint8 ranks are bit-exact with native: docs/dropin.md).
  bool uint8_cuda;
};

constexpr Spec kNearest{"nearest", false, true, true};
constexpr Spec kNearestExact{"nearest-exact", false, false, true};
constexpr Spec kLinear{"linear", false, false, false};
constexpr Spec kBilinear{"bilinear", false, false, false};
constexpr Spec kBicubic{"bicubic", false, false, false};
constexpr Spec kTrilinear{"trilinear", false, false, false};
constexpr Spec kBilinearAA{"bilinear", true, false, false};
constexpr Spec kBicubicAA{"bicubic", true, false, false};
[[maybe_unused]] constexpr Spec kLanczosAA{"lanczos", true, false, false};

const c10::TypedOperatorHandle<ResizeFn>& resize_op(bool backward) {
  static const auto fwd = c10::Dispatcher::singleton()
                              .findSchemaOrThrow("resize_ad::resize", "")
                              .typed<ResizeFn>();
  static const auto bwd = c10::Dispatcher::singleton()
                              .findSchemaOrThrow("resize_ad::resize_backward", "")
                              .typed<ResizeFn>();
  return backward ? bwd : fwd;
}

bool routable_dtype(const Spec& s, const at::Tensor& x, Dev dev, bool backward) {
  const at::ScalarType t = x.scalar_type();
  switch (t) {
    case at::kFloat:
    case at::kDouble:
    case at::kHalf:
    case at::kBFloat16:
      return true;
    case at::kByte:
      return !backward && (dev == Dev::CPU ? has_rank(mode_caps(s.mode).uint8_ranks, x.dim() - 2)
                                           : s.uint8_cuda);
    default:
      return false;
  }
}

// Concrete, positive sizes and finite scales, or nullopt (the call then goes to native).
bool read_args(c10::SymIntArrayRef sizes, std::vector<int64_t>& out) {
  for (const auto& s : sizes) {
    const auto v = s.maybe_as_int();
    if (!v.has_value() || *v <= 0) return false;
    out.push_back(*v);
  }
  return true;
}

bool read_scales(std::initializer_list<OptScale> scales, std::vector<double>& out) {
  for (const auto& s : scales) {
    if (s.has_value() && !std::isfinite(*s)) return false;
    out.push_back(s.has_value() ? *s : 0.0);  // resize_ad: non-positive means absent
  }
  return true;
}

// Native CPU's nearest forward takes its channels-last kernel, whose index (UpSample.h
// nearest_idx) copies an axis with out == in and halves one with out == 2 * in whatever the
// scale, when UpSampleKernel.cpp _use_vectorized_kernel_cond_2d / _3d hold; its other kernels
// floor o * scale. resize_ad.functional._nearest_scales states the same rule for
// resize_ad.interpolate; tests/test_patch_reach.py checks both against native.
bool nearest_cpu_forward_uses_idx(const at::Tensor& x, const std::vector<int64_t>& out) {
  if (x.dim() == 4) {
    return (x.is_contiguous(at::MemoryFormat::ChannelsLast) && x.size(1) > 3) ||
           out[0] + out[1] <= 128;
  }
  if (x.dim() == 5) return x.is_contiguous(at::MemoryFormat::ChannelsLast3d) && x.size(1) > 3;
  return false;
}

void drop_idx_scales(std::vector<double>& scales, c10::IntArrayRef in, const std::vector<int64_t>& out) {
  for (size_t d = 0; d < scales.size(); ++d) {
    if (out[d] == in[d] || out[d] == 2 * in[d]) scales[d] = 0.0;
  }
}

template <class Native>
at::Tensor forward(const Spec& s, Dev dev, const at::Tensor& x, c10::SymIntArrayRef output_size,
                   bool align_corners, std::initializer_list<OptScale> scales, Native&& native) {
  at::AutoDispatchBelowADInplaceOrView below_autograd;
  const size_t dims = scales.size();
  std::vector<int64_t> out;
  std::vector<double> sc;
  const bool ok = x.dim() == static_cast<int64_t>(dims) + 2 && output_size.size() == dims &&
                  x.numel() > 0 && routable_dtype(s, x, dev, false) &&
                  read_args(output_size, out) && read_scales(scales, sc);
  if (!ok) {
    g_passed.fetch_add(1, std::memory_order_relaxed);
    return native();
  }
  if (s.nearest && dev == Dev::CPU && nearest_cpu_forward_uses_idx(x, out)) {
    drop_idx_scales(sc, x.sizes().slice(2), out);
  }
  g_routed.fetch_add(1, std::memory_order_relaxed);
  return resize_op(false).call(x, output_size, s.mode, align_corners, c10::ArrayRef<double>(sc),
                               s.antialias);
}

template <class Native>
at::Tensor backward(const Spec& s, Dev dev, const at::Tensor& g, c10::SymIntArrayRef output_size,
                    c10::SymIntArrayRef input_size, bool align_corners,
                    std::initializer_list<OptScale> scales, Native&& native) {
  at::AutoDispatchBelowADInplaceOrView below_autograd;
  const size_t dims = scales.size();
  std::vector<int64_t> out, in;
  std::vector<double> sc;
  bool ok = g.dim() == static_cast<int64_t>(dims) + 2 && output_size.size() == dims &&
            input_size.size() == dims + 2 && g.numel() > 0 &&
            routable_dtype(s, g, dev, true) && read_args(output_size, out) &&
            read_args(input_size, in) && read_scales(scales, sc);
  if (ok) {
    ok = g.size(0) == in[0] && g.size(1) == in[1];
    for (size_t d = 0; d < dims && ok; ++d) ok = g.size(2 + d) == out[d];
  }
  if (!ok) {
    g_passed.fetch_add(1, std::memory_order_relaxed);
    return native();
  }
  // Native CPU's nearest backward always indexes with nearest_idx; CUDA's floors o * scale.
  if (s.nearest && dev == Dev::CPU) {
    drop_idx_scales(sc, c10::IntArrayRef(in).slice(2), out);
  }
  g_routed.fetch_add(1, std::memory_order_relaxed);
  return resize_op(true).call(g, input_size, s.mode, align_corners, c10::ArrayRef<double>(sc),
                              s.antialias);
}

// The native kernel, reached through the op's out= variant (not overridden). A 0-element out
// is resized by the structured kernel to native's shape and memory format.
#define RESIZE_AD_NATIVE_OUT(OPS, LIKE, ...)           \
  [&]() -> at::Tensor {                                \
    at::Tensor r = at::empty({0}, (LIKE).options());   \
    at::_ops::OPS::call(__VA_ARGS__, r);               \
    return r;                                          \
  }

#define RESIZE_AD_SCALES_1 OptScale s0
#define RESIZE_AD_SCALES_2 OptScale s0, OptScale s1
#define RESIZE_AD_SCALES_3 OptScale s0, OptScale s1, OptScale s2
#define RESIZE_AD_NAMES_1 s0
#define RESIZE_AD_NAMES_2 s0, s1
#define RESIZE_AD_NAMES_3 s0, s1, s2

// Ops without align_corners (the nearest modes).
#define RESIZE_AD_NEAREST_OP(OP, SPEC, N)                                                       \
  template <Dev D>                                                                              \
  at::Tensor OP##_fwd(const at::Tensor& x, c10::SymIntArrayRef out, RESIZE_AD_SCALES_##N) {     \
    return forward(SPEC, D, x, out, false, {RESIZE_AD_NAMES_##N},                               \
                   RESIZE_AD_NATIVE_OUT(OP##_out, x, x, out, RESIZE_AD_NAMES_##N));             \
  }                                                                                             \
  template <Dev D>                                                                              \
  at::Tensor OP##_bwd(const at::Tensor& g, c10::SymIntArrayRef out, c10::SymIntArrayRef in,     \
                      RESIZE_AD_SCALES_##N) {                                                   \
    return backward(SPEC, D, g, out, in, false, {RESIZE_AD_NAMES_##N},                          \
                    RESIZE_AD_NATIVE_OUT(OP##_backward_grad_input, g, g, out, in,               \
                                         RESIZE_AD_NAMES_##N));                                 \
  }

// Ops with align_corners.
#define RESIZE_AD_INTERP_OP(OP, SPEC, N)                                                        \
  template <Dev D>                                                                              \
  at::Tensor OP##_fwd(const at::Tensor& x, c10::SymIntArrayRef out, bool ac,                    \
                      RESIZE_AD_SCALES_##N) {                                                   \
    return forward(SPEC, D, x, out, ac, {RESIZE_AD_NAMES_##N},                                  \
                   RESIZE_AD_NATIVE_OUT(OP##_out, x, x, out, ac, RESIZE_AD_NAMES_##N));         \
  }                                                                                             \
  template <Dev D>                                                                              \
  at::Tensor OP##_bwd(const at::Tensor& g, c10::SymIntArrayRef out, c10::SymIntArrayRef in,     \
                      bool ac, RESIZE_AD_SCALES_##N) {                                          \
    return backward(SPEC, D, g, out, in, ac, {RESIZE_AD_NAMES_##N},                             \
                    RESIZE_AD_NATIVE_OUT(OP##_backward_grad_input, g, g, out, in, ac,           \
                                         RESIZE_AD_NAMES_##N));                                 \
  }

RESIZE_AD_NEAREST_OP(upsample_nearest1d, kNearest, 1)
RESIZE_AD_NEAREST_OP(upsample_nearest2d, kNearest, 2)
RESIZE_AD_NEAREST_OP(upsample_nearest3d, kNearest, 3)
RESIZE_AD_NEAREST_OP(_upsample_nearest_exact1d, kNearestExact, 1)
RESIZE_AD_NEAREST_OP(_upsample_nearest_exact2d, kNearestExact, 2)
RESIZE_AD_NEAREST_OP(_upsample_nearest_exact3d, kNearestExact, 3)
RESIZE_AD_INTERP_OP(upsample_linear1d, kLinear, 1)
RESIZE_AD_INTERP_OP(upsample_bilinear2d, kBilinear, 2)
RESIZE_AD_INTERP_OP(upsample_bicubic2d, kBicubic, 2)
RESIZE_AD_INTERP_OP(upsample_trilinear3d, kTrilinear, 3)
RESIZE_AD_INTERP_OP(_upsample_bilinear2d_aa, kBilinearAA, 2)
RESIZE_AD_INTERP_OP(_upsample_bicubic2d_aa, kBicubicAA, 2)
#ifdef RESIZE_AD_NATIVE_LANCZOS
RESIZE_AD_INTERP_OP(_upsample_lanczos2d_aa, kLanczosAA, 2)
#endif

template <Dev D>
void register_kernels(torch::Library& m) {
#define RESIZE_AD_IMPL(OP)                 \
  m.impl(#OP, &OP##_fwd<D>);               \
  m.impl(#OP "_backward", &OP##_bwd<D>);
  RESIZE_AD_IMPL(upsample_nearest1d)
  RESIZE_AD_IMPL(upsample_nearest2d)
  RESIZE_AD_IMPL(upsample_nearest3d)
  RESIZE_AD_IMPL(_upsample_nearest_exact1d)
  RESIZE_AD_IMPL(_upsample_nearest_exact2d)
  RESIZE_AD_IMPL(_upsample_nearest_exact3d)
  RESIZE_AD_IMPL(upsample_linear1d)
  RESIZE_AD_IMPL(upsample_bilinear2d)
  RESIZE_AD_IMPL(upsample_bicubic2d)
  RESIZE_AD_IMPL(upsample_trilinear3d)
  RESIZE_AD_IMPL(_upsample_bilinear2d_aa)
  RESIZE_AD_IMPL(_upsample_bicubic2d_aa)
#ifdef RESIZE_AD_NATIVE_LANCZOS
  RESIZE_AD_IMPL(_upsample_lanczos2d_aa)
#endif
#undef RESIZE_AD_IMPL
}

std::mutex g_mutex;
std::vector<std::unique_ptr<torch::Library>> g_libraries;

bool set_override(bool on) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const bool was = !g_libraries.empty();
  if (on && !was) {
    // torch 2.14 registers over the native CPU / CUDA kernels without a warning
    // (tests/test_patch_reach.py checks that patch() warns nothing).
    std::vector<std::unique_ptr<torch::Library>> libs;
    libs.push_back(std::make_unique<torch::Library>(torch::Library::IMPL, "aten",
                                                    c10::DispatchKey::CPU, __FILE__, __LINE__));
    register_kernels<Dev::CPU>(*libs.back());
#ifdef RESIZE_AD_WITH_CUDA
    libs.push_back(std::make_unique<torch::Library>(torch::Library::IMPL, "aten",
                                                    c10::DispatchKey::CUDA, __FILE__, __LINE__));
    register_kernels<Dev::CUDA>(*libs.back());
#endif
    g_libraries = std::move(libs);
  } else if (!on && was) {
    g_libraries.clear();  // each registration's handle deregisters its kernel
  }
  return was;
}

}  // namespace

// _C._aten_override(on) -> bool: install (True) or remove (False) the override; returns
// whether it was installed before.
PyObject* py_aten_override(PyObject* /*self*/, PyObject* arg) {
  HANDLE_TH_ERRORS
  const int on = PyObject_IsTrue(arg);
  if (on < 0) return nullptr;
  return PyBool_FromLong(set_override(on != 0));
  END_HANDLE_TH_ERRORS
}

// _C._aten_override_counts() -> (routed to resize_ad, passed to native) since load.
PyObject* py_aten_override_counts(PyObject* /*self*/, PyObject* /*unused*/) {
  return Py_BuildValue("(LL)", static_cast<long long>(g_routed.load()),
                       static_cast<long long>(g_passed.load()));
}

}  // namespace resize_ad
