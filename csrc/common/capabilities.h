// The capability table: what each mode name accepts (spatial ranks, align_corners, antialias,
// dtypes) and what its table is (filter family, radius, output layout). Every rule about modes
// lives here: the op's checks below, resize_ad.interpolate's checks, patch()'s routing, the fake
// kernels and the tests' sample generator all read this one table (Python through
// resize_ad._C._capabilities() and _check()).
#pragma once

#include <c10/core/ScalarType.h>
#include <c10/util/ArrayRef.h>
#include <c10/util/string_view.h>

#include <cstdint>

#include "filters.h"

namespace resize_ad {

// What align_corners means for a mode.
enum class AlignCorners : int {
  Absent = 0,  // no grid relation and no argument: native's nearest / area (must stay None)
  Grid = 1,    // True or False: linear family, bicubic, cubic
  Refused = 2, // filter centred on pixel centres: False or None only
};

// Bit r - 1 set: spatial rank r (1, 2 or 3) is accepted.
constexpr uint8_t kRank1 = 1, kRank2 = 2, kRank3 = 4, kAnyRank = 7;

struct ModeCaps {
  const char* name;
  Mode mode;               // the table family
  bool native;             // a mode of torch's F.interpolate (else one resize_ad adds)
  uint8_t ranks;           // spatial ranks accepted
  AlignCorners align;
  uint8_t antialias_ranks; // spatial ranks where antialias=True is accepted
  uint8_t uint8_ranks;     // spatial ranks with a uint8 forward (native's int16 arithmetic)
  uint8_t contiguous_out;  // spatial ranks whose output is contiguous whatever the input layout
};

// The table family's name (one per Mode), e.g. "linear" for linear / bilinear / trilinear.
const char* family_name(Mode mode);

// Every mode name, aliases included, in the order resize_ad.MODES lists them.
c10::ArrayRef<ModeCaps> all_modes();

// The entry of a mode name, or nullptr.
const ModeCaps* find_mode(c10::string_view name);
// The entry of a mode name; throws NotImplementedError naming the valid modes.
const ModeCaps& mode_caps(c10::string_view name);

// The op's checks, in F.interpolate's order; each raises the exception type native raises for
// that problem (ValueError / NotImplementedError) with a message that says what to change.
// align_corners_set: align_corners=True, or for an Absent mode any explicit value.
void check_align_corners(const ModeCaps& caps, bool align_corners_set);
// An unknown mode has no antialias (F.interpolate checks antialias before the mode).
void check_antialias(c10::string_view mode, int64_t spatial_rank, bool antialias);
void check_rank(const ModeCaps& caps, int64_t spatial_rank);
// forward=false: the backward, which takes floating types only.
void check_dtype(const ModeCaps& caps, int64_t spatial_rank, c10::ScalarType dtype, bool forward);

inline bool has_rank(uint8_t mask, int64_t spatial_rank) {
  return spatial_rank >= 1 && spatial_rank <= 3 && (mask >> (spatial_rank - 1)) & 1;
}

}  // namespace resize_ad
