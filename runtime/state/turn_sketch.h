// What session memory keeps of a prompt turn instead of its text: a keyed MinHash sketch of its
// word shingles (for "is this a resubmission of a blocked turn, reworded a little") and coarse
// style features (for the per-person baseline). Neither can be turned back into the text: every
// shingle is hashed with the state directory's key before the minimum is taken, and the style
// features are rounded ratios.
#ifndef DOBERMAN_STATE_TURN_SKETCH_H_
#define DOBERMAN_STATE_TURN_SKETCH_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "state_dir.h"

namespace doberman::state {

inline constexpr size_t kSketchSize = 64;
using Sketch = std::array<uint64_t, kSketchSize>;

// MinHash over the 3-word shingles of `folded` (already folded: lower case, single spaces; a text
// of fewer than three words is one shingle). Keyed: sketches from different keys share nothing.
Sketch SketchOf(const Key& key, std::string_view folded);

// The fraction of equal slots: an estimate of the Jaccard similarity of the two shingle sets.
double Similarity(const Sketch& a, const Sketch& b);

// Coarse style of a typed turn, each a bucketed number: log2 of the length, mean word length,
// and the shares (in 5 % steps) of punctuation, upper-case letters and digits.
inline constexpr size_t kStyleFeatures = 5;
using StyleFeatures = std::array<double, kStyleFeatures>;
StyleFeatures StyleOf(std::string_view typed);

// A running mean and variance per feature (Welford), as the store keeps it.
struct StyleBaseline {
  int64_t turns = 0;
  StyleFeatures mean{};
  StyleFeatures m2{};
  void Add(const StyleFeatures& f);
  // The largest |z| over the features (0 while the variance is still zero).
  double MaxZ(const StyleFeatures& f) const;
};

}  // namespace doberman::state

#endif  // DOBERMAN_STATE_TURN_SKETCH_H_
