// DIR/log.journal: decision log rows appended by one-shot hook processes that did not need to open
// the store. Appending is one locked write() (tens of microseconds), where a SQLite transaction
// first costs opening the database (about 1.5 ms per process here). The next connection that writes
// the log (another process's store, the service's logger, `doberman-guard log`) folds the journal
// into the decision log, in order, in one transaction, and empties it.
//
// Records are chained like the log itself: each carries a BLAKE2b-256 digest, keyed with the
// directory's key, over the previous digest (the first one's is a random nonce in the file's
// header) and the record. A record that does not verify (edited, or torn by a crash) ends the fold;
// what follows it is dropped and the fold writes a row saying so. The last folded digest is kept in
// the store, so a fold that committed but died before emptying the journal is not folded twice.
//
// Layout: "DOBJRNL1", 32-byte nonce; then per record: u32 length (little-endian), the row (u64
// milliseconds, 16-byte session fingerprint, 1-byte verdict, the row's JSON), 32-byte digest.
#ifndef DOBERMAN_STATE_LOG_JOURNAL_H_
#define DOBERMAN_STATE_LOG_JOURNAL_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "state_dir.h"
#include "state_store.h"

namespace doberman::state {

using JournalDigest = std::array<uint8_t, 32>;

// Appends `row` (`at_ms` 0: now). `*size_after` is the journal's size once it is written; a caller
// folds a journal grown past a bound. Waits at most `timeout_ms` for the journal's lock.
bool AppendToJournal(const StateDir& dir, const LogRow& row, int timeout_ms, int64_t* size_after,
                     std::string* error);

// One fold, from the journal's side. Lock first (before the store's write lock: every folder takes
// them in this order), then Read with the last digest the store folded, then, once the rows are
// committed, Empty.
class JournalFold {
 public:
  JournalFold() = default;
  JournalFold(const JournalFold&) = delete;
  JournalFold& operator=(const JournalFold&) = delete;
  ~JournalFold();

  // Opens and locks DIR/log.journal. True with `present()` false when there is none.
  bool Lock(const StateDir& dir, int timeout_ms, std::string* error);
  bool present() const { return fd_ >= 0; }
  // True when the journal holds records past its header (a cheap look, under the lock).
  bool HasRecords() const;
  // The rows after the record whose digest is `folded` (all of them when it is absent), in order,
  // up to the first record that does not verify (`*damaged` then). `*last` is the digest of the
  // last row returned (unchanged when none).
  bool Read(const Key& key, const JournalDigest& folded, std::vector<LogRow>* rows, bool* damaged,
            JournalDigest* last, std::string* error);
  // Empties the journal: a new header with a new nonce.
  bool Empty(std::string* error);

 private:
  int fd_ = -1;
  std::string path_;
};

}  // namespace doberman::state

#endif  // DOBERMAN_STATE_LOG_JOURNAL_H_
