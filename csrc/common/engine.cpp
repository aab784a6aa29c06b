#include "engine.h"

#include "fused.h"

#include <ATen/ATen.h>
#include <ATen/EmptyTensor.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <numeric>

namespace resize_ad {
namespace {

void check_shape(const at::Tensor& t, const char* what, size_t expected_spatial) {
  TORCH_CHECK(t.dim() >= 3 && t.dim() <= 5, "resize_ad: expected a 3-D, 4-D or 5-D ", what,
              " (N, C, spatial...), got ", t.dim(), "-D with shape ", t.sizes());
  TORCH_CHECK(static_cast<size_t>(t.dim() - 2) == expected_spatial, "resize_ad: ", what, " has ",
              t.dim() - 2, " spatial dimensions but ", expected_spatial, " sizes were given");
}

// Floating types everywhere; uint8 forward for the modes native torch resizes uint8 with
// (nearest, nearest-exact, bilinear, bicubic, lanczos; here in any rank). NotImplementedError otherwise,
// as native's dtype dispatch raises.
void check_dtype(const at::Tensor& t, c10::string_view mode, bool forward) {
  const at::ScalarType st = t.scalar_type();
  if (at::isFloatingType(st)) return;
  if (st == at::kByte && forward) {
    TORCH_CHECK_NOT_IMPLEMENTED(uint8_supported(parse_mode(std::string(mode))), "resize_ad: mode '", std::string(mode),
                                "' does not support uint8 input (uint8 works with nearest, "
                                "nearest-exact, linear, cubic and lanczos); convert with .float()");
    return;
  }
  TORCH_CHECK_NOT_IMPLEMENTED(
      false, "resize_ad: mode '", std::string(mode), "' supports float64, float32, float16 and "
      "bfloat16 tensors", forward ? " (and uint8 for nearest, nearest-exact, linear, cubic and lanczos)" : "",
      "; got ", st, ". Convert the input with .float()");
}

Options make_options(c10::string_view mode, bool align_corners, bool antialias,
                     at::ScalarType dtype) {
  Options opt;
  opt.mode = parse_mode(std::string(mode));
  opt.align_corners = align_corners;
  opt.antialias = antialias;
  opt.uint8 = dtype == at::kByte;
  opt.fma = native_cpu_kernels_fma();
  // ATen computes uint8 bilinear/bicubic tables in double, uint8 nearest indices in float.
  opt.double_math = dtype == at::kDouble ||
                    (opt.uint8 && uint8_fixed_point(opt.mode));
  return opt;
}

std::vector<int64_t> physical_order(at::MemoryFormat fmt, int64_t dim) {
  if (fmt == at::MemoryFormat::ChannelsLast && dim == 4) return {0, 2, 3, 1};
  if (fmt == at::MemoryFormat::ChannelsLast3d && dim == 5) return {0, 2, 3, 4, 1};
  std::vector<int64_t> p(dim);
  std::iota(p.begin(), p.end(), 0);
  return p;
}

// Largest |partial sum| a pass can reach over its rows, for input values in [0, 255].
double u8_sum_bound(const AxisTable& t) {
  double bound = 0.0;
  for (int64_t o = 0; o < t.out_size; ++o) {
    double s = 0.0;
    for (int64_t k = 0; k < t.len[o]; ++k) s += std::abs(t.w[o * t.K + k]);
    bound = std::max(bound, s);
  }
  return bound * 255.0 * std::ldexp(1.0, t.precision);
}

std::vector<const AxisTable*> raw(const std::vector<std::shared_ptr<const AxisTable>>& v) {
  std::vector<const AxisTable*> r;
  for (const auto& t : v) r.push_back(t.get());
  return r;
}

// Mean taps per output row of a table (1 for the identity, which is a copy).
double mean_taps(const AxisTable& t) {
  if (t.identity) return 1.0;
  return static_cast<double>(t.sum_len) / static_cast<double>(std::max<int64_t>(1, t.out_size));
}

// Cost model of the two plans, in multiply-adds along contiguous memory. A multiply-add along
// the innermost axis (inner == 1) gathers scattered elements and costs kGather of those; every
// element of an intermediate tensor of the separable plan is written, faulted in and read back
// again, which costs kScratch.
constexpr double kGather = 4.0;
constexpr double kScratch = 4.0;

double separable_cost(std::vector<int64_t> sizes, const std::vector<size_t>& order,
                      const std::vector<int64_t>& pos, const std::vector<const AxisTable*>& tables) {
  double cost = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    const AxisTable& t = *tables[order[k]];
    const int64_t p = pos[order[k]];
    double outer = 1, inner = 1;
    for (int64_t i = 0; i < p; ++i) outer *= static_cast<double>(sizes[i]);
    for (size_t i = p + 1; i < sizes.size(); ++i) inner *= static_cast<double>(sizes[i]);
    cost += outer * static_cast<double>(t.out_size) * inner * mean_taps(t) *
            (inner == 1 ? kGather : 1.0);
    sizes[p] = t.out_size;
    if (k + 1 < order.size()) {
      double n = 1;
      for (int64_t v : sizes) n *= static_cast<double>(v);
      cost += kScratch * n;
    }
  }
  return cost;
}

// The fused sweep (FusedPass): per output line along the last spatial axis, a blend of the
// input lines its leading-axis taps select, then the last axis' table along that line.
double fused_cost(double outer, double inner, const std::vector<const AxisTable*>& tabs) {
  const AxisTable& last = *tabs.back();
  double rows = outer, lead_taps = 1;
  bool lead_unit = true;
  for (size_t i = 0; i + 1 < tabs.size(); ++i) {
    rows *= static_cast<double>(tabs[i]->out_size);
    lead_taps *= mean_taps(*tabs[i]);
    lead_unit = lead_unit && tabs[i]->unit;
  }
  const double in_line = static_cast<double>(last.in_size) * inner;
  const double blend = lead_unit ? (inner == 1 ? 0.25 * in_line : 0.0) : lead_taps * in_line;
  const double along = last.identity ? 0.0
                                     : static_cast<double>(last.out_size) * inner *
                                           mean_taps(last) * (inner == 1 ? kGather : 1.0);
  return rows * (blend + along);
}

at::Tensor new_empty(at::IntArrayRef sizes, const at::TensorOptions& opts, at::MemoryFormat fmt,
                     c10::Allocator* allocator) {
  if (allocator == nullptr) return at::empty(sizes, opts.memory_format(fmt));
  return at::detail::empty_generic(sizes, allocator, c10::DispatchKeySet(opts.computeDispatchKey()),
                                   c10::typeMetaToScalarType(opts.dtype()), fmt);
}

// out = (W_1 (x) W_2 (x) ...) x, one pass per axis whose table is not the identity. `out` is
// allocated by the caller (before the tables, so that an impossible output size fails first,
// and cheaply) in memory format `fmt`.
//
// uint8 input runs the same device passes in float (double where a float sum of the
// fixed-point products could be inexact), in ATen's pass order (last spatial axis first), and
// rounds half up and saturates to [0, 255] after every pass of a fixed-point table, as ATen's
// uint8 kernels store each pass in uint8. Everything here is device-independent ATen math.
void apply_tables(const at::Tensor& x, const at::Tensor& out, at::MemoryFormat fmt,
                  const std::vector<const AxisTable*>& tables, const Engines& engines) {
  const int64_t dim = x.dim();
  const bool u8 = x.scalar_type() == at::kByte;
  const std::vector<int64_t> perm = physical_order(fmt, dim);
  std::vector<int64_t> pos(tables.size());  // spatial axis -> position in physical order
  for (size_t d = 0; d < tables.size(); ++d)
    pos[d] = std::find(perm.begin(), perm.end(), static_cast<int64_t>(d + 2)) - perm.begin();

  std::vector<size_t> order;
  for (size_t d = 0; d < tables.size(); ++d)
    if (!tables[d]->identity) order.push_back(d);
  if (u8) {
    // ATen's separable uint8 kernel: the last (contiguous) axis first, then the others inwards.
    std::reverse(order.begin(), order.end());
  } else {
    // Shrinking axes first: every later pass then reads and writes less.
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return static_cast<double>(tables[a]->out_size) / tables[a]->in_size <
             static_cast<double>(tables[b]->out_size) / tables[b]->in_size;
    });
  }
  if (order.empty()) {
    out.copy_(x);
    return;
  }

  at::ScalarType acc =
      (x.scalar_type() == at::kHalf || x.scalar_type() == at::kBFloat16) ? at::kFloat
                                                                          : x.scalar_type();
  if (u8) {
    // Fixed-point sums (and the +0.5 of the rounding) are exact in float while the sum's
    // numerator over 2^precision stays below 2^23; double holds any of them exactly.
    acc = at::kFloat;
    for (size_t d : order)
      if (u8_sum_bound(*tables[d]) >= 8388608.0) acc = at::kDouble;
  }
  const at::ScalarType pass_dtype = u8 ? acc : x.scalar_type();
  at::Tensor cur = x.permute(perm);
  if (u8) {
    cur = at::empty(cur.sizes(), x.options().dtype(acc)).copy_(cur);
  } else if (!cur.is_contiguous()) {
    cur = cur.contiguous();
  }
  const at::Tensor out_phys = out.permute(perm);
  TORCH_INTERNAL_ASSERT(out_phys.is_contiguous());

  // uint8 rounds after every pass (as native), so it never takes the fused gather.
  if (!u8 && engines.fused != nullptr && order.size() <= static_cast<size_t>(kMaxFusedAxes)) {
    int64_t taps = 1;
    for (size_t d : order) taps *= tables[d]->K;
    if (taps <= engines.max_fused_taps) {
      std::vector<int64_t> fpos;
      std::vector<const AxisTable*> ftables;
      for (size_t d : order) {
        fpos.push_back(pos[d]);
        ftables.push_back(tables[d]);
      }
      engines.fused(cur, out_phys, x.scalar_type(), fpos, ftables);
      return;
    }
  }
  if (!u8 && engines.sweep != nullptr) {
    // The spatial axes are consecutive in every physical order used here.
    const int64_t first = *std::min_element(pos.begin(), pos.end());
    const int64_t last = *std::max_element(pos.begin(), pos.end());
    if (last - first + 1 == static_cast<int64_t>(tables.size())) {
      int64_t outer = 1, inner = 1;
      for (int64_t i = 0; i < first; ++i) outer *= cur.size(i);
      for (int64_t i = last + 1; i < dim; ++i) inner *= cur.size(i);
      std::vector<const AxisTable*> tabs;
      for (int64_t p = first; p <= last; ++p) tabs.push_back(tables[perm[p] - 2]);
      // RESIZE_AD_ENGINE=fused|separable overrides the cost model (tests run both engines).
      const char* force = std::getenv("RESIZE_AD_ENGINE");
      const bool use_sweep =
          force != nullptr && std::strcmp(force, "fused") == 0       ? true
          : force != nullptr && std::strcmp(force, "separable") == 0 ? false
          : fused_cost(static_cast<double>(outer), static_cast<double>(inner), tabs) <=
                separable_cost(cur.sizes().vec(), order, pos, tables);
      if (use_sweep) {
        engines.sweep(cur, out_phys, outer, inner, tabs);
        return;
      }
    }
  }

  for (size_t k = 0; k < order.size(); ++k) {
    const AxisTable& t = *tables[order[k]];
    const int64_t p = pos[order[k]];
    std::vector<int64_t> sizes = cur.sizes().vec();
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < p; ++i) outer *= sizes[i];
    for (int64_t i = p + 1; i < dim; ++i) inner *= sizes[i];
    sizes[p] = t.out_size;
    const bool last = k + 1 == order.size();
    at::Tensor dst = (last && !u8) ? out_phys
                                     : new_empty(sizes, x.options().dtype(acc),
                                                 at::MemoryFormat::Contiguous, engines.allocator);
    engines.pass(cur, dst, pass_dtype, outer, inner, t);
    if (u8 && t.precision > 0) dst.add_(0.5).floor_().clamp_(0, 255);
    cur = dst;
  }
  if (u8) out_phys.copy_(cur);  // integers in [0, 255]: the conversion is exact
}

}  // namespace

