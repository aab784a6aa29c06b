// Op schemas, module init, a lean Python entry point, and the Python view of the capability
// table and of the test seams (executor, huge pages). The kernels live in cpu/ and cuda/, the
// C++ autograd Functions in autograd.cpp; nothing here computes.
#include <Python.h>
#include <ATen/PythonTorchFunctionTLS.h>
#include <ATen/core/LegacyTypeDispatch.h>
#include <c10/core/GradMode.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <torch/csrc/Exceptions.h>
#include <torch/csrc/autograd/python_variable.h>
#include <torch/library.h>

#include <cmath>
#include <optional>
#include <string_view>
#include <vector>

#include "autograd.h"
#include "common/capabilities.h"
#include "common/plan.h"

namespace resize_ad {  // csrc/cpu/resize_cpu.cpp
void set_huge_pages(bool enabled);
void set_stream_threshold(size_t bytes);
void set_pass_chunk_bytes(int64_t bytes);
}  // namespace resize_ad

namespace {

// Whether a functorch transform (vmap, grad, jvp, ...) is active: its dynamic layer stack keeps
// the front-mode key included while it holds a layer (the C++ autograd Functions refuse to run
// under one).
bool functorch_active() {
  return c10::impl::tls_is_dispatch_key_included(c10::DispatchKey::FuncTorchDynamicLayerFrontMode);
}

bool parse_ints(PyObject* obj, std::vector<c10::SymInt>& out) {
  if (!PyList_Check(obj) && !PyTuple_Check(obj)) return false;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
  PyObject** items = PySequence_Fast_ITEMS(obj);
  out.reserve(n);
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!PyLong_CheckExact(items[i])) return false;
    const long long v = PyLong_AsLongLong(items[i]);
    if (v == -1 && PyErr_Occurred()) return false;
    out.emplace_back(static_cast<int64_t>(v));
  }
  return true;
}

bool parse_floats(PyObject* obj, std::optional<std::vector<double>>& out) {
  if (obj == Py_None) return true;
  if (!PyList_Check(obj) && !PyTuple_Check(obj)) return false;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
  PyObject** items = PySequence_Fast_ITEMS(obj);
  out.emplace();
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!PyFloat_CheckExact(items[i])) return false;
    out->push_back(PyFloat_AS_DOUBLE(items[i]));
  }
  return true;
}

// resize (backward false) or resize_backward as a new Python tensor, without the GIL: below
// autograd, or (graph) through the C++ autograd Functions (autograd.h).
PyObject* call_resize_op(bool backward, bool graph, const at::Tensor& x, std::vector<c10::SymInt> sizes,
                         std::string_view mode, bool align_corners, std::optional<std::vector<double>> scales,
                         bool antialias) {
  at::Tensor y;
  {
    pybind11::gil_scoped_release no_gil;
    const resize_ad::ResizeArgs a{std::move(sizes), mode, align_corners, std::move(scales), antialias};
    y = graph ? resize_ad::resize_with_graph(backward, x, a) : resize_ad::call_resize(backward, x, a);
  }
  return THPVariable_Wrap(std::move(y));
}

// _call(op, x, sizes, mode, align_corners, scales, antialias) with op 0 = resize,
// 1 = resize_backward: the op through the dispatcher below autograd, without torch.ops'
// generic argument parsing, for plain tensors that need no autograd; op 2 = resize, 3 =
// resize_backward through the C++ autograd Functions, for plain tensors that need a graph with
// no forward-AD level open (autograd.py checks both); anything unexpected returns
// NotImplemented and the caller uses torch.ops.
PyObject* call_op(PyObject* /*self*/, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  if (nargs != 7 || !PyLong_CheckExact(args[0]) || !THPVariable_CheckExact(args[1]) ||
      !PyUnicode_Check(args[3]) || !PyBool_Check(args[4]) || !PyBool_Check(args[6])) {
    Py_RETURN_NOTIMPLEMENTED;
  }
  const long which = PyLong_AsLong(args[0]);
  std::vector<c10::SymInt> sizes;
  std::optional<std::vector<double>> scales;
  if (!parse_ints(args[2], sizes) || !parse_floats(args[5], scales)) {
    PyErr_Clear();
    Py_RETURN_NOTIMPLEMENTED;
  }
  Py_ssize_t mode_len = 0;
  const char* mode_ptr = PyUnicode_AsUTF8AndSize(args[3], &mode_len);
  if (mode_ptr == nullptr) return nullptr;
  const std::string_view mode(mode_ptr, mode_len);
  const at::Tensor& x = THPVariable_Unpack(args[1]);
  const bool align_corners = args[4] == Py_True, antialias = args[6] == Py_True;
  if (which < 0 || which > 3 || (which >= 2 && functorch_active()))
    Py_RETURN_NOTIMPLEMENTED;
  return call_resize_op(which % 2 == 1, which >= 2, x, std::move(sizes), mode, align_corners, std::move(scales),
                        antialias);
  END_HANDLE_TH_ERRORS
}

