// Op schemas and module init. The kernels live in cpu/ and cuda/; nothing here computes.
#include <Python.h>
#include <torch/library.h>


// Importing resize_ad._C runs the static TORCH_LIBRARY registrations below and in the kernels.
PyMODINIT_FUNC PyInit__C(void) {
  static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "_C", nullptr, -1, nullptr};
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
}