at::Tensor resize_forward_impl(const at::Tensor& input, at::IntArrayRef output_size,
                               c10::string_view mode, bool align_corners,
                               std::optional<at::ArrayRef<double>> scales, bool antialias,
                               AxisPass pass) {
  Engines engines;
  engines.pass = pass;
  return resize_forward_impl(input, output_size, mode, align_corners, scales, antialias, engines);
}

at::Tensor resize_forward_impl(const at::Tensor& input, at::IntArrayRef output_size,
                               c10::string_view mode, bool align_corners,
                               std::optional<at::ArrayRef<double>> scales, bool antialias,
                               const Engines& engines) {
  check_shape(input, "input", output_size.size());
  check_dtype(input, mode, /*forward=*/true);
  Options opt = make_options(mode, align_corners, antialias, input.scalar_type());
  // Area is adaptive average pooling, which (as native's) allows an empty output.
  const bool allow_empty_out = opt.mode == Mode::Area;
  for (int64_t d = 2; d < input.dim(); ++d) {
    TORCH_CHECK(input.size(d) > 0 &&
                    (output_size[d - 2] > 0 || (allow_empty_out && output_size[d - 2] == 0)),
                "resize_ad: input and output spatial sizes should be greater than 0, but got "
                "input ", input.sizes().slice(2), " and output ", output_size);
  }
  std::vector<int64_t> out_sizes{input.size(0), input.size(1)};
  out_sizes.insert(out_sizes.end(), output_size.begin(), output_size.end());
  // Native's adaptive_avg_pool3d (area, 3-D) returns contiguous output for any input layout.
  at::MemoryFormat fmt = (opt.mode == Mode::Area && input.dim() == 5)
                             ? at::MemoryFormat::Contiguous
                             : input.suggest_memory_format();
  if (input.numel() > 0 &&
      std::all_of(output_size.begin(), output_size.end(), [](int64_t s) { return s > 0; })) {
    check_table_memory(opt, input.sizes().slice(2), output_size, scales, false);
  }
  at::Tensor out = new_empty(out_sizes, input.options(), fmt, engines.allocator);
  if (out.numel() == 0) return out;
  const auto owned = cached_tables(opt, input.sizes().slice(2), output_size, scales, false);
  apply_tables(input, out, fmt, raw(owned), engines);
  return out;
}

