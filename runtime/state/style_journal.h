// DIR/style.journal: style-baseline updates appended by one-shot hook processes whose prompt turn
// needs nothing else from the store (no blocked turn it could repeat, nothing sensitive asked, no
// secret shown). Appending is one locked write (tens of microseconds), where the store first costs
// opening SQLite (about 1.5 ms per process here). The next process that reads a baseline (a prompt
// turn that opens the store: the service, or a one-shot process that needs the store anyway)
// folds the journal into `style_baseline` first, so the outlier check always sees every update.
//
// The baseline only ever adds an AUTH (an outlier that also asks for something sensitive), so the
// journal needs no chain: each record carries a keyed BLAKE2b-128 check, and a record that does not
// verify (torn by a crash, edited) is skipped and counted. A fold that commits but dies before
// emptying the journal applies its updates again at the next fold: a few turns counted twice in a
// running mean, which the check tolerates (docs/session-memory.md).
//
// Layout: "DOBSTYL1"; then per record: 16-byte entity fingerprint, kStyleFeatures doubles (host
// byte order: the directory never leaves the machine), 16-byte check.
#ifndef DOBERMAN_STATE_STYLE_JOURNAL_H_
#define DOBERMAN_STATE_STYLE_JOURNAL_H_

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "state_dir.h"
#include "turn_sketch.h"

namespace doberman::state {

// Appends past this many records are refused: the caller opens the store, which folds.
inline constexpr size_t kMaxStyleUpdates = 4096;

struct StyleUpdate {
  Fingerprint entity{};
  StyleFeatures features{};
};

// Appends one update, waiting at most `timeout_ms` for the journal's lock. False with `error` when
// it cannot be written or is full.
bool AppendStyleUpdate(const StateDir& dir, const StyleUpdate& update, int timeout_ms,
                       std::string* error);

// Folds the journal: under its lock, hands every record that verifies to `apply`, in order, and
// empties the journal when `apply` returns true (`*skipped` counts the records that did not
// verify). True with nothing applied when there is no journal.
bool FoldStyleJournal(const StateDir& dir, int timeout_ms,
                      const std::function<bool(const std::vector<StyleUpdate>&)>& apply,
                      size_t* skipped, std::string* error);

// The records of a whole journal's bytes that verify under `key` (at most kMaxStyleUpdates);
// `*skipped` counts the rest, a torn tail included. For the fold and the fuzz target.
std::vector<StyleUpdate> ParseStyleJournal(const Key& key, std::string_view data, size_t* skipped);

}  // namespace doberman::state

#endif  // DOBERMAN_STATE_STYLE_JOURNAL_H_
