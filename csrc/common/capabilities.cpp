#include "capabilities.h"

#include <c10/util/Exception.h>

#include <string>

namespace resize_ad {
namespace {

using A = AlignCorners;

// native torch 2.14: nearest / nearest-exact / area in every rank, the linear family in its
// own rank, bicubic in 2-D; antialias for 2-D bilinear / bicubic (and 2-D lanczos); uint8 for
// nearest and nearest-exact in every rank and 2-D bilinear / bicubic / lanczos. resize_ad
// extends antialias to linear and trilinear, and adds the filter modes in every rank.
// Area's 3-D output is contiguous for every input layout (native adaptive_avg_pool3d).
constexpr ModeCaps kModes[] = {
    // name           mode                native ranks     align       antialias  uint8     contig
    {"nearest",       Mode::Nearest,      true,  kAnyRank, A::Absent,  0,         kAnyRank, 0},
    {"nearest-exact", Mode::NearestExact, true,  kAnyRank, A::Absent,  0,         kAnyRank, 0},
    {"linear",        Mode::Linear,       true,  kRank1,   A::Grid,    kRank1,    0,        0},
    {"bilinear",      Mode::Linear,       true,  kRank2,   A::Grid,    kRank2,    kRank2,   0},
    {"bicubic",       Mode::Cubic,        true,  kRank2,   A::Grid,    kRank2,    kRank2,   0},
    {"trilinear",     Mode::Linear,       true,  kRank3,   A::Grid,    kRank3,    0,        0},
    {"area",          Mode::Area,         true,  kAnyRank, A::Absent,  0,         0,        kRank3},
    {"cubic",         Mode::Cubic,        false, kAnyRank, A::Grid,    kAnyRank,  0,        0},
    {"box",           Mode::Box,          false, kAnyRank, A::Refused, kAnyRank,  0,        0},
    {"hamming",       Mode::Hamming,      false, kAnyRank, A::Refused, kAnyRank,  0,        0},
    {"lanczos",       Mode::Lanczos3,     false, kAnyRank, A::Refused, kAnyRank,  kRank2,   0},
    {"lanczos3",      Mode::Lanczos3,     false, kAnyRank, A::Refused, kAnyRank,  kRank2,   0},
    {"lanczos5",      Mode::Lanczos5,     false, kAnyRank, A::Refused, kAnyRank,  0,        0},
    {"mitchell",      Mode::Mitchell,     false, kAnyRank, A::Refused, kAnyRank,  0,        0},
    {"gaussian",      Mode::Gaussian,     false, kAnyRank, A::Refused, kAnyRank,  0,        0},
};

std::string names(bool with_quotes, const char* sep) {
  std::string s;
  for (const ModeCaps& c : kModes) {
    if (!s.empty()) s += sep;
    s += with_quotes ? std::string("'") + c.name + "'" : std::string(c.name);
  }
  return s;
}

std::string join_names(bool (*keep)(const ModeCaps&), const char* sep) {
  std::string s;
  for (const ModeCaps& c : kModes) {
    if (!keep(c)) continue;
    if (!s.empty()) s += sep;
    s += c.name;
  }
  return s;
}

// "4-D input" style rank of a spatial rank mask with one bit (the linear family, bicubic).
int64_t single_rank(uint8_t mask) {
  for (int64_t r = 1; r <= 3; ++r)
    if (mask == (1 << (r - 1))) return r;
  return 0;
}

}  // namespace

const char* family_name(Mode mode) {
  switch (mode) {
    case Mode::Nearest: return "nearest";
    case Mode::NearestExact: return "nearest-exact";
    case Mode::Linear: return "linear";
    case Mode::Cubic: return "cubic";
    case Mode::Area: return "area";
    case Mode::Box: return "box";
    case Mode::Hamming: return "hamming";
    case Mode::Lanczos3: return "lanczos3";
    case Mode::Lanczos5: return "lanczos5";
    case Mode::Mitchell: return "mitchell";
    case Mode::Gaussian: return "gaussian";
  }
  return "?";
}

c10::ArrayRef<ModeCaps> all_modes() { return c10::ArrayRef<ModeCaps>(kModes); }

const ModeCaps* find_mode(c10::string_view name) {
  for (const ModeCaps& c : kModes)
    if (name == c.name) return &c;
  return nullptr;
}

const ModeCaps& mode_caps(c10::string_view name) {
  if (const ModeCaps* c = find_mode(name)) return *c;
  TORCH_CHECK_NOT_IMPLEMENTED(false, "resize_ad: unknown mode '", std::string(name), "'; use one of ",
                              names(false, ", "));
}

void check_align_corners(const ModeCaps& caps, bool align_corners_set) {
  if (!align_corners_set) return;
  if (caps.align == A::Absent) {
    TORCH_CHECK_VALUE(false,
                      "align_corners option can only be set with the interpolating modes: ",
                      join_names([](const ModeCaps& c) { return c.align == A::Grid; }, " | "),
                      "; leave it None for mode '", caps.name, "'");
  }
  TORCH_CHECK_VALUE(caps.align != A::Refused, "resize_ad: mode '", caps.name,
                    "' does not support align_corners=True (its filter is centred on pixel "
                    "centres); pass align_corners=None or False");
}

void check_antialias(c10::string_view mode, int64_t spatial_rank, bool antialias) {
  if (!antialias) return;
  const ModeCaps* caps = find_mode(mode);
  // kAnyRank: antialias wherever the mode works (a wrong rank is check_rank's to report).
  if (caps != nullptr &&
      (caps->antialias_ranks == kAnyRank || has_rank(caps->antialias_ranks, spatial_rank)))
    return;
  TORCH_CHECK_VALUE(false,
                    "Anti-alias option is restricted to linear (3-D), bilinear (4-D), trilinear "
                    "(5-D), bicubic (4-D) and the filter modes (",
                    join_names([](const ModeCaps& c) { return !c.native; }, ", "), "); got mode '",
                    std::string(mode), "' with a ", spatial_rank + 2,
                    "-D input. Pass antialias=False, or use mode 'cubic' (any rank) instead of "
                    "'bicubic'");
}

void check_rank(const ModeCaps& caps, int64_t spatial_rank) {
  if (has_rank(caps.ranks, spatial_rank)) return;
  const int64_t need = single_rank(caps.ranks);
  if (need > 0 && caps.mode != Mode::Cubic && spatial_rank >= 1 && spatial_rank <= 3) {
    TORCH_CHECK_NOT_IMPLEMENTED(false, "Got ", spatial_rank + 2, "D input, but ", caps.name,
                                " mode needs ", need + 2, "D input");
  }
  TORCH_CHECK_NOT_IMPLEMENTED(
      false, "Input Error: Only 3D, 4D and 5D input Tensors supported (got ", spatial_rank + 2,
      "D) for the modes: ", names(false, " | "), " (got ", caps.name, ")",
      need > 0 ? std::string("; ") + caps.name + " needs " + std::to_string(need + 2) +
                     "D input, use mode='cubic' for bicubic interpolation in any rank"
               : std::string());
}

void check_dtype(const ModeCaps& caps, int64_t spatial_rank, c10::ScalarType dtype, bool forward) {
  if (c10::isFloatingType(dtype)) return;
  const std::string uint8_modes =
      "uint8 is supported by nearest and nearest-exact, and by 4-D bilinear, bicubic and lanczos, "
      "as in native torch";
  if (dtype == c10::kByte && forward) {
    TORCH_CHECK_NOT_IMPLEMENTED(has_rank(caps.uint8_ranks, spatial_rank), "resize_ad: mode '",
                                caps.name, "' does not support uint8 input with ",
                                spatial_rank + 2, "-D input (", uint8_modes,
                                "); convert with .float()");
    return;
  }
  TORCH_CHECK_NOT_IMPLEMENTED(
      false, "resize_ad: interpolation", forward ? "" : " backward",
      " is not implemented for dtype ", dtype,
      "; use a floating point tensor (float64, float32, float16, bfloat16)",
      forward ? std::string(", or uint8 (") + uint8_modes + ")" : std::string());
}

}  // namespace resize_ad
