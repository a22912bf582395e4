// The encoded runs of a text that are decoded and rescanned, and a small memo of them per scratch:
// the decision and session memory's value walk read the same call one after the other, and with
// the memo each short text is searched once (docs/session-memory.md, "Cost").
#ifndef DOBERMAN_RUNTIME_RUNS_TO_RESCAN_H_
#define DOBERMAN_RUNTIME_RUNS_TO_RESCAN_H_

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "encoded_runs.h"
#include "pack_model.h"
#include "validators.h"

namespace doberman::internal {

// The encoded runs of `raw` that are decoded and rescanned, in order. Identifier- and path-shaped
// base64 runs are not encoded payloads: they are skipped without counting against the bound, so
// ordinary large source files do not exhaust it. Returns true when the bound cut the list short
// (the caller raises DOBERMAN_E_LIMIT).
template <typename F>
bool ForEachRunToRescan(std::string_view raw, const DecodeLimits& limits, F&& on_run);

// The runs ForEachRunToRescan finds in one text, and whether the bound cut them short.
struct RunsToRescan {
  std::vector<EncodedRun> runs;
  bool overflow = false;
};

// Remembers the runs of the last few texts searched, each by its whole bytes (a text equal to one
// remembered is answered from the memo; nothing is keyed by a digest that could collide). Texts
// longer than kMaxRememberedText are searched every time: comparing them would cost about what the
// search saves. One memo per scratch, hence per thread and per pack (the limits never change).
class RunMemo {
 public:
  static constexpr size_t kEntries = 4;
  static constexpr size_t kMaxRememberedText = 4096;
  static constexpr size_t kReservedRuns = 1024;  // see Find

  // The runs of `raw`; valid until the next call.
  const RunsToRescan& Find(std::string_view raw, const DecodeLimits& limits);

 private:
  struct Entry {
    bool remembered = false;
    std::string text;
    RunsToRescan found;
  };
  std::array<Entry, kEntries> entries_;
  Entry unremembered_;  // a long text's runs
  size_t next_ = 0;     // the entry the next short text replaces
};

template <typename F>
bool ForEachRunToRescan(std::string_view raw, const DecodeLimits& limits, F&& on_run) {
  size_t decoded_runs = 0;
  size_t next_percent = 0;
  EncodedRun run{};
  for (size_t from = 0; FindNextEncodedRun(raw, from, limits, &run, &next_percent);
       from = run.end) {
    if (run.encoding == Encoding::kBase64 &&
        LooksLikeIdentifierOrPath(raw.substr(run.begin, run.end - run.begin))) {
      continue;
    }
    if (decoded_runs++ == limits.max_runs) return true;
    on_run(run);
    // '/' is base64 and a path separator: in a URL path (`host.com/u/<base64>`) the run starts
    // mid-path and decodes out of step with its 4-character quanta. Each '/'-separated piece long
    // enough to be a run is decoded on its own as well (more views: raise-only, and bounded by
    // the same max_runs).
    if (run.encoding != Encoding::kBase64) continue;
    const std::string_view whole = raw.substr(run.begin, run.end - run.begin);
    if (whole.find('/') == std::string_view::npos) continue;
    for (size_t start = 0; start < whole.size();) {
      size_t slash = whole.find('/', start);
      if (slash == std::string_view::npos) slash = whole.size();
      const std::string_view piece = whole.substr(start, slash - start);
      if (piece.size() >= std::max<size_t>(limits.min_base64, 1) && piece.size() < whole.size() &&
          !LooksLikeIdentifierOrPath(piece)) {
        if (decoded_runs++ == limits.max_runs) return true;
        on_run(EncodedRun{run.begin + start, run.begin + slash, Encoding::kBase64});
      }
      start = slash + 1;
    }
  }
  return false;
}

}  // namespace doberman::internal

#endif  // DOBERMAN_RUNTIME_RUNS_TO_RESCAN_H_
