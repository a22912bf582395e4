// The set of value tags a cached session can hold (doberman_value_tags): asked once per value of
// every outbound call before any fingerprint is computed, so it is a flat open-addressed table.
#ifndef DOBERMAN_STATE_TAG_FILTER_H_
#define DOBERMAN_STATE_TAG_FILTER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace doberman::state {

// The tags a session's recorded values have (StateStore::PrepareLookup). A value recorded without
// its tag makes every tag possible. Tags are keyed hashes, uniform already: they index the table
// directly.
class TagFilter {
 public:
  bool MayHold(uint64_t tag) const {
    if (all_) return true;
    if (tag == 0) return has_zero_;
    if (slots_.empty()) return false;
    const size_t mask = slots_.size() - 1;
    for (size_t i = static_cast<size_t>(tag) & mask;; i = (i + 1) & mask) {
      if (slots_[i] == tag) return true;
      if (slots_[i] == 0) return false;
    }
  }
  // Empties it; `all` opens it to every tag.
  void Reset(bool all, size_t expected);
  void Insert(uint64_t tag);
  void AllowAll() { all_ = true; }

 private:
  bool all_ = true;
  bool has_zero_ = false;
  size_t count_ = 0;
  std::vector<uint64_t> slots_;  // 0: empty; a power of two, at most half full
};

}  // namespace doberman::state

#endif  // DOBERMAN_STATE_TAG_FILTER_H_
