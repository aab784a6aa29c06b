// The plan of one call and the three executors that run it.
//
// resize_forward / resize_backward check the arguments against the capability table, allocate
// the output (the memory format native gives), build the Plan once — which spatial axes
// resample and in which order, the dtype the kernels compute in, the physical layout, the
// tables — and hand it to exactly one executor:
//   - separable passes: one axis table at a time, through scratch tensors (any table);
//   - line sweep (CPU): per output line, a blend of the input lines the leading axes select,
//     then the last axis' table along the line; no scratch tensor;
//   - product gather: each output element reads its product window directly (CUDA, and its
//     CPU reference for tests).
// A cost model picks one (choose_executor); tests force each through set_forced_executor.
// The backward is the same plan over the transposed tables. Each device supplies its kernels.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/util/ArrayRef.h>
#include <c10/util/SmallVector.h>
#include <c10/util/string_view.h>

#include <memory>
#include <optional>
#include <vector>

#include "tables.h"

namespace resize_ad {

enum class Executor : int { Auto = 0, Separable = 1, LineSweep = 2, ProductGather = 3 };

// Separable passes' kernel: applies one axis table along the middle dimension of src viewed as
// [outer, in_len, inner] (contiguous), writing dst viewed as [outer, out_len, inner]
// (contiguous). `kernel_dtype` is the plan's; src and dst are either that dtype or its
// accumulation type (float for half and bfloat16).
using AxisPass = void (*)(const at::Tensor& src, const at::Tensor& dst, at::ScalarType kernel_dtype,
                          int64_t outer, int64_t inner, const AxisTable& table);

// Separable passes' uint8 kernel: as AxisPass, with src and dst uint8, for a table that is fixed
// point (precision > 0: int32 sums of the int16 weights, each output rounded half up and
// saturated to [0, 255] as it is stored, as native's uint8 kernels) or unit (an element copy).
using AxisPassU8 = void (*)(const at::Tensor& src, const at::Tensor& dst, int64_t outer,
                            int64_t inner, const AxisTable& table);
// Whether pass_u8 can run this fixed-point table exactly (its sums fit its accumulator).
using FixedPointFits = bool (*)(const AxisTable& table);

// Line sweep kernel: src viewed as [outer, in_1, ..., in_k, inner] and dst as
// [outer, out_1, ..., out_k, inner], both contiguous and of the op's dtype; tables[i] is the
// table of the i-th spatial axis in that (physical) order, identity tables included.
// pass_order: the sums of the separable passes in their order (the leading axis blended first,
// no ring of rows), so that the values are theirs, bit for bit.
using LineSweep = void (*)(const at::Tensor& src, const at::Tensor& dst, int64_t outer,
                           int64_t inner, c10::ArrayRef<const AxisTable*> tables, bool pass_order);

// Product gather kernel: src is the input in physical order (contiguous there), dst the output
// in physical order, both of the op's dtype; pos[i] is the physical position of the axis of
// tables[i] (the resampled axes only, at most kMaxGatherAxes).
using ProductGather = void (*)(const at::Tensor& src, const at::Tensor& dst,
                               const std::vector<int64_t>& pos,
                               const std::vector<const AxisTable*>& tables);

// Copies src, dense in channels_last order, into dst, contiguous, of the same sizes and dtype;
// false where the device has no kernel for it (Tensor::copy_ then).
using PlanarCopy = bool (*)(const at::Tensor& src, const at::Tensor& dst);

struct DeviceKernels {
  AxisPass pass = nullptr;  // required
  // uint8 plans run these when present (and the fits check accepts every fixed-point table);
  // otherwise `pass` in float or double, with a rounding step after each pass.
  AxisPassU8 pass_u8 = nullptr;
  FixedPointFits pass_u8_fits = nullptr;
  LineSweep line_sweep = nullptr;
  ProductGather product_gather = nullptr;
  // The cost model takes the product gather when the product of the resampled axes' window
  // widths is at most this (0: only when forced).
  int64_t gather_max_taps = 0;
  // Whether native's kernels on this device were compiled with multiply-adds contracted into
  // FMAs (the tables then round as they do: common/rows.h).
  bool native_fma = false;
  // The device builds its tables itself from table_specs() (AxisTable::spec) instead of taking
  // the host's cached rows (fixed-point tables: with the precision of the host's).
  bool device_tables = false;
  // The device's passes join consecutive lines of the contiguous axis shorter than this many
  // outputs into one (0: they do not); the cost model then prefers them on such lines.
  int64_t pass_join_outputs = 0;
  // The threads a call's kernels split it over (at::get_num_threads on the CPU); nullptr: one.
  int (*threads)() = nullptr;
  // A channels_last result into its contiguous output (plan.cpp resize_into); optional.
  PlanarCopy planar_copy = nullptr;
  // The separable passes run a chunk of planes at a time, every pass, where their scratch
  // would exceed this many bytes (plan.cpp chunk_planes; nullptr or 0: never): each chunk's
  // scratch is read back from the cache it was written to.
  int64_t (*pass_chunk_bytes)() = nullptr;
  // Called once on a result that chunked passes then write in parts (optional): the CPU advises
  // huge pages on it there, as its passes do on a whole fresh result.
  void (*prepare_result)(const at::Tensor& out) = nullptr;
};

struct Plan {
  std::vector<std::shared_ptr<const AxisTable>> tables;  // per spatial axis, logical order
  // On the stack (c10::SmallVector), as the call's other small arrays (plan.cpp Sizes).
  c10::SmallVector<int64_t, 5> perm;  // physical position -> logical dimension
  c10::SmallVector<int64_t, 3> pos;   // spatial axis -> physical position
  c10::SmallVector<size_t, 3> order;  // spatial axes that resample, in pass order
  // The input's for floating inputs. uint8: uint8 where the device's pass_u8 runs the plan
  // (every pass reads and writes uint8), else float or double (staged, rounded per pass).
  at::ScalarType kernel_dtype;
  Executor executor = Executor::Separable;
  // LineSweep in the separable passes' order (LineSweep's pass_order): the passes' values where
  // the cost model took the sweep for the threads alone (choose_executor).
  bool pass_order = false;
};

// The test seam: every later call runs `e` where the call allows it (Auto: the cost model).
// Fixed-point (uint8) plans always run the separable passes: they round after every pass.
void set_forced_executor(Executor e);

at::Tensor resize_forward(const at::Tensor& input, at::IntArrayRef output_size,
                          c10::string_view mode, bool align_corners,
                          std::optional<at::ArrayRef<double>> scales, bool antialias,
                          const DeviceKernels& kernels);

at::Tensor resize_backward(const at::Tensor& grad_output, at::IntArrayRef input_size,
                           c10::string_view mode, bool align_corners,
                           std::optional<at::ArrayRef<double>> scales, bool antialias,
                           const DeviceKernels& kernels);

}  // namespace resize_ad