// The scales native's nearest kernel really uses on x's device: functional.py _nearest_scales
// (which says why), for concrete sizes. Native CPU's channels-last kernel (2-D: channels_last
// with C > 3, or out_h + out_w <= 128; 3-D: channels_last_3d with C > 3) takes no scale for an
// axis whose output is its input or twice it.
void nearest_scales(const at::Tensor& x, const std::vector<c10::SymInt>& sizes, std::vector<double>& scales) {
  if (!x.is_cpu() || x.dim() == 3) return;
  bool use_idx;
  if (x.dim() == 4) {
    use_idx = (x.is_contiguous(at::MemoryFormat::ChannelsLast) && x.size(1) > 3) ||
              sizes[0].expect_int() + sizes[1].expect_int() <= 128;
  } else {
    use_idx = x.is_contiguous(at::MemoryFormat::ChannelsLast3d) && x.size(1) > 3;
  }
  if (!use_idx) return;
  for (size_t i = 0; i < scales.size(); ++i) {
    const int64_t in = x.size(2 + static_cast<int64_t>(i)), out = sizes[i].expect_int();
    if (out == in || out == 2 * in) scales[i] = 0.0;
  }
}

// _interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor,
// antialias): resize_ad.interpolate's common call in one C call, its fast path's tests made here
// (functional.py _fast_call, which takes every call this returns NotImplemented for): a plain
// floating tensor, or a uint8 one of a rank the mode resizes uint8 in, not empty, outside
// functorch transforms and torch function modes (one that needs a graph gets it from the C++
// autograd Functions); a mode and rank the op takes, align_corners None or a bool the mode takes;
// size as int or ints in (0, 2^62), or (not area) scale_factor as numbers whose output sizes are
// in [1, 2^62); recompute_scale_factor None, antialias False, or True where the mode takes it at
// that rank. The caller (interpolate) has checked that neither torch.compile nor a forward-AD
// level is active.
PyObject* interpolate_op(PyObject* /*self*/, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  if (nargs != 7 || !THPVariable_CheckExact(args[0]) || !PyUnicode_CheckExact(args[3]) ||
      args[5] != Py_None || (args[6] != Py_False && args[6] != Py_True)) {
    Py_RETURN_NOTIMPLEMENTED;
  }
  const at::Tensor& x = THPVariable_Unpack(args[0]);
  const at::ScalarType dt = x.scalar_type();
  constexpr c10::DispatchKeySet kWrapped({c10::DispatchKey::FuncTorchGradWrapper, c10::DispatchKey::FuncTorchBatched,
                                          c10::DispatchKey::Python, c10::DispatchKey::Functionalize});
  // A graph only for torch.Tensor itself (THPVariable_CheckExact also takes nn.Parameter), as
  // autograd.py's route to the C++ Functions.
  const bool graph = x.requires_grad() && at::GradMode::is_enabled();
  if (!(at::isFloatingType(dt) || dt == at::kByte) || at::impl::torch_function_mode_enabled() ||
      x.key_set().has_any(kWrapped) ||
      (graph && (functorch_active() || Py_TYPE(args[0]) != reinterpret_cast<PyTypeObject*>(THPVariableClass)))) {
    Py_RETURN_NOTIMPLEMENTED;
  }
  Py_ssize_t mode_len = 0;
  const char* mode_ptr = PyUnicode_AsUTF8AndSize(args[3], &mode_len);
  if (mode_ptr == nullptr) return nullptr;
  const std::string_view mode(mode_ptr, mode_len);
  const resize_ad::ModeCaps* caps = resize_ad::find_mode(mode);
  const int64_t dim = x.dim() - 2;
  const bool antialias = args[6] == Py_True;
  if (caps == nullptr || !resize_ad::has_rank(caps->ranks, dim) || x.numel() == 0 ||
      (dt == at::kByte && !resize_ad::has_rank(caps->uint8_ranks, dim)) ||
      (antialias && !resize_ad::has_rank(caps->antialias_ranks, dim))) {
    Py_RETURN_NOTIMPLEMENTED;
  }
  bool align_corners = false;
  if (args[4] != Py_None) {
    if (!PyBool_Check(args[4]) || caps->align == resize_ad::AlignCorners::Absent) Py_RETURN_NOTIMPLEMENTED;
    align_corners = args[4] == Py_True;
    if (align_corners && caps->align == resize_ad::AlignCorners::Refused) Py_RETURN_NOTIMPLEMENTED;
  }
  constexpr int64_t kTooLarge = int64_t{1} << 62;
  std::vector<c10::SymInt> sizes;
  sizes.reserve(dim);
  std::optional<std::vector<double>> scales;
  // ints: an exact int in (0, 2^62); numbers: an exact float or int.
  auto items = [&](PyObject* obj, auto take) {
    if (PyList_CheckExact(obj) || PyTuple_CheckExact(obj)) {
      if (PySequence_Fast_GET_SIZE(obj) != dim) return false;
      PyObject** it = PySequence_Fast_ITEMS(obj);
      for (int64_t i = 0; i < dim; ++i)
        if (!take(it[i])) return false;
      return true;
    }
    for (int64_t i = 0; i < dim; ++i)
      if (!take(obj)) return false;
    return true;
  };
  bool ok = false;
  if (args[2] == Py_None && args[1] != Py_None) {
    ok = items(args[1], [&](PyObject* v) {
      if (!PyLong_CheckExact(v)) return false;
      const long long n = PyLong_AsLongLong(v);
      if (n == -1 && PyErr_Occurred()) return PyErr_Clear(), false;
      if (n <= 0 || n >= kTooLarge) return false;
      sizes.emplace_back(static_cast<int64_t>(n));
      return true;
    });
  } else if (args[1] == Py_None && args[2] != Py_None && mode != "area") {
    scales.emplace();
    ok = items(args[2], [&](PyObject* v) {
      double sc;
      if (PyFloat_CheckExact(v)) {
        sc = PyFloat_AS_DOUBLE(v);
      } else if (PyLong_CheckExact(v)) {
        sc = PyLong_AsDouble(v);
        if (sc == -1.0 && PyErr_Occurred()) return PyErr_Clear(), false;
      } else {
        return false;
      }
      const double o = static_cast<double>(x.size(2 + static_cast<int64_t>(scales->size()))) * sc;
      if (!(std::isfinite(o) && o >= 1.0 && o < static_cast<double>(kTooLarge))) return false;
      scales->push_back(sc);
      sizes.emplace_back(static_cast<int64_t>(o));
      return true;
    });
  }
  if (!ok) Py_RETURN_NOTIMPLEMENTED;
  if (scales && caps->mode == resize_ad::Mode::Nearest) nearest_scales(x, sizes, *scales);
  return call_resize_op(false, graph, x, std::move(sizes), mode, align_corners, std::move(scales), antialias);
  END_HANDLE_TH_ERRORS
}

