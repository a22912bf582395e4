// The session-memory store: one SQLite database (WAL) in the state directory, shared by every hook
// process of the user. It keeps the taint ledger (keyed fingerprints of values seen, per session)
// and the decision log (one redacted row per decision, hash-chained). Nothing raw is stored:
// values, sessions and the chain are keyed digests, rows hold rule ids, reason codes and verdicts.
//
// Concurrency: many processes open it at once; writes take the write lock up front (BEGIN
// IMMEDIATE) and wait for it at most the busy timeout; each call is one short transaction.
// Bounds: ledger rows expire after a TTL and are capped; log rows too (the chain keeps an anchor
// so that verification still starts from a known digest).
#ifndef DOBERMAN_STATE_STATE_STORE_H_
#define DOBERMAN_STATE_STATE_STORE_H_

#include <cstdint>
#include <cstring>
#include <ctime>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "generation_file.h"
#include "ledger_hints.h"
#include "state_dir.h"
#include "style_journal.h"
#include "tag_filter.h"
#include "turn_sketch.h"

struct sqlite3;
struct sqlite3_stmt;

namespace doberman::state {

// What a recorded value is. Ordered: a lookup reports the most severe kind found.
enum class ValueKind : int { kNone = 0, kUntrusted = 1, kSecret = 2 };

// A value to record: its fingerprint and, when the caller knows it, its tag (doberman_value_tags),
// with which a cached session skips the fingerprints of values it cannot hold.
struct RecordedValue {
  Fingerprint fingerprint{};
  uint64_t tag = 0;
  bool tagged = false;
};

struct StoreLimits {
  int64_t value_ttl_seconds = 24 * 3600;
  int64_t max_values = 200000;
  int64_t log_ttl_seconds = 30 * 24 * 3600;
  int64_t max_log_rows = 1000000;
  int busy_timeout_ms = 2000;
};

// One decision as the log keeps it. `json` is the row's canonical text (what `log --json` prints
// and what the chain digests); the other fields index it.
// Milliseconds since the epoch, as LogRow::at_ms holds them.
inline int64_t NowMs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

struct LogRow {
  int64_t seq = 0;
  int64_t at_ms = 0;
  Fingerprint session{};
  int verdict = 0;
  std::string json;
};

struct LogFilter {
  int64_t since_ms = 0;
  int min_verdict = -1;   // -1: every verdict
  int only_verdict = -1;  // -1: every verdict
  bool by_session = false;
  Fingerprint session{};
};

class StateStore {
 public:
  ~StateStore();
  StateStore(const StateStore&) = delete;
  StateStore& operator=(const StateStore&) = delete;

  // Opens DIR/state.db, creating it (0600) with the current schema. A database that is corrupt or
  // not a database is moved aside (state.db.corrupt-UNIXTIME) and a new one created: `*rebuilt`
  // is then true and the caller must not trust that nothing was recorded. A database written by a
  // newer schema is refused (its data is not ours to discard).
  static std::unique_ptr<StateStore> Open(const StateDir& dir, const StoreLimits& limits,
                                          bool* rebuilt, std::string* error);

  // Records `values` for `session` as `kind` (an existing row keeps the more severe kind and is
  // refreshed, and keeps its tag unless one is given). One transaction; also expires old rows.
  bool RecordValues(const Fingerprint& session, const std::vector<RecordedValue>& values,
                    ValueKind kind, int64_t now, std::string* error);
  // The same for values whose tags are not known.
  bool RecordValues(const Fingerprint& session, const std::vector<Fingerprint>& values,
                    ValueKind kind, int64_t now, std::string* error);

  // Removes and returns every value recorded for `session`, with its kind, in one transaction: a
  // queue several processes may drain (each value is taken by exactly one of them). The egress
  // broker's connection history is kept this way.
  bool TakeValues(const Fingerprint& session, std::vector<std::pair<Fingerprint, ValueKind>>* taken,
                  std::string* error);
  // The most severe kind recorded for any of `values` in any session: for a question from a proxy,
  // which cannot tell which session sent the request.
  bool LookupValuesInAnySession(const std::vector<Fingerprint>& values, int64_t now,
                                ValueKind* worst, std::string* error);
  // The most severe kind recorded for any of `values` in `session` (kNone when none).
  bool LookupValues(const Fingerprint& session, const std::vector<Fingerprint>& values, int64_t now,
                    ValueKind* worst, std::string* error);
  // Readies the next LookupValues of `session`. From a store's second lookup on, the session's
  // values are held in memory, and `*filter` then says which tags they can have: a value whose
  // tag it rejects cannot be among them and need not be fingerprinted or looked up. Otherwise
  // `*filter` is null (look every value up). The filter stays valid until the next call on this
  // store.
  bool PrepareLookup(const Fingerprint& session, const TagFilter** filter, std::string* error);

  // Whether DIR/state.db is a database of this schema version, from its header alone (no SQLite):
  // a one-shot process that finds it so may trust DIR/ledger.hints built for `*db_inode` and
  // leave the store closed. False for anything else (then open the store: it upgrades, rebuilds
  // or refuses).
  static bool LooksCurrent(const StateDir& dir, uint64_t* db_inode);
  // The database file's inode (0 when it cannot be stat'ed): what files kept beside it for
  // one-shot readers (ledger.hints, the style journal's base) are tied to.
  uint64_t DbInode() const;

  // Moves the rows one-shot processes journaled (log_journal.h) into the decision log, in order,
  // in one transaction, and empties the journal. AppendLogs, ReadLog and VerifyLog do it first.
  bool FoldJournal(std::string* error);

