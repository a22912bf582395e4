// The memo of encoded runs (API in runs_to_rescan.h).
#include "runs_to_rescan.h"

#include <algorithm>

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
  // Each entry's buffers grow to their bounds at its first use: the entries rotate, so a text
  // seen before may land in an entry that held a shorter one, and a warm call must not allocate.
  // (Runs capped at kReservedRuns: a pack raising max_decoded_runs far past the default grows
  // past it on the rare text that has that many.)
  slot->found.runs.reserve(std::min(limits.max_runs, kReservedRuns));
  if (slot != &unremembered_) slot->text.reserve(kMaxRememberedText);
  slot->found.overflow = ForEachRunToRescan(
      raw, limits, [&](const EncodedRun& run) { slot->found.runs.push_back(run); });
  if (slot != &unremembered_) {
    slot->text.assign(raw);
    slot->remembered = true;
  }
  return slot->found;
}

}  // namespace doberman::internal
