// The tag table of a cached session (API in tag_filter.h).
#include "tag_filter.h"

#include <algorithm>

namespace doberman::state {

void TagFilter::Reset(bool all, size_t expected) {
  all_ = all;
  has_zero_ = false;
  count_ = 0;
  size_t size = 16;
  while (size < 2 * expected) size *= 2;
  slots_.assign(size, 0);
}

void TagFilter::Insert(uint64_t tag) {
  if (tag == 0) {
    has_zero_ = true;
    return;
  }
  if (2 * (count_ + 1) > slots_.size()) {  // keep it at most half full
    std::vector<uint64_t> old;
    old.swap(slots_);
    slots_.assign(std::max<size_t>(16, 2 * old.size()), 0);
    count_ = 0;
    for (uint64_t t : old) {
      if (t != 0) Insert(t);
    }
  }
  const size_t mask = slots_.size() - 1;
  for (size_t i = static_cast<size_t>(tag) & mask;; i = (i + 1) & mask) {
    if (slots_[i] == tag) return;
    if (slots_[i] == 0) {
      slots_[i] = tag;
      ++count_;
      return;
    }
  }
}

}  // namespace doberman::state
