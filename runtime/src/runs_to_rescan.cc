// The memo of encoded runs (API in runs_to_rescan.h).
#include "runs_to_rescan.h"

namespace doberman::internal {

const RunsToRescan& RunMemo::Find(std::string_view raw, const DecodeLimits& limits) {
  for (const Entry& e : entries_) {
    if (e.remembered && std::string_view(e.text) == raw) return e.found;
  }
  Entry* slot = &unremembered_;
  if (raw.size() <= kMaxRememberedText) {
    slot = &entries_[next_];
    next_ = (next_ + 1) % kEntries;
  }
  // Forgotten first: a search that throws (out of memory) leaves no entry claiming its text.
  slot->remembered = false;
  slot->found.runs.clear();
  slot->found.overflow = ForEachRunToRescan(
      raw, limits, [&](const EncodedRun& run) { slot->found.runs.push_back(run); });
  if (slot != &unremembered_) {
    slot->text.assign(raw);
    slot->remembered = true;
  }
  return slot->found;
}

}  // namespace doberman::internal