  // Appends one row: assigns its sequence number and chains it to the previous row.
  bool AppendLog(LogRow* row, std::string* error);
  // Appends rows in order, in one transaction (a service batches its log this way).
  bool AppendLogs(std::vector<LogRow>* rows, std::string* error);

  // Rows matching `filter`, oldest first; `fn` returns false to stop.
  bool ReadLog(const LogFilter& filter, const std::function<bool(const LogRow&)>& fn,
               std::string* error);

  // Recomputes the chain from its anchor over every row. `problem` names the first row that does
  // not fit (edited, deleted, inserted or reordered) and `rows` counts those checked.
  bool VerifyLog(int64_t* rows, std::string* head, std::string* problem);

  // Repeat record: a blocked turn's sketch, kept `window_seconds`.
  bool RecordBlockedTurn(const Fingerprint& session, const Sketch& sketch, int verdict, int64_t now,
                         int64_t window_seconds, std::string* error);
  // The closest blocked turn of `session` within the window whose similarity is at least
  // `threshold`: `*found` and the challenges it already had; that count is then incremented.
  bool MatchBlockedTurn(const Fingerprint& session, const Sketch& sketch, int64_t now,
                        int64_t window_seconds, double threshold, bool* found, int* challenges,
                        int* original_verdict, std::string* error);

  // Handoff: the session's next `actions` actions until `until` are raised.
  bool StartHandoff(const Fingerprint& session, int64_t until, int actions, std::string* error);
  // Whether a handoff is active for this action (and counts the action against it).
  bool TakeHandoff(const Fingerprint& session, int64_t now, bool* active, std::string* error);

  // Style baseline per entity (the person behind a host user).
  bool LoadStyle(const Fingerprint& entity, StyleBaseline* baseline, std::string* error);
  // Folds the journaled updates (style_journal.h) into the baselines, in one write transaction,
  // and rewrites the journal as the new base; call before LoadStyle. Every change to a baseline
  // goes through here, so that the journal's base stays the store's. `*skipped` counts what did
  // not verify.
  bool FoldStyleUpdates(size_t* skipped, std::string* error);
  // Every person's baseline.
  bool LoadAllStyles(std::vector<EntityBaseline>* out, std::string* error);

  int64_t CountValues();  // for tests

 private:
  StateStore() = default;
  // Only inside a fold: a baseline written anywhere else would leave the journal's base stale.
  bool SaveStyle(const Fingerprint& entity, const StyleBaseline& baseline, std::string* error);
  bool Setup(std::string* error);
  bool Exec(const char* sql, std::string* error);
  bool Begin(bool write, std::string* error);
  bool Commit(std::string* error);
  void Rollback();
  bool Expire(int64_t now, std::string* error);
  bool LoadSession(const Fingerprint& session, int64_t version, std::string* error);
  // Every value recorded for `session`, with its kind, when it was last seen and its tag (null when
  // it was recorded without one).
  bool ForEachSessionValue(
      const Fingerprint& session, std::string* error,
      const std::function<void(const Fingerprint&, ValueKind, int64_t, const uint64_t*)>& fn);
  // Runs `body` inside one read transaction (one lock, one snapshot) and ends it.
  bool InReadTransaction(std::string* error, const std::function<bool()>& body);
  // Marks the value ledger changed (other connections' cached sessions reload): a new generation
  // in meta and, before the commit, in the generation file.
  bool BumpLedgerGeneration(std::string* error);
  bool LedgerGeneration(int64_t* version);
  // DIR/ledger.hints (ledger_hints.h): mapped for writing when the store opens, rebuilt when it
  // cannot be trusted; MarkHints adds to it inside every write transaction of the ledger, the
  // handoffs or the repeat record, before the commit (0: that bound is not raised).
  void OpenHints();
  bool MarkHints(const std::vector<RecordedValue>& values, int64_t handoff_until,
                 int64_t blocked_turn_at, std::string* error);
  bool InsertLogRows(std::vector<LogRow>* rows, std::string* error);

  struct FingerprintHash {
    size_t operator()(const Fingerprint& f) const {
      size_t h;
      std::memcpy(&h, f.data(), sizeof h);  // keyed digests: any 8 bytes are uniform
      return h;
    }
  };
  struct Recorded {
    ValueKind kind;
    int64_t seen;
  };

  sqlite3* db_ = nullptr;
  GenerationFile generation_;       // DIR/ledger.gen
  LedgerHints hints_;               // DIR/ledger.hints
  std::string dir_;                 // DIR
  sqlite3_stmt* lookup_ = nullptr;  // prepared once: preparing costs more than a lookup
  sqlite3_stmt* ledger_generation_ =
      nullptr;  // the ledger's generation in meta (see LedgerGeneration)
  // A long-lived process (an embedder, the service) looks a session up again and again: from its
  // second lookup it keeps the session's values in memory, reloaded when the ledger changed.
  int lookups_ = 0;
  bool cache_valid_ = false;
  Fingerprint cached_session_{};
  int64_t cached_version_ = -1;
  std::unordered_map<Fingerprint, Recorded, FingerprintHash> cached_values_;
  TagFilter cached_filter_;
  // PrepareLookup ran for prepared_session_ and the next LookupValues of it uses what it found.
  bool prepared_ = false;
  bool use_cache_ = false;
  Fingerprint prepared_session_{};
  Key key_{};
  StoreLimits limits_;
  std::string path_;
};

}  // namespace doberman::state

#endif  // DOBERMAN_STATE_STATE_STORE_H_
