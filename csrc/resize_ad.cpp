// Op schemas, module init and a lean Python entry point. The kernels live in cpu/ and cuda/;
// nothing here computes.
#include <Python.h>
#include <ATen/core/LegacyTypeDispatch.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/Exceptions.h>
#include <torch/csrc/autograd/python_variable.h>
#include <torch/library.h>

#include <optional>
#include <string_view>
#include <vector>

namespace {

using ResizeFn = at::Tensor(const at::Tensor&, c10::SymIntArrayRef, c10::string_view, bool,
                            std::optional<c10::ArrayRef<double>>, bool);

bool parse_ints(PyObject* obj, std::vector<c10::SymInt>& out) {
  if (!PyList_Check(obj) && !PyTuple_Check(obj)) return false;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
  PyObject** items = PySequence_Fast_ITEMS(obj);
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

// _call(op, x, sizes, mode, align_corners, scales, antialias) with op 0 = resize,
// 1 = resize_backward: the op through the dispatcher below autograd, without torch.ops'
// generic argument parsing. Only for plain tensors that need no autograd (functional.py checks
// that); anything unexpected returns NotImplemented and the caller uses torch.ops.
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
  const std::string mode(mode_ptr, mode_len);
  const at::Tensor& x = THPVariable_Unpack(args[1]);
  const bool align_corners = args[4] == Py_True, antialias = args[6] == Py_True;
  static const auto resize = c10::Dispatcher::singleton()
                                 .findSchemaOrThrow("resize_ad::resize", "")
                                 .typed<ResizeFn>();
  static const auto resize_backward = c10::Dispatcher::singleton()
                                          .findSchemaOrThrow("resize_ad::resize_backward", "")
                                          .typed<ResizeFn>();
  at::Tensor y;
  {
    pybind11::gil_scoped_release no_gil;
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    std::optional<c10::ArrayRef<double>> sc;
    if (scales) sc = c10::ArrayRef<double>(*scales);
    y = (which == 0 ? resize : resize_backward)
            .call(x, c10::SymIntArrayRef(sizes), mode, align_corners, sc, antialias);
  }
  return THPVariable_Wrap(std::move(y));
  END_HANDLE_TH_ERRORS
}

PyMethodDef methods[] = {
    {"_call", reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(call_op)), METH_FASTCALL,
     "resize / resize_backward below autograd (internal fast path of resize_ad.interpolate)"},
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
  // The fused gather (common/fused.h) on the CPU, for tests: forward, or with backward=True
  // the transposed tables applied to a grad_output (size is then the full input size).
  m.def(
      "_fused_reference(Tensor x, SymInt[] size, str mode, bool align_corners, float[]? scales, "
      "bool antialias, bool backward) -> Tensor");
  // Banded tables along one axis (common/band.h), the kernels of scale_and_translate:
  // y = band_apply(x), its transpose (the derivative in x) and its weight gradient.
  m.def("band_apply(Tensor x, Tensor start, Tensor weight, int dim) -> Tensor");
  m.def(
      "band_apply_transposed(Tensor grad, Tensor start, Tensor weight, int dim, "
      "SymInt input_length) -> Tensor");
  m.def("band_weight_grad(Tensor grad, Tensor x, Tensor start, int dim, SymInt taps) -> Tensor");
}