PyObject* spatial_ranks(uint8_t mask) {
  PyObject* list = PyList_New(0);
  if (list == nullptr) return nullptr;
  for (long r = 1; r <= 3; ++r) {
    if (!((mask >> (r - 1)) & 1)) continue;
    PyObject* v = PyLong_FromLong(r);
    if (v == nullptr || PyList_Append(list, v) != 0) return nullptr;
    Py_DECREF(v);
  }
  PyObject* t = PyList_AsTuple(list);
  Py_DECREF(list);
  return t;
}

// _capabilities(): the capability table, a tuple of dicts (name, family, radius, native, ranks,
// align_corners, antialias_ranks, uint8_ranks, contiguous_out_ranks); ranks are spatial ranks
// (1, 2, 3); radius is the filter's half support before stretching (0 for nearest and area).
PyObject* capabilities(PyObject* /*self*/, PyObject* /*unused*/) {
  HANDLE_TH_ERRORS
  static const char* align_names[] = {"absent", "grid", "refused"};
  const auto modes = resize_ad::all_modes();
  PyObject* out = PyTuple_New(static_cast<Py_ssize_t>(modes.size()));
  for (size_t i = 0; i < modes.size(); ++i) {
    const resize_ad::ModeCaps& c = modes[i];
    PyObject* d = Py_BuildValue(
        "{s:s,s:s,s:d,s:O,s:N,s:s,s:N,s:N,s:N}", "name", c.name, "family",
        resize_ad::family_name(c.mode), "radius", resize_ad::filter_radius(c.mode), "native",
        c.native ? Py_True : Py_False,
        "ranks", spatial_ranks(c.ranks), "align_corners", align_names[static_cast<int>(c.align)],
        "antialias_ranks", spatial_ranks(c.antialias_ranks), "uint8_ranks",
        spatial_ranks(c.uint8_ranks), "contiguous_out_ranks", spatial_ranks(c.contiguous_out));
    if (d == nullptr) return nullptr;
    PyTuple_SET_ITEM(out, static_cast<Py_ssize_t>(i), d);
  }
  return out;
  END_HANDLE_TH_ERRORS
}

