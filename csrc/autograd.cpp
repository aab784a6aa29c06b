// resize / resize_backward below autograd, and as a C++ autograd Function pair (autograd.h).
//
// resize_ad.interpolate on a tensor that requires grad built its graph through the Python
// autograd.Function pair (resize_ad/autograd.py), whose Python per call was more than the kernels
// of a small resize take: a forward of (1, 8, 4, 4) with grad 14.7 us against 6.5 through this
// pair, forward and backward 102-129 us against 76-80 (native 55-60; 1 thread, an AMD EPYC with
// AVX2, medians of 7 loops of 3000 calls). The pair here is the
// same graph in C++: each node's backward is the other op's Function, so double backward and
// every higher order build their graphs as the Python pair's do. What it cannot do, a jvp (a C++
// Function has none), it leaves to the Python pair: the callers take this route only with no
// forward-AD level open, and a backward whose incoming gradient carries a tangent (forward over
// reverse, a level opened after the forward) calls resize_ad.autograd's Python route.
#include "autograd.h"

#include <ATen/core/LegacyTypeDispatch.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/GradMode.h>
#include <torch/csrc/autograd/custom_function.h>
#include <torch/csrc/utils/pybind.h>

#include <string>

namespace resize_ad {

at::Tensor call_resize(bool backward, const at::Tensor& x, const ResizeArgs& a) {
  using ResizeFn = at::Tensor(const at::Tensor&, c10::SymIntArrayRef, c10::string_view, bool,
                              std::optional<c10::ArrayRef<double>>, bool);
  static const auto resize =
      c10::Dispatcher::singleton().findSchemaOrThrow("resize_ad::resize", "").typed<ResizeFn>();
  static const auto resize_backward =
      c10::Dispatcher::singleton().findSchemaOrThrow("resize_ad::resize_backward", "").typed<ResizeFn>();
  at::AutoDispatchBelowADInplaceOrView below_autograd;
  std::optional<c10::ArrayRef<double>> sc;
  if (a.scales) sc = c10::ArrayRef<double>(*a.scales);
  return (backward ? resize_backward : resize)
      .call(x, c10::SymIntArrayRef(a.sizes), c10::string_view(a.mode.data(), a.mode.size()), a.align_corners, sc,
            a.antialias);
}

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// A node's arguments for the other op, kept in its context: the other op's sizes (resize's
// backward takes the input's whole shape, resize_backward's the spatial sizes of its gradient)
// and the rest of a as given.
void save(AutogradContext* ctx, c10::IntArrayRef sizes, const ResizeArgs& a) {
  ctx->saved_data["sizes"] = sizes.vec();
  ctx->saved_data["mode"] = std::string(a.mode);
  ctx->saved_data["align_corners"] = a.align_corners;
  ctx->saved_data["scales"] = a.scales ? c10::IValue(*a.scales) : c10::IValue();
  ctx->saved_data["antialias"] = a.antialias;
}

// The other op's Function (or, with a tangent, resize_ad.autograd's Python route) on grad.
at::Tensor other(bool backward, const at::Tensor& grad, AutogradContext* ctx);

// backward = false: resize; true: resize_backward.
template <bool kBackward>
struct ResizeFunction : torch::autograd::Function<ResizeFunction<kBackward>> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x, const ResizeArgs& a) {
    save(ctx, x.sizes().slice(kBackward ? 2 : 0), a);
    return call_resize(kBackward, x, a);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    return {other(!kBackward, grads[0], ctx), at::Tensor()};
  }
};

at::Tensor other(bool backward, const at::Tensor& grad, AutogradContext* ctx) {
  const auto& d = ctx->saved_data;
  const std::vector<int64_t> sizes = d.at("sizes").toIntVector();
  const std::string mode = d.at("mode").toStringRef();
  const c10::IValue& scales = d.at("scales");
  ResizeArgs a;
  a.sizes.assign(sizes.begin(), sizes.end());
  a.mode = mode;
  a.align_corners = d.at("align_corners").toBool();
  if (!scales.isNone()) a.scales = scales.toDoubleVector();
  a.antialias = d.at("antialias").toBool();
  if (grad.defined() && grad._fw_grad(/*level=*/0).defined()) {
    // Forward over reverse: the Python Functions carry the tangent (their jvp).
    pybind11::gil_scoped_acquire gil;
    const pybind11::object route =
        pybind11::module_::import("resize_ad.autograd").attr(backward ? "_resize_backward" : "_resize");
    const pybind11::object sc = a.scales ? pybind11::cast(*a.scales) : pybind11::none();
    return route(grad, sizes, mode, a.align_corners, sc, a.antialias).cast<at::Tensor>();
  }
  if (!at::GradMode::is_enabled()) return call_resize(backward, grad, a);  // no graph to build
  return backward ? ResizeFunction<true>::apply(grad, a) : ResizeFunction<false>::apply(grad, a);
}

}  // namespace

at::Tensor resize_with_graph(bool backward, const at::Tensor& x, const ResizeArgs& a) {
  return backward ? ResizeFunction<true>::apply(x, a) : ResizeFunction<false>::apply(x, a);
}

}  // namespace resize_ad
