// DIR/ledger.hints: what a one-shot hook process may know about the store without opening SQLite
// (which costs about 1.5 ms per process here, five times the whole per-process budget of session
// memory). It holds a Bloom filter of every value fingerprint the ledger recorded, in any session,
// the latest time any handoff can still be active, and the time of the latest blocked turn (the
// repeat record). All only over-approximate: a value the filter says "maybe" to, or a time within
// a bound, sends the caller to the store; a "no" is exact, because every writer sets the bits and
// raises the bounds inside its write transaction, before it commits.
//
// A hints file is trusted only for the database it was built for (its inode) and since the last
// boot (the kernel's boot id): nothing here is synced, so after a crash it is rebuilt from the
// store. Anything unexpected (missing, short, another owner, a foreign layout) means "not usable"
// and the caller opens the store, which rebuilds it.
#ifndef DOBERMAN_STATE_LEDGER_HINTS_H_
#define DOBERMAN_STATE_LEDGER_HINTS_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "state_dir.h"

namespace doberman::state {

class LedgerHints {
 public:
  LedgerHints() = default;
  LedgerHints(const LedgerHints&) = delete;
  LedgerHints& operator=(const LedgerHints&) = delete;
  ~LedgerHints();

  // Opens DIR/ledger.hints for reading, without mapping it: a one-shot process asks about a few
  // values, and each first touch of a mapped page was a page fault of 10-20 us on the virtual
  // machines measured, against a few microseconds for reading the value's 64-byte block. False
  // (and nothing open) when the file is not usable for the database whose inode is `db_inode`.
  bool OpenForRead(const std::string& dir, uint64_t db_inode);
  // Maps it for writing (a store's connection). False when it is missing or not usable for
  // `db_inode`: the caller rebuilds it.
  bool OpenForWrite(const std::string& dir, uint64_t db_inode);
  // Writes a new file for `db_inode` under a temporary name (0600) and renames it into place, then
  // maps it for writing. `values` calls its argument once per recorded value fingerprint.
  template <typename ForEachValue>
  bool Rebuild(const std::string& dir, uint64_t db_inode, int64_t handoff_until,
               int64_t last_blocked_turn, ForEachValue values, std::string* error) {
    if (!CreateEmpty(dir, db_inode, handoff_until, last_blocked_turn, error)) return false;
    values([this](const Fingerprint& f) { Add(f); });
    return Install(dir, error);
  }
  // Whether the file in place is still the one mapped (a rebuild by another process renames a new
  // one over it); a writer checks this inside its write transaction before it adds.
  bool StillInPlace(const std::string& dir) const;

  bool usable() const { return map_ != nullptr || fd_ >= 0; }
  // False when `f` was certainly never recorded.
  bool MayHold(const Fingerprint& f) const;
  // No handoff of any session is active after this time (Unix seconds).
  int64_t handoff_until() const;
  // No session has a blocked turn recorded after this time (Unix seconds).
  int64_t last_blocked_turn() const;
  // Values added since the file was built (re-recordings count again): past a bound the filter is
  // rebuilt from the store, which drops expired values.
  uint64_t added() const;

  // Writers only (OpenForWrite or Rebuild).
  void Add(const Fingerprint& f);
  void RaiseHandoff(int64_t until);
  void RaiseLastBlockedTurn(int64_t at);

  void Close();

 private:
  bool Map(const std::string& path, bool write, uint64_t db_inode);
  bool CreateEmpty(const std::string& dir, uint64_t db_inode, int64_t handoff_until,
                   int64_t last_blocked_turn, std::string* error);
  // A bound of the header: a reader's copy, a writer's mapped word (INT64_MAX when neither).
  int64_t BoundAt(size_t offset, int64_t read_copy) const;
  void RaiseBoundAt(size_t offset, int64_t value);
  bool Install(const std::string& dir, std::string* error);

  uint8_t* map_ = nullptr;         // a writer's mapping
  int fd_ = -1;                    // a reader's file
  int64_t read_handoff_ = 0;       // a reader's copy of the handoff bound
  int64_t read_blocked_turn_ = 0;  // and of the blocked-turn bound
  size_t size_ = 0;
  uint64_t inode_ = 0;  // of the hints file mapped
  std::string temp_;    // the file being built by Rebuild
};

}  // namespace doberman::state

#endif  // DOBERMAN_STATE_LEDGER_HINTS_H_
