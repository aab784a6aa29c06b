// The host side of the CUDA executors (separable passes and product gather), templated on a
// Backend that launches the functors of cuda_functors.h:
//   - cuda/resize_cuda.cu: CudaBackend, a kernel launch on the current stream;
//   - cpu/cuda_emulation.cpp: a loop over the same grid and block on the CPU, with write counts.
// So everything the CUDA path does on the host (dtype dispatch, table building, launch
// configuration, pointers) is the code the emulation tests run.
//
// Backend provides:
//   using Store = ...;                                  // the functors' store policy
//   static cuda::GridCaps caps();
//   template <class F> static void launch(const cuda::LaunchConfig&, const F&,
//                                         std::initializer_list<Written>);
//   template <typename acc_t> static void built(const AxisTable& spec, const DeviceTable<acc_t>&);
#pragma once

#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>

#include <initializer_list>
#include <limits>
#include <vector>

#include "cuda_functors.h"
#include "plan.h"
#include "product_gather.h"
#include "tables.h"

namespace resize_ad {
namespace cuda {

// A buffer a launch writes: `exact` ones get every element written exactly once, the others
// (weights, whose rows are shorter than K) each element at most once.
struct Written {
  const void* ptr;
  int64_t n;
  int64_t elem;
  bool exact;
};

template <typename acc_t>
struct DeviceTable {
  at::Tensor start, len, w;  // [rows], [rows], [rows * K]: at::empty on the device (caching allocator)
  int64_t K = 0;
  const int64_t* start_ptr() const { return start.const_data_ptr<int64_t>(); }
  const int64_t* len_ptr() const { return len.const_data_ptr<int64_t>(); }
  const acc_t* w_ptr() const { return w.const_data_ptr<acc_t>(); }
};

template <class Backend, bool Fma, typename T, typename acc_t>
DeviceTable<acc_t> build_spec_table(const AxisTable& t, const at::TensorOptions& dev) {
  using Store = typename Backend::Store;
  const TableSpec& s = *t.spec;
  const rows::AxisParams<T> p = axis_params<T>(s.opt, s.in, s.out, s.scale);
  const int64_t cap = rows::row_capacity(p);
  const int64_t fK = s.transposed ? forward_taps_bound(s.opt, s.in, s.out, s.scale) : t.K;
  const at::ScalarType acc = c10::CppTypeToScalarType<acc_t>::value;
  DeviceTable<acc_t> f;
  f.start = at::empty({s.out}, dev.dtype(at::kLong));
  f.len = at::empty({s.out}, dev.dtype(at::kLong));
  f.w = at::empty({s.out * fK}, dev.dtype(acc));
  f.K = fK;
  const at::Tensor scratch = at::empty({s.out * cap}, dev.dtype(at::kDouble));
  at::Tensor keys;
  BuildRows<Store, Fma, T, acc_t> rows_f;
  rows_f.p = p;
  rows_f.cap = cap;
  rows_f.K = fK;
  rows_f.precision = t.precision;
  rows_f.scratch = scratch.mutable_data_ptr<double>();
  rows_f.start = f.start.template mutable_data_ptr<int64_t>();
  rows_f.len = f.len.template mutable_data_ptr<int64_t>();
  rows_f.w = f.w.template mutable_data_ptr<acc_t>();
  if (s.transposed) {
    keys = at::empty({2, s.out}, dev.dtype(at::kLong));
    rows_f.key_start = keys.mutable_data_ptr<int64_t>();
    rows_f.key_end = rows_f.key_start + s.out;
    Backend::launch(table_launch(s.out, Backend::caps()), rows_f,
                    {{rows_f.start, s.out, 8, true}, {rows_f.len, s.out, 8, true},
                     {rows_f.w, s.out * fK, sizeof(acc_t), false},
                     {rows_f.key_start, 2 * s.out, 8, true}});
  } else {
    Backend::launch(table_launch(s.out, Backend::caps()), rows_f,
                    {{rows_f.start, s.out, 8, true}, {rows_f.len, s.out, 8, true},
                     {rows_f.w, s.out * fK, sizeof(acc_t), false}});
    return f;
  }
  DeviceTable<acc_t> r;
  r.start = at::empty({s.in}, dev.dtype(at::kLong));
  r.len = at::empty({s.in}, dev.dtype(at::kLong));
  r.w = at::empty({s.in * t.K}, dev.dtype(acc));
  r.K = t.K;
  BuildTransposed<Store, acc_t> tr;
  tr.rows = s.in;
  tr.fwd_rows = s.out;
  tr.key_start = rows_f.key_start;
  tr.key_end = rows_f.key_end;
  tr.fstart = rows_f.start;
  tr.flen = rows_f.len;
  tr.fw = rows_f.w;
  tr.fK = fK;
  tr.K = t.K;
  tr.start = r.start.template mutable_data_ptr<int64_t>();
  tr.len = r.len.template mutable_data_ptr<int64_t>();
  tr.w = r.w.template mutable_data_ptr<acc_t>();
  Backend::launch(table_launch(s.in, Backend::caps()), tr,
                  {{tr.start, s.in, 8, true}, {tr.len, s.in, 8, true},
                   {tr.w, s.in * t.K, sizeof(acc_t), false}});
  return r;
}

// The device table of `t` in the accumulation type, built on the device from its spec: no host
// rows, no copy, no synchronisation; CUDA-graph safe.
template <class Backend, typename acc_t>
DeviceTable<acc_t> device_table(const AxisTable& t, const at::TensorOptions& dev) {
  TORCH_INTERNAL_ASSERT(t.spec.has_value(), "resize_ad: a device table needs its spec");
  DeviceTable<acc_t> d;
  const bool fma = t.spec->opt.fma;
  if (table_in_double(t.spec->opt)) {
    d = fma ? build_spec_table<Backend, true, double, acc_t>(t, dev)
            : build_spec_table<Backend, false, double, acc_t>(t, dev);
  } else {
    d = fma ? build_spec_table<Backend, true, float, acc_t>(t, dev)
            : build_spec_table<Backend, false, float, acc_t>(t, dev);
  }
  Backend::template built<acc_t>(t, d);
  return d;
}

template <class Backend, typename src_t, typename dst_t, typename acc_t>
void launch_axis_pass(const at::Tensor& src, const at::Tensor& dst, int64_t outer, int64_t inner,
                      const AxisTable& t) {
  using Store = typename Backend::Store;
  // The table tensors live until the kernel is enqueued; freeing them then is safe: the caching
  // allocator hands their blocks out again only to work on this same stream.
  const DeviceTable<acc_t> table = device_table<Backend, acc_t>(t, src.options());
  const int64_t rows = outer * t.out_size;
  // The fields PassContig and PassStrided share.
  auto common = [&](auto& f) {
    f.src = src.const_data_ptr<src_t>();
    f.dst = dst.mutable_data_ptr<dst_t>();
    f.rows = rows;
    f.in_len = t.in_size;
    f.out_len = t.out_size;
    f.start = table.start_ptr();
    f.len = table.len_ptr();
    f.w = table.w_ptr();
    f.K = table.K;
  };
  if (inner == 1) {
    PassContig<Store, src_t, dst_t, acc_t> f;
    common(f);
    Backend::launch(pass_contig_launch(rows, Backend::caps()), f,
                    {{f.dst, rows, sizeof(dst_t), true}});
    return;
  }
  PassStrided<Store, src_t, dst_t, acc_t> f;
  common(f);
  f.inner = inner;
  Backend::launch(pass_strided_launch(rows, inner, Backend::caps()), f,
                  {{f.dst, rows * inner, sizeof(dst_t), true}});
}

// DeviceKernels::pass. kernel_dtype: the plan's; src and dst are it or its accumulation type.
template <class Backend>
void axis_pass(const at::Tensor& src, const at::Tensor& dst, at::ScalarType kernel_dtype,
               int64_t outer, int64_t inner, const AxisTable& t) {
  TORCH_INTERNAL_ASSERT(dst.device() == src.device());
  TORCH_INTERNAL_ASSERT(src.is_contiguous() && dst.is_contiguous());
  TORCH_INTERNAL_ASSERT(src.numel() == outer * t.in_size * inner &&
                        dst.numel() == outer * t.out_size * inner);
  if (dst.numel() == 0) return;
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, kernel_dtype, "resize_ad_axis_pass_cuda", [&] {
    using acc_t = at::opmath_type<scalar_t>;
    const at::ScalarType acc = c10::CppTypeToScalarType<acc_t>::value;
    TORCH_INTERNAL_ASSERT(src.scalar_type() == kernel_dtype || src.scalar_type() == acc);
    TORCH_INTERNAL_ASSERT(dst.scalar_type() == kernel_dtype || dst.scalar_type() == acc);
    // For float and double acc_t == scalar_t: one instantiation; the half types get four.
    const bool src_acc = src.scalar_type() != kernel_dtype;
    const bool dst_acc = dst.scalar_type() != kernel_dtype;
    if (src_acc && dst_acc) {
      launch_axis_pass<Backend, acc_t, acc_t, acc_t>(src, dst, outer, inner, t);
    } else if (src_acc) {
      launch_axis_pass<Backend, acc_t, scalar_t, acc_t>(src, dst, outer, inner, t);
    } else if (dst_acc) {
      launch_axis_pass<Backend, scalar_t, acc_t, acc_t>(src, dst, outer, inner, t);
    } else {
      launch_axis_pass<Backend, scalar_t, scalar_t, acc_t>(src, dst, outer, inner, t);
    }
  });
}

// DeviceKernels::product_gather.
template <class Backend>
void product_gather(const at::Tensor& src, const at::Tensor& dst, const std::vector<int64_t>& pos,
                    const std::vector<const AxisTable*>& tables) {
  TORCH_INTERNAL_ASSERT(dst.device() == src.device());
  TORCH_INTERNAL_ASSERT(src.is_contiguous() && dst.is_contiguous());
  TORCH_INTERNAL_ASSERT(dst.scalar_type() == src.scalar_type());
  const int64_t n = dst.numel();
  if (n == 0) return;
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, src.scalar_type(), "resize_ad_product_gather_cuda", [&] {
    using acc_t = at::opmath_type<scalar_t>;
    using Store = typename Backend::Store;
    std::vector<DeviceTable<acc_t>> dev;
    std::vector<const int64_t*> starts, lens;
    std::vector<const acc_t*> ws;
    for (const AxisTable* t : tables) {
      dev.push_back(device_table<Backend, acc_t>(*t, src.options()));
      starts.push_back(dev.back().start_ptr());
      lens.push_back(dev.back().len_ptr());
      ws.push_back(dev.back().w_ptr());
    }
    const auto plan = make_gather_plan<acc_t>(src.sizes(), dst.sizes(), pos, tables, starts, lens, ws);
    const LaunchConfig cfg = gather_launch(n, Backend::caps());
    const int64_t int32_max = std::numeric_limits<int32_t>::max();
    if (src.numel() <= int32_max && n <= int32_max) {
      Gather<Store, scalar_t, acc_t, int32_t> f{plan, src.const_data_ptr<scalar_t>(),
                                                dst.mutable_data_ptr<scalar_t>(), n};
      Backend::launch(cfg, f, {{f.dst, n, sizeof(scalar_t), true}});
    } else {
      Gather<Store, scalar_t, acc_t, int64_t> f{plan, src.const_data_ptr<scalar_t>(),
                                                dst.mutable_data_ptr<scalar_t>(), n};
      Backend::launch(cfg, f, {{f.dst, n, sizeof(scalar_t), true}});
    }
  });
}

// The CUDA device's kernels (cuda_kernels() in resize_cuda.cu, and the emulation's).
template <class Backend>
DeviceKernels device_kernels() {
  DeviceKernels d;
  d.pass = axis_pass<Backend>;
  d.product_gather = product_gather<Backend>;
  d.gather_max_taps = kGatherMaxTaps;
  d.native_fma = true;  // nvcc contracts native's kernels (--fmad=true is its default)
  d.device_tables = true;
  return d;
}

}  // namespace cuda
}  // namespace resize_ad
