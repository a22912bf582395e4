// DIR/style.journal: the style baselines as the store last folded them, and the updates appended
// since by hook processes. Appending is one locked write (tens of microseconds), where the store
// first costs opening SQLite (about 1.5 ms per process here), and reading one person's baseline is
// one locked read: the base plus that person's updates, in order, gives exactly what the store
// will hold once it folds them. So no prompt turn needs the store for its style check; only
// folding does (a full journal, or a journal without a base this store and boot wrote).
//
// Every change to a baseline goes through here: an update is appended, and the store's fold
// applies the updates in one transaction, commits, and rewrites the journal as the new base with
// no updates, all under the journal's lock. A reader under the same lock therefore sees the store's
// baselines as of its last fold plus every update after it. A fold that dies after its commit and
// before the rewrite leaves the old base and the updates, which is still the store's state (the
// next fold applies those updates again: a few turns counted twice in a running mean, which the
// check tolerates, docs/session-memory.md); one that dies mid-rewrite leaves no base that
// verifies, and the next reader folds through the store. The base names the database (its inode)
// and the boot it was written for, as ledger.hints does: nothing here is synced, so after a crash
// the store, not the file, is the truth.
//
// The baseline only ever adds an AUTH (an outlier that also asks for something sensitive), so the
// file needs no chain: the base carries a keyed BLAKE2b-128 check and each update a keyed
// SipHash-128 one (under a key derived from the directory's), and one that does not verify (torn
// by a crash, edited) is not used.
//
// Layout: "DOBSTYL2", u32 base size (0: no base); the base: u64 database inode, 40-byte boot id
// (zero padded), u32 count, per person a 16-byte entity fingerprint, i64 turns and
// 2 x kStyleFeatures doubles (means, then Welford sums), then its 16-byte check; then per update:
// 16-byte entity fingerprint, kStyleFeatures doubles, 16-byte check. Host byte order: the
// directory never leaves the machine.
#ifndef DOBERMAN_STATE_STYLE_JOURNAL_H_
#define DOBERMAN_STATE_STYLE_JOURNAL_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "state_dir.h"
#include "turn_sketch.h"

namespace doberman::state {

// Appends past this many records are refused: the caller folds through the store.
inline constexpr size_t kMaxStyleUpdates = 4096;
// A reader finding more records than this folds through the store instead, so that what a turn
// pays for reading stays bounded (about 0.6k instructions a record, 0.16M for 256, against the
// store's open of about 1.5 ms, then paid once per 256 turns at most).
inline constexpr size_t kMaxStyleUpdatesRead = 256;
// A base of more people than this is not written (readers then fold through the store); a state
// directory holds one per host user of it.
inline constexpr size_t kMaxStyleBaseEntities = 256;

struct StyleUpdate {
  Fingerprint entity{};
  StyleFeatures features{};
};

struct EntityBaseline {
  Fingerprint entity{};
  StyleBaseline baseline;
};

// What a journal file holds that verifies under the directory's key.
struct StyleJournalContents {
  bool has_base = false;
  uint64_t base_db_inode = 0;
  std::string base_boot;  // the boot id as written (zero padded)
  std::vector<EntityBaseline> base;
  std::vector<StyleUpdate> updates;  // at most kMaxStyleUpdates, in order
  size_t skipped = 0;                // updates (and a torn tail, a damaged base) not trusted
};

// Appends one update, waiting at most `timeout_ms` for the journal's lock. False with `error` when
// it cannot be written or is full.
bool AppendStyleUpdate(const StateDir& dir, const StyleUpdate& update, int timeout_ms,
                       std::string* error);

// `entity`'s baseline as the store will hold it after its next fold: the base, which must have
// been written for the database whose inode is `db_inode` during this boot, plus the entity's
// updates. False, with `error` empty, when there is no such base or more than
// kMaxStyleUpdatesRead records (the caller folds through the store); false with `error` when the
// journal cannot be read.
bool ReadStyleBaseline(const StateDir& dir, uint64_t db_inode, const Fingerprint& entity,
                       int timeout_ms, StyleBaseline* out, std::string* error);

// Folds the journal, under its lock: hands every update that verifies to `apply`, which applies
// them in one transaction, commits, and fills the baselines of every person it then holds; the
// journal is rewritten as that base (for `db_inode` and this boot) with no updates. Nothing is
// applied, and the journal left as it is, when it has no updates and a current base. `*skipped`
// counts what did not verify.
using ApplyStyleUpdates =
    std::function<bool(const std::vector<StyleUpdate>&, std::vector<EntityBaseline>*)>;
bool FoldStyleJournal(const StateDir& dir, uint64_t db_inode, int timeout_ms,
                      const ApplyStyleUpdates& apply, size_t* skipped, std::string* error);

// What a whole journal's bytes hold that verifies under `key`. For the fold and the fuzz target.
StyleJournalContents ParseStyleJournal(const Key& key, std::string_view data);

}  // namespace doberman::state

#endif  // DOBERMAN_STATE_STYLE_JOURNAL_H_