// _check(kind, mode, spatial_rank, value): the op's own checks, for resize_ad.interpolate to
// raise them at native's point in its argument checks with the op's messages. kind 0:
// align_corners (value: set), 1: antialias (value: bool), 2: rank, 3: dtype (value: a tensor).
PyObject* check(PyObject* /*self*/, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  TORCH_CHECK(nargs == 4 && PyLong_Check(args[0]) && PyUnicode_Check(args[1]) && PyLong_Check(args[2]),
              "resize_ad._C._check(kind, mode, spatial_rank, value)");
  const long kind = PyLong_AsLong(args[0]);
  const char* mode = PyUnicode_AsUTF8(args[1]);
  if (mode == nullptr) return nullptr;
  const int64_t rank = PyLong_AsLongLong(args[2]);
  if (kind == 1) {
    resize_ad::check_antialias(mode, rank, PyObject_IsTrue(args[3]) == 1);
    Py_RETURN_NONE;
  }
  const resize_ad::ModeCaps& caps = resize_ad::mode_caps(mode);
  switch (kind) {
    case 0: resize_ad::check_align_corners(caps, PyObject_IsTrue(args[3]) == 1); break;
    case 2: resize_ad::check_rank(caps, rank); break;
    case 3:
      TORCH_CHECK(THPVariable_Check(args[3]), "resize_ad._C._check: dtype check needs a tensor");
      resize_ad::check_dtype(caps, rank, THPVariable_Unpack(args[3]).scalar_type(), true);
      break;
    default: TORCH_CHECK(false, "resize_ad._C._check: unknown kind ", kind);
  }
  Py_RETURN_NONE;
  END_HANDLE_TH_ERRORS
}

// _set_executor(i): the executor test seam (0 auto, 1 separable passes, 2 line sweep,
// 3 product gather); resize_ad._testing.executor() is its Python face.
PyObject* set_executor(PyObject* /*self*/, PyObject* arg) {
  HANDLE_TH_ERRORS
  const long e = PyLong_AsLong(arg);
  if (e == -1 && PyErr_Occurred()) return nullptr;
  TORCH_CHECK(e >= 0 && e <= 3, "resize_ad._C._set_executor: 0..3, got ", e);
  resize_ad::set_forced_executor(static_cast<resize_ad::Executor>(e));
  Py_RETURN_NONE;
  END_HANDLE_TH_ERRORS
}

// _set_huge_pages(b): whether the CPU kernels ask for transparent huge pages on fresh results
// (cpu/resize_cpu.cpp advise_huge_pages); resize_ad._testing.huge_pages() is its Python face.
PyObject* set_huge_pages(PyObject* /*self*/, PyObject* arg) {
  HANDLE_TH_ERRORS
  const int b = PyObject_IsTrue(arg);
  if (b < 0) return nullptr;
  resize_ad::set_huge_pages(b != 0);
  Py_RETURN_NONE;
  END_HANDLE_TH_ERRORS
}

// A test seam taking a byte count (>= 0; 0 restores the machine's value): set(n), or the error.
template <typename Set>
PyObject* set_byte_count(PyObject* arg, const char* name, Set set) {
  HANDLE_TH_ERRORS
  const long long n = PyLong_AsLongLong(arg);
  if (n == -1 && PyErr_Occurred()) return nullptr;
  TORCH_CHECK(n >= 0, "resize_ad._C.", name, ": a byte count >= 0, got ", n);
  set(n);
  Py_RETURN_NONE;
  END_HANDLE_TH_ERRORS
}

