// The op pair resize / resize_backward called from C++: below autograd (call_resize), or through
// the C++ autograd Function pair (resize_with_graph, autograd.cpp) for eager calls on plain
// tensors that need a graph.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/SymInt.h>

#include <optional>
#include <string_view>
#include <vector>

namespace resize_ad {

// The arguments of either op but its tensor: sizes (resize: the output's spatial sizes;
// resize_backward: the input's whole shape), as the op schemas name the rest.
struct ResizeArgs {
  std::vector<c10::SymInt> sizes;
  std::string_view mode;
  bool align_corners = false;
  std::optional<std::vector<double>> scales;
  bool antialias = false;
};

// resize (backward false) or resize_backward through the dispatcher, below autograd.
at::Tensor call_resize(bool backward, const at::Tensor& x, const ResizeArgs& a);

// The same as a node of the autograd graph: each op's derivative is the other op, so every
// order of reverse mode follows, as from resize_ad/autograd.py's Functions, without their
// Python per call. For plain tensors (no subclass, functorch transform or torch function mode)
// with no forward-AD level open; a backward that meets a tangent (forward over reverse) goes
// to the Python Functions, which have jvp.
at::Tensor resize_with_graph(bool backward, const at::Tensor& x, const ResizeArgs& a);

}  // namespace resize_ad