at::Tensor resize_backward_impl(const at::Tensor& grad_output, at::IntArrayRef input_size,
                                c10::string_view mode, bool align_corners,
                                std::optional<at::ArrayRef<double>> scales, bool antialias,
                                AxisPass pass) {
  Engines engines;
  engines.pass = pass;
  return resize_backward_impl(grad_output, input_size, mode, align_corners, scales, antialias,
                              engines);
}

at::Tensor resize_backward_impl(const at::Tensor& grad_output, at::IntArrayRef input_size,
                                c10::string_view mode, bool align_corners,
                                std::optional<at::ArrayRef<double>> scales, bool antialias,
                                const Engines& engines) {
  TORCH_CHECK(input_size.size() == static_cast<size_t>(grad_output.dim()),
              "resize_ad: input_size has ", input_size.size(), " entries but grad_output is ",
              grad_output.dim(), "-D");
  check_shape(grad_output, "grad_output", input_size.size() - 2);
  check_dtype(grad_output, mode, /*forward=*/false);
  TORCH_CHECK(grad_output.size(0) == input_size[0] && grad_output.size(1) == input_size[1],
              "resize_ad: grad_output batch and channel sizes ", grad_output.sizes().slice(0, 2),
              " do not match input_size ", input_size.slice(0, 2));
  Options opt = make_options(mode, align_corners, antialias, grad_output.scalar_type());
  const bool allow_empty_out = opt.mode == Mode::Area;
  for (int64_t d = 2; d < grad_output.dim(); ++d) {
    TORCH_CHECK(input_size[d] > 0 &&
                    (grad_output.size(d) > 0 || (allow_empty_out && grad_output.size(d) == 0)),
                "resize_ad: input and output spatial sizes should be greater than 0, but got "
                "input ", input_size.slice(2), " and grad_output ", grad_output.sizes().slice(2));
  }
  const at::MemoryFormat fmt = grad_output.suggest_memory_format();
  if (grad_output.numel() > 0) {
    check_table_memory(opt, input_size.slice(2), grad_output.sizes().slice(2), scales, true);
  }
  at::Tensor grad_input = new_empty(input_size, grad_output.options(), fmt, engines.allocator);
  if (grad_input.numel() == 0) return grad_input;
  if (grad_output.numel() == 0) return grad_input.zero_();  // an empty output reads nothing
  const auto owned =
      cached_tables(opt, input_size.slice(2), grad_output.sizes().slice(2), scales, true);
  apply_tables(grad_output, grad_input, fmt, raw(owned), engines);
  return grad_input;
}

}  // namespace resize_ad