// _set_stream_threshold(n): outputs of n bytes and more stream (cpu/resize_cpu.cpp
// stream_threshold); 0 restores the machine's threshold. resize_ad._testing.stream_threshold()
// is its Python face.
PyObject* set_stream_threshold(PyObject* /*self*/, PyObject* arg) {
  return set_byte_count(arg, "_set_stream_threshold",
                        [](long long n) { resize_ad::set_stream_threshold(static_cast<size_t>(n)); });
}

// _set_pass_chunk_bytes(n): the separable passes go a chunk of planes at a time where their
// scratch exceeds n bytes (cpu/resize_cpu.cpp pass_chunk_bytes); 0 restores the machine's
// budget. resize_ad._testing.pass_chunk_bytes() is its Python face.
PyObject* set_pass_chunk_bytes(PyObject* /*self*/, PyObject* arg) {
  return set_byte_count(arg, "_set_pass_chunk_bytes",
                        [](long long n) { resize_ad::set_pass_chunk_bytes(static_cast<int64_t>(n)); });
}
}  // namespace

namespace resize_ad {  // csrc/aten_override.cpp
PyObject* py_aten_override(PyObject*, PyObject*);
PyObject* py_aten_override_counts(PyObject*, PyObject*);
}  // namespace resize_ad

namespace {

PyMethodDef methods[] = {
    {"_call", reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(call_op)), METH_FASTCALL,
     "resize / resize_backward below autograd (internal fast path of resize_ad.interpolate)"},
    {"_interpolate", reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(interpolate_op)), METH_FASTCALL,
     "resize_ad.interpolate's common call (its fast path), or NotImplemented"},
    {"_capabilities", capabilities, METH_NOARGS, "the capability table (tuple of dicts)"},
    {"_check", reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(check)), METH_FASTCALL,
     "one of the op's argument checks"},
    {"_set_executor", set_executor, METH_O, "force an executor (test seam)"},
    {"_set_huge_pages", set_huge_pages, METH_O,
     "whether CPU results fresh from mmap get transparent huge pages (test seam)"},
    {"_set_stream_threshold", set_stream_threshold, METH_O,
     "outputs of this many bytes and more stream, 0 for the machine's threshold (test seam)"},
    {"_set_pass_chunk_bytes", set_pass_chunk_bytes, METH_O,
     "the separable passes' scratch per chunk of planes, 0 for the machine's (test seam)"},
    {"_aten_override", resize_ad::py_aten_override, METH_O,
     "install (True) / remove (False) resize_ad's kernels for aten's upsample ops; returns the "
     "previous state (used by resize_ad.patch)"},
    {"_aten_override_counts", resize_ad::py_aten_override_counts, METH_NOARGS,
     "(calls routed to resize_ad, calls passed to native) by the aten override"},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

// Importing resize_ad._C runs the static TORCH_LIBRARY registrations below and in the kernels.
PyMODINIT_FUNC PyInit__C(void) {
  static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "_C", nullptr, -1, methods};
  return PyModule_Create(&module_def);
}

// Sizes are SymInt[] and scales float[]? (non-positive entries mean "absent"), mirroring
// ATen's upsample_*.vec schemas, so dynamic shapes work under torch.compile.
TORCH_LIBRARY(resize_ad, m) {
  m.def(
      "resize(Tensor input, SymInt[] output_size, str mode, bool align_corners, "
      "float[]? scales, bool antialias) -> Tensor");
  m.def(
      "resize_backward(Tensor grad_output, SymInt[] input_size, str mode, bool align_corners, "
      "float[]? scales, bool antialias) -> Tensor");
  // Banded tables along one axis (common/band.h), the kernels of scale_and_translate:
  // y = band_apply(x), its transpose (the derivative in x) and its weight gradient.
  // Test-only: the CUDA executors emulated on the CPU (cpu/cuda_emulation.cpp); returns the
  // result and the emulation's counts.
  m.def(
      "_emulate_cuda(Tensor x, int[] size, str mode, bool align_corners, float[]? scales, "
      "bool antialias, bool backward, int[] grid_caps) -> (Tensor, Tensor)");
  m.def("band_apply(Tensor x, Tensor start, Tensor weight, int dim) -> Tensor");
  m.def(
      "band_apply_transposed(Tensor grad, Tensor start, Tensor weight, int dim, "
      "SymInt input_length) -> Tensor");
  m.def("band_weight_grad(Tensor grad, Tensor x, Tensor start, int dim, SymInt taps) -> Tensor");
}
