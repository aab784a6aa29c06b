#include "engine.h"

#include <ATen/ATen.h>
#include <ATen/EmptyTensor.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <numeric>

namespace resize_ad {
namespace {

void check_common(const at::Tensor& t, const char* what, size_t expected_spatial,
                  c10::string_view mode) {
  TORCH_CHECK(t.dim() >= 3 && t.dim() <= 5, "resize_ad: expected a 3-D, 4-D or 5-D ", what,
              " (N, C, spatial...), got ", t.dim(), "-D with shape ", t.sizes());
  TORCH_CHECK(static_cast<size_t>(t.dim() - 2) == expected_spatial, "resize_ad: ", what, " has ",
              t.dim() - 2, " spatial dimensions but ", expected_spatial, " sizes were given");
  TORCH_CHECK(at::isFloatingType(t.scalar_type()),
              "resize_ad: mode '", std::string(mode), "' supports float64, float32, float16 and "
              "bfloat16 tensors; got ", t.scalar_type(), ". Convert the input with .float()");
}

Options make_options(c10::string_view mode, bool align_corners, bool antialias,
                     at::ScalarType dtype, int64_t spatial_dims) {
  Options opt;
  opt.mode = parse_mode(std::string(mode));
  opt.align_corners = align_corners;
  opt.antialias = antialias;
  opt.double_math = dtype == at::kDouble;
  opt.spatial_dims = static_cast<int>(spatial_dims);
  return opt;
}

std::vector<int64_t> physical_order(at::MemoryFormat fmt, int64_t dim) {
  if (fmt == at::MemoryFormat::ChannelsLast && dim == 4) return {0, 2, 3, 1};
  if (fmt == at::MemoryFormat::ChannelsLast3d && dim == 5) return {0, 2, 3, 4, 1};
  std::vector<int64_t> p(dim);
  std::iota(p.begin(), p.end(), 0);
  return p;
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

// y = (W_1 (x) W_2 (x) ...) x: one pass per axis whose table is not the identity, or one fused
// sweep over all of them.
at::Tensor apply_tables(const at::Tensor& x, at::IntArrayRef out_sizes, at::MemoryFormat fmt,
                        const std::vector<const AxisTable*>& tables, AxisPass pass,
                        FusedPass fused, c10::Allocator* allocator) {
  at::Tensor out = new_empty(out_sizes, x.options(), fmt, allocator);
  if (out.numel() == 0) return out;
  const int64_t dim = x.dim();
  const std::vector<int64_t> perm = physical_order(fmt, dim);
  std::vector<int64_t> pos(tables.size());  // spatial axis -> position in physical order
  for (size_t d = 0; d < tables.size(); ++d)
    pos[d] = std::find(perm.begin(), perm.end(), static_cast<int64_t>(d + 2)) - perm.begin();

  // Shrinking axes first: every later pass then reads and writes less.
  std::vector<size_t> order;
  for (size_t d = 0; d < tables.size(); ++d)
    if (!tables[d]->identity) order.push_back(d);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return static_cast<double>(tables[a]->out_size) / tables[a]->in_size <
           static_cast<double>(tables[b]->out_size) / tables[b]->in_size;
  });
  if (order.empty()) {
    out.copy_(x);
    return out;
  }

  const at::ScalarType acc =
      (x.scalar_type() == at::kHalf || x.scalar_type() == at::kBFloat16) ? at::kFloat
                                                                          : x.scalar_type();
  at::Tensor cur = x.permute(perm);
  if (!cur.is_contiguous()) cur = cur.contiguous();
  const at::Tensor out_phys = out.permute(perm);
  TORCH_INTERNAL_ASSERT(out_phys.is_contiguous());

  if (fused != nullptr) {
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
      const bool use_fused =
          force != nullptr && std::strcmp(force, "fused") == 0       ? true
          : force != nullptr && std::strcmp(force, "separable") == 0 ? false
          : fused_cost(static_cast<double>(outer), static_cast<double>(inner), tabs) <=
                separable_cost(cur.sizes().vec(), order, pos, tables);
      if (use_fused) {
        fused(cur, out_phys, outer, inner, tabs);
        return out;
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
    at::Tensor dst = (k + 1 == order.size()) ? out_phys
                                             : new_empty(sizes, x.options().dtype(acc),
                                                         at::MemoryFormat::Contiguous, allocator);
    pass(cur, dst, x.scalar_type(), outer, inner, t);
    cur = dst;
  }
  return out;
}

}  // namespace

at::Tensor resize_forward_impl(const at::Tensor& input, at::IntArrayRef output_size,
                               c10::string_view mode, bool align_corners,
                               std::optional<at::ArrayRef<double>> scales, bool antialias,
                               AxisPass pass, FusedPass fused, c10::Allocator* allocator) {
  check_common(input, "input", output_size.size(), mode);
  for (int64_t d = 2; d < input.dim(); ++d) {
    TORCH_CHECK(input.size(d) > 0 && output_size[d - 2] > 0,
                "resize_ad: input and output spatial sizes should be greater than 0, but got "
                "input ", input.sizes().slice(2), " and output ", output_size);
  }
  Options opt = make_options(mode, align_corners, antialias, input.scalar_type(), input.dim() - 2);
  const auto owned = cached_tables(opt, input.sizes().slice(2), output_size, scales, false);
  const std::vector<const AxisTable*> tables = raw(owned);
  std::vector<int64_t> out_sizes{input.size(0), input.size(1)};
  out_sizes.insert(out_sizes.end(), output_size.begin(), output_size.end());
  // Native's adaptive_avg_pool3d (area, 3-D) returns contiguous output for any input layout.
  at::MemoryFormat fmt = (opt.mode == Mode::Area && input.dim() == 5)
                             ? at::MemoryFormat::Contiguous
                             : input.suggest_memory_format();
  return apply_tables(input, out_sizes, fmt, tables, pass, fused, allocator);
}

at::Tensor resize_backward_impl(const at::Tensor& grad_output, at::IntArrayRef input_size,
                                c10::string_view mode, bool align_corners,
                                std::optional<at::ArrayRef<double>> scales, bool antialias,
                                AxisPass pass, FusedPass fused, c10::Allocator* allocator) {
  TORCH_CHECK(input_size.size() == static_cast<size_t>(grad_output.dim()),
              "resize_ad: input_size has ", input_size.size(), " entries but grad_output is ",
              grad_output.dim(), "-D");
  check_common(grad_output, "grad_output", input_size.size() - 2, mode);
  TORCH_CHECK(grad_output.size(0) == input_size[0] && grad_output.size(1) == input_size[1],
              "resize_ad: grad_output batch and channel sizes ", grad_output.sizes().slice(0, 2),
              " do not match input_size ", input_size.slice(0, 2));
  for (int64_t d = 2; d < grad_output.dim(); ++d) {
    TORCH_CHECK(input_size[d] > 0 && grad_output.size(d) > 0,
                "resize_ad: input and output spatial sizes should be greater than 0, but got "
                "input ", input_size.slice(2), " and grad_output ", grad_output.sizes().slice(2));
  }
  Options opt =
      make_options(mode, align_corners, antialias, grad_output.scalar_type(), grad_output.dim() - 2);
  const auto owned =
      cached_tables(opt, input_size.slice(2), grad_output.sizes().slice(2), scales, true);
  const std::vector<const AxisTable*> tables = raw(owned);
  return apply_tables(grad_output, input_size, grad_output.suggest_memory_format(), tables, pass,
                      fused, allocator);
}

}  // namespace resize_ad
