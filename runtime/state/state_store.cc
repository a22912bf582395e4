// The session-memory store on SQLite (API and guarantees in state_store.h).
#include "state_store.h"

#include <fcntl.h>
#include <sodium.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <string>

#include "ledger_hints.h"
#include "little_endian.h"
#include "sqlite_statement.h"
#include "style_journal.h"

namespace doberman::state {

using store_detail::DbError;
using store_detail::Stmt;

namespace {

// 2: value_ledger_value (lookups across sessions, for proxies that cannot name one). 3: the
// ledger generation is also kept in ledger.gen, which a version-2 writer would not update (so it
// must refuse the store), and value_ledger.tag. 4: ledger.hints, whose bits every writer sets
// (a version-3 writer would not: one-shot processes trusting the hints would miss its values), and
// log.journal, which the log's readers fold in. Older stores are brought up to date on open (every
// statement of the schema is IF NOT EXISTS; the tag column is added).
constexpr int kSchemaVersion = 4;
constexpr const char* kDbFile = "state.db";
constexpr const char* kGenerationFile = "ledger.gen";
constexpr const char* kLockFile = "state.lock";

const char kSchema[] =
    "CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS value_ledger(session BLOB NOT NULL, value BLOB NOT NULL,"
    " kind INTEGER NOT NULL, seen INTEGER NOT NULL, tag INTEGER,"
    " PRIMARY KEY(session, value)) WITHOUT ROWID;"
    "CREATE INDEX IF NOT EXISTS value_ledger_seen ON value_ledger(seen);"
    "CREATE INDEX IF NOT EXISTS value_ledger_value ON value_ledger(value);"
    "CREATE TABLE IF NOT EXISTS decision_log(seq INTEGER PRIMARY KEY, at INTEGER NOT NULL,"
    " session BLOB NOT NULL, verdict INTEGER NOT NULL, row TEXT NOT NULL, chain BLOB NOT NULL);"
    "CREATE INDEX IF NOT EXISTS decision_log_at ON decision_log(at);"
    "CREATE TABLE IF NOT EXISTS blocked_turn(id INTEGER PRIMARY KEY, session BLOB NOT NULL,"
    " sketch BLOB NOT NULL, verdict INTEGER NOT NULL, challenges INTEGER NOT NULL,"
    " at INTEGER NOT NULL);"
    "CREATE INDEX IF NOT EXISTS blocked_turn_session ON blocked_turn(session, at);"
    "CREATE TABLE IF NOT EXISTS handoff(session BLOB PRIMARY KEY, until INTEGER NOT NULL,"
    " actions INTEGER NOT NULL) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS style_baseline(entity BLOB PRIMARY KEY, turns INTEGER NOT NULL,"
    " stats BLOB NOT NULL) WITHOUT ROWID;";

bool IsCorrupt(int rc) {
  const int primary = rc & 0xff;
  return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB;
}

// Holds DIR/state.lock exclusively while the database is created or rebuilt. Two processes
// finding it corrupt must not move each other's fresh database aside, and two creating it at once
// must not both switch it to WAL: that switch needs an exclusive lock, and SQLite answers the
// second connection "database is locked" at once, without its busy handler (seen with the
// service's workers and its logger opening one new store together). The wait is bounded like
// SQLite's own busy timeout; `held()` says whether the lock was got.
class StateDirLock {
 public:
  StateDirLock(const std::string& dir, int timeout_ms) {
    std::string error;  // not reported: a lock not held says what the caller needs
    fd_ = OpenPrivateFile(dir + "/" + kLockFile, /*create=*/true, &error);
    held_ = fd_ >= 0 && LockExclusiveBounded(fd_, timeout_ms);
  }
  ~StateDirLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  StateDirLock(const StateDirLock&) = delete;
  StateDirLock& operator=(const StateDirLock&) = delete;
  bool held() const { return held_; }

 private:
  int fd_ = -1;
  bool held_ = false;
};

// Creates the database file 0600 before SQLite does (SQLite would honour the umask; its -wal and
// -shm files copy the database file's mode), and refuses one that is not ours.
bool PrepareFile(const std::string& path, std::string* error) {
  const int fd = OpenPrivateFile(path, /*create=*/true, error);
  if (fd >= 0) ::close(fd);
  return fd >= 0;
}

// After a commit: once the WAL holds kCheckpointFrames frames, copy them into the database and
// truncate it. Truncating matters: the next process to open the store (usually the only one) runs
// SQLite's recovery over every frame in the WAL and, not knowing they were copied, copies them
// again at its next checkpoint; a WAL left long made every hook process slower the longer it grew.
// The checkpoint does not wait: with another connection reading, it gives up and a later commit
// retries.
constexpr int kCheckpointFrames = 64;
int CheckpointWhenLong(void* busy_timeout_ms, sqlite3* db, const char* name, int frames) {
  if (frames >= kCheckpointFrames) {
    sqlite3_busy_timeout(db, 0);
    sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
    sqlite3_busy_timeout(db, *static_cast<int*>(busy_timeout_ms));
  }
  return SQLITE_OK;
}

}  // namespace

StateStore::~StateStore() {
  sqlite3_finalize(lookup_);
  sqlite3_finalize(ledger_generation_);
  sqlite3_close_v2(db_);
  sodium_memzero(key_.data(), key_.size());
}

std::unique_ptr<StateStore> StateStore::Open(const StateDir& dir, const StoreLimits& limits,
                                             bool* rebuilt, std::string* error) {
  *rebuilt = false;
  const std::string path = dir.path + "/" + kDbFile;
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!PrepareFile(path, error)) return nullptr;
    std::unique_ptr<StateStore> s(new StateStore());
    s->key_ = dir.key;
    s->limits_ = limits;
    s->path_ = path;
    // Without it a cached session could not learn of another process's writes: no store at all.
    const std::string generation = dir.path + "/" + kGenerationFile;
    if (!s->generation_.Open(generation, error)) return nullptr;
    const int rc = sqlite3_open_v2(
        path.c_str(), &s->db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX,
        nullptr);
    if (rc == SQLITE_OK) {
      sqlite3_busy_timeout(s->db_, limits.busy_timeout_ms);
      sqlite3_extended_result_codes(s->db_, 1);
      // A hook process is usually the only connection, and by default the last connection to
      // close checkpoints the WAL (two fdatasyncs) and deletes it, so that the next process
      // recreates and syncs it again: several milliseconds per call. Instead the WAL stays and is
      // not checkpointed on close; CheckpointWhenLong keeps it short, so that the recovery every
      // first opener runs over it stays cheap, and the syncs are paid every few dozen processes
      // instead of every one (docs/session-memory.md has the measurements).
      int persist = 1;
      sqlite3_file_control(s->db_, "main", SQLITE_FCNTL_PERSIST_WAL, &persist);
      sqlite3_db_config(s->db_, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
      sqlite3_wal_hook(s->db_, CheckpointWhenLong, &s->limits_.busy_timeout_ms);
      std::string setup_error;
      if (s->Setup(&setup_error)) {
        s->dir_ = dir.path;
        s->OpenHints();
        return s;
      }
      const int code = sqlite3_extended_errcode(s->db_);
      if (!IsCorrupt(code) || attempt > 0) {
        *error = setup_error;
        return nullptr;
      }
    } else if (!IsCorrupt(rc) || attempt > 0) {
      *error = DbError(s->db_, "cannot open " + path);
      return nullptr;
    }
    // Corrupt: move it aside (under the lock, and only if it is still the corrupt one) and retry.
    s.reset();
    StateDirLock lock(dir.path, limits.busy_timeout_ms);
    if (!lock.held()) {
      *error = "state store " + path + " is corrupt and another process holds its lock";
      return nullptr;
    }
    sqlite3* probe = nullptr;
    bool still_corrupt = true;
    if (sqlite3_open_v2(path.c_str(), &probe, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW,
                        nullptr) == SQLITE_OK) {
      still_corrupt =
          IsCorrupt(sqlite3_exec(probe, "PRAGMA user_version", nullptr, nullptr, nullptr));
    }
    sqlite3_close_v2(probe);
    if (still_corrupt) {
      const std::string aside = path + ".corrupt-" + std::to_string(std::time(nullptr));
      if (::rename(path.c_str(), aside.c_str()) != 0) {
        *error = "state store " + path +
                 " is corrupt and cannot be moved aside: " + std::strerror(errno);
        return nullptr;
      }
      ::unlink((path + "-wal").c_str());
      ::unlink((path + "-shm").c_str());
    }
    *rebuilt = true;
  }
  *error = "state store " + path + ": cannot be rebuilt";
  return nullptr;
}

bool StateStore::Exec(const char* sql, std::string* error) {
  if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) == SQLITE_OK) return true;
  *error = DbError(db_, sql);
  return false;
}

bool StateStore::Setup(std::string* error) {
  auto read_version = [&](int* version) {
    Stmt q(db_, "PRAGMA user_version");
    if (!q.ok() || q.Step() != SQLITE_ROW) {
      *error = DbError(db_, "cannot read the schema version");
      return false;
    }
    *version = sqlite3_column_int(q.get(), 0);
    return true;
  };
  int version = -1;
  if (!read_version(&version) || !Exec("PRAGMA synchronous=NORMAL", error)) return false;
  if (version == kSchemaVersion) return true;
  // New or older database: created by one process at a time, and the version read again under
  // the lock, since the process that held it may have just created it.
  StateDirLock lock(path_.substr(0, path_.rfind('/')), limits_.busy_timeout_ms);
  if (!lock.held()) {
    *error = "state store " + path_ + ": another process is creating it and did not finish";
    return false;
  }
  if (!read_version(&version)) return false;
  if (version == kSchemaVersion) return true;
  if (version > kSchemaVersion) {
    *error = "state store " + path_ + " has schema " + std::to_string(version) +
             ", newer than this doberman-guard's " + std::to_string(kSchemaVersion);
    return false;
  }
  if (!Exec("PRAGMA journal_mode=WAL", error) || !Begin(true, error)) return false;
  bool has_tag = false;
  {
    Stmt probe(db_, "SELECT tag FROM value_ledger LIMIT 0");
    has_tag = probe.ok();
  }
  if (!Exec(kSchema, error) ||
      (!has_tag && version > 0 &&
       !Exec("ALTER TABLE value_ledger ADD COLUMN tag INTEGER", error)) ||
      !Exec(("PRAGMA user_version=" + std::to_string(kSchemaVersion)).c_str(), error)) {
    Rollback();
    return false;
  }
  if (!Commit(error)) return false;
  // Into the database file now: the new version in the file's header is what tells one-shot
  // processes (LooksCurrent) they may leave the store closed; in the WAL they cannot see it.
  sqlite3_wal_checkpoint_v2(db_, "main", SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
  return true;
}

bool StateStore::Begin(bool write, std::string* error) {
  return Exec(write ? "BEGIN IMMEDIATE" : "BEGIN", error);
}
bool StateStore::Commit(std::string* error) {
  if (Exec("COMMIT", error)) return true;
  Rollback();
  return false;
}
void StateStore::Rollback() { sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr); }

bool StateStore::LooksCurrent(const StateDir& dir, uint64_t* db_inode) {
  // The database header: its magic, and the user version at offset 60 (big-endian). A store that
  // is not a database, older or newer, or whose version change is still only in the WAL, does not
  // look current: the caller opens it properly.
  const std::string path = dir.path + "/" + kDbFile;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  uint8_t header[100];
  struct stat st {};
  const bool read_ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() &&
                       (st.st_mode & 077) == 0 &&
                       ::pread(fd, header, sizeof header, 0) == static_cast<ssize_t>(sizeof header);
  ::close(fd);
  if (!read_ok || std::memcmp(header, "SQLite format 3", 16) != 0) return false;
  const uint32_t version = (uint32_t{header[60]} << 24) | (uint32_t{header[61]} << 16) |
                           (uint32_t{header[62]} << 8) | header[63];
  *db_inode = static_cast<uint64_t>(st.st_ino);
  return version == static_cast<uint32_t>(kSchemaVersion);
}

uint64_t StateStore::DbInode() const {
  struct stat st {};
  return ::stat(path_.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_ino) : 0;
}

// Maps the hints for writing, rebuilding them from the ledger when they are missing, belong to
// another database or boot, or have taken in many more values than the ledger's cap (expired ones
// included). Not fatal: without usable hints every writer removes the file (MarkHints), so no
// reader trusts a stale one.
void StateStore::OpenHints() {
  const uint64_t inode = DbInode();
  if (inode != 0 && hints_.OpenForWrite(dir_, inode) &&
      hints_.added() <= static_cast<uint64_t>(4 * limits_.max_values)) {
    return;
  }
  std::string error;
  if (!Begin(true, &error)) return;
  // Unreadable bounds are left at "always" (INT64_MAX): every reader then opens the store.
  auto bound = [&](const char* sql) {
    Stmt q(db_, sql);
    return q.ok() && q.Step() == SQLITE_ROW ? sqlite3_column_int64(q.get(), 0) : INT64_MAX;
  };
  const int64_t handoff_until = bound("SELECT coalesce(max(until), 0) FROM handoff");
  const int64_t last_blocked_turn = bound("SELECT coalesce(max(at), 0) FROM blocked_turn");
  bool listed = true;
  const bool built = hints_.Rebuild(
      dir_, inode, handoff_until, last_blocked_turn,
      [&](const std::function<void(const Fingerprint&)>& add) {
        Stmt q(db_, "SELECT value FROM value_ledger");
        int rc = SQLITE_DONE;
        while (q.ok() && (rc = q.Step()) == SQLITE_ROW) {
          if (sqlite3_column_bytes(q.get(), 0) != static_cast<int>(sizeof(Fingerprint))) continue;
          Fingerprint f{};
          std::memcpy(f.data(), sqlite3_column_blob(q.get(), 0), f.size());
          add(f);
        }
        listed = q.ok() && rc == SQLITE_DONE;
      },
      &error);
  if (!built || !listed) {
    hints_.Close();
    ::unlink((dir_ + "/ledger.hints").c_str());
  }
  Rollback();  // nothing written to the database; the write lock kept writers out meanwhile
}

// Inside a write transaction, before it commits: the hints learn of what it records.
bool StateStore::MarkHints(const std::vector<RecordedValue>& values, int64_t handoff_until,
                           int64_t blocked_turn_at, std::string* error) {
  if (hints_.usable() && !hints_.StillInPlace(dir_)) {
    const uint64_t inode = DbInode();
    if (!hints_.OpenForWrite(dir_, inode)) hints_.Close();
  }
  if (!hints_.usable()) {
    // Whatever file is there was not kept current by us: it must not be trusted by anyone.
    const std::string path = dir_ + "/ledger.hints";
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
      *error = "state store: cannot remove stale " + path + ": " + std::strerror(errno);
      return false;
    }
    return true;
  }
  if (handoff_until > 0) hints_.RaiseHandoff(handoff_until);
  if (blocked_turn_at > 0) hints_.RaiseLastBlockedTurn(blocked_turn_at);
  for (const RecordedValue& v : values) hints_.Add(v.fingerprint);
  return true;
}

bool StateStore::Expire(int64_t now, std::string* error) {
  Stmt old(db_, "DELETE FROM value_ledger WHERE seen < ?");
  if (!old.ok()) return (*error = DbError(db_, "expire"), false);
  old.Int(1, now - limits_.value_ttl_seconds);
  if (old.Step() != SQLITE_DONE) return (*error = DbError(db_, "expire"), false);
  // The row cap costs a count, so it is checked on one write in 64.
  uint8_t dice = 0;
  randombytes_buf(&dice, 1);
  if (dice % 64 != 0) return true;
  Stmt cap(db_,
           "DELETE FROM value_ledger WHERE seen <= (SELECT seen FROM value_ledger ORDER BY seen "
           "DESC LIMIT 1 OFFSET ?)");
  if (!cap.ok()) return (*error = DbError(db_, "cap"), false);
  cap.Int(1, limits_.max_values);
  if (cap.Step() != SQLITE_DONE) return (*error = DbError(db_, "cap"), false);
  return true;
}

bool StateStore::RecordValues(const Fingerprint& session, const std::vector<Fingerprint>& values,
                              ValueKind kind, int64_t now, std::string* error) {
  std::vector<RecordedValue> untagged(values.size());
  for (size_t i = 0; i < values.size(); ++i) untagged[i].fingerprint = values[i];
  return RecordValues(session, untagged, kind, now, error);
}

bool StateStore::RecordValues(const Fingerprint& session, const std::vector<RecordedValue>& values,
                              ValueKind kind, int64_t now, std::string* error) {
  if (values.empty()) return true;
  cache_valid_ = false;  // the generation bumped below is ours: drop the cache outright
  if (!Begin(true, error)) return false;
  {
    Stmt put(db_,
             "INSERT INTO value_ledger(session, value, kind, seen, tag) VALUES(?,?,?,?,?) "
             "ON CONFLICT(session, value) DO UPDATE SET kind=max(kind, excluded.kind), "
             "seen=excluded.seen, tag=coalesce(excluded.tag, tag)");
    if (!put.ok()) {
      *error = DbError(db_, "record");
      Rollback();
      return false;
    }
    for (const RecordedValue& v : values) {
      put.Blob(1, session.data(), session.size());
      put.Blob(2, v.fingerprint.data(), v.fingerprint.size());
      put.Int(3, static_cast<int>(kind));
      put.Int(4, now);
      if (v.tagged) put.Int(5, static_cast<int64_t>(v.tag));  // else NULL (Reset clears it)
      if (put.Step() != SQLITE_DONE) {
        *error = DbError(db_, "record");
        Rollback();
        return false;
      }
      put.Reset();
    }
  }
  if (!Expire(now, error) || !BumpLedgerGeneration(error) || !MarkHints(values, 0, 0, error)) {
    Rollback();
    return false;
  }
  return Commit(error);
}

bool StateStore::TakeValues(const Fingerprint& session,
                            std::vector<std::pair<Fingerprint, ValueKind>>* taken,
                            std::string* error) {
  taken->clear();
  // The queue is nearly always empty when a decision looks (every decision of a hook that names a
  // broker does): a read says so without taking the write lock that every hook process contends
  // for. A value recorded after this read is taken by the next look.
  bool any = false;
  {
    Stmt q(db_, "SELECT 1 FROM value_ledger WHERE session=? LIMIT 1");
    if (!q.ok()) return (*error = DbError(db_, "take"), false);
    q.Blob(1, session.data(), session.size());
    const int rc = q.Step();
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return (*error = DbError(db_, "take"), false);
    any = rc == SQLITE_ROW;
  }
  if (!any) return true;
  cache_valid_ = false;
  if (!Begin(true, error)) return false;
  bool ok = ForEachSessionValue(
      session, error, [&](const Fingerprint& v, ValueKind kind, int64_t, const uint64_t*) {
        taken->emplace_back(v, kind);
      });
  if (ok) {
    Stmt del(db_, "DELETE FROM value_ledger WHERE session=?");
    if (del.ok()) del.Blob(1, session.data(), session.size());
    ok = del.ok() && del.Step() == SQLITE_DONE;
    if (!ok) *error = DbError(db_, "take");
  }
  if (!ok || (!taken->empty() && !BumpLedgerGeneration(error))) {
    Rollback();
    return false;
  }
  return Commit(error);
}

bool StateStore::ForEachSessionValue(
    const Fingerprint& session, std::string* error,
    const std::function<void(const Fingerprint&, ValueKind, int64_t, const uint64_t*)>& fn) {
  Stmt q(db_, "SELECT value, kind, seen, tag FROM value_ledger WHERE session=?");
  if (!q.ok()) return (*error = DbError(db_, "lookup"), false);
  q.Blob(1, session.data(), session.size());
  int rc;
  while ((rc = q.Step()) == SQLITE_ROW) {
    if (sqlite3_column_bytes(q.get(), 0) != static_cast<int>(sizeof(Fingerprint))) continue;
    Fingerprint v{};
    std::memcpy(v.data(), sqlite3_column_blob(q.get(), 0), v.size());
    const bool tagged = sqlite3_column_type(q.get(), 3) != SQLITE_NULL;
    const auto tag = static_cast<uint64_t>(sqlite3_column_int64(q.get(), 3));
    fn(v, static_cast<ValueKind>(sqlite3_column_int(q.get(), 1)), sqlite3_column_int64(q.get(), 2),
       tagged ? &tag : nullptr);
  }
  if (rc != SQLITE_DONE) return (*error = DbError(db_, "lookup"), false);
  return true;
}

// Inside the write transaction. The new generation is above both the one in meta and the one in
// the file, so the file's value only ever grows (also across a rebuilt database), and it is
// written before the commit: a process that reads the file after the commit sees a value its cache
// was not loaded at. A writer that dies after writing the file leaves it ahead of meta, which only
// sends readers to meta until the next write.
bool StateStore::BumpLedgerGeneration(std::string* error) {
  int64_t stored = 0;
  if (!LedgerGeneration(&stored)) return (*error = DbError(db_, "generation"), false);
  const int64_t next = std::max(stored, generation_.Read()) + 1;
  Stmt put(db_,
           "INSERT INTO meta(k, v) VALUES('ledger_generation', ?) ON CONFLICT(k) DO UPDATE SET v = "
           "excluded.v");
  if (!put.ok()) return (*error = DbError(db_, "generation"), false);
  put.Int(1, next);
  if (put.Step() != SQLITE_DONE) return (*error = DbError(db_, "generation"), false);
  return generation_.Write(next, error);
}

// The ledger's generation: bumped by every write to the value ledger (not by log rows, which other
// connections append all the time and which would otherwise invalidate every cached session).
bool StateStore::LedgerGeneration(int64_t* version) {
  if (ledger_generation_ == nullptr &&
      sqlite3_prepare_v2(db_, "SELECT v FROM meta WHERE k='ledger_generation'", -1,
                         &ledger_generation_, nullptr) != SQLITE_OK) {
    return false;
  }
  const int rc = sqlite3_step(ledger_generation_);
  *version = rc == SQLITE_ROW ? sqlite3_column_int64(ledger_generation_, 0) : 0;
  sqlite3_reset(ledger_generation_);
  return rc == SQLITE_ROW || rc == SQLITE_DONE;
}

bool StateStore::LoadSession(const Fingerprint& session, int64_t version, std::string* error) {
  cache_valid_ = false;
  cached_values_.clear();
  cached_filter_.Reset(/*all=*/false, cached_values_.bucket_count());
  if (!ForEachSessionValue(
          session, error,
          [&](const Fingerprint& v, ValueKind kind, int64_t seen, const uint64_t* tag) {
            cached_values_[v] = {kind, seen};
            if (tag == nullptr) {
              cached_filter_.AllowAll();
            } else {
              cached_filter_.Insert(*tag);
            }
          })) {
    return false;
  }
  cached_session_ = session;
  cached_version_ = version;
  cache_valid_ = true;
  return true;
}

bool StateStore::LookupValuesInAnySession(const std::vector<Fingerprint>& values, int64_t now,
                                          ValueKind* worst, std::string* error) {
  *worst = ValueKind::kNone;
  if (values.empty()) return true;
  Stmt q(db_, "SELECT max(kind) FROM value_ledger WHERE value=? AND seen>=?");
  if (!q.ok()) return (*error = DbError(db_, "lookup"), false);
  return InReadTransaction(error, [&] {
    for (const Fingerprint& v : values) {
      q.Blob(1, v.data(), v.size());
      q.Int(2, now - limits_.value_ttl_seconds);
      if (q.Step() != SQLITE_ROW) return (*error = DbError(db_, "lookup"), false);
      if (sqlite3_column_type(q.get(), 0) != SQLITE_NULL) {
        const auto kind = static_cast<ValueKind>(sqlite3_column_int(q.get(), 0));
        if (kind > *worst) *worst = kind;
      }
      q.Reset();
    }
    return true;
  });
}

bool StateStore::InReadTransaction(std::string* error, const std::function<bool()>& body) {
  if (!Begin(false, error)) return false;
  const bool ok = body();
  Rollback();  // a read: nothing to commit
  return ok;
}

bool StateStore::PrepareLookup(const Fingerprint& session, const TagFilter** filter,
                               std::string* error) {
  *filter = nullptr;
  prepared_ = false;
  // From the second lookup on: the session's values in memory, current as of the ledger's
  // generation (our own writes drop the cache in RecordValues). The generation file still holding
  // the value the cache was loaded at means no write since (BumpLedgerGeneration); anything else
  // is checked against meta.
  use_cache_ = ++lookups_ > 1;
  if (use_cache_) {
    generation_.Map();
    const bool fresh =
        cache_valid_ && cached_session_ == session && generation_.Read() == cached_version_;
    if (!fresh) {
      int64_t version = -1;
      if (!LedgerGeneration(&version)) return (*error = DbError(db_, "lookup"), false);
      if (!cache_valid_ || version != cached_version_ || cached_session_ != session) {
        if (!LoadSession(session, version, error)) return false;
      }
    }
    *filter = &cached_filter_;
  }
  prepared_ = true;
  prepared_session_ = session;
  return true;
}

bool StateStore::LookupValues(const Fingerprint& session, const std::vector<Fingerprint>& values,
                              int64_t now, ValueKind* worst, std::string* error) {
  *worst = ValueKind::kNone;
  if (!prepared_ || prepared_session_ != session) {
    const TagFilter* unused = nullptr;
    if (!PrepareLookup(session, &unused, error)) return false;
  }
  prepared_ = false;
  if (values.empty()) return true;
  const int64_t oldest = now - limits_.value_ttl_seconds;
  if (use_cache_) {
    if (!cache_valid_ || cached_session_ != session) {  // a write since PrepareLookup
      int64_t version = -1;
      if (!LedgerGeneration(&version)) return (*error = DbError(db_, "lookup"), false);
      if (!LoadSession(session, version, error)) return false;
    }
    for (const Fingerprint& v : values) {
      const auto it = cached_values_.find(v);
      if (it != cached_values_.end() && it->second.seen >= oldest && it->second.kind > *worst)
        *worst = it->second.kind;
    }
    return true;
  }
  if (lookup_ == nullptr &&
      sqlite3_prepare_v2(db_,
                         "SELECT kind FROM value_ledger WHERE session=? AND value=? AND seen>=?",
                         -1, &lookup_, nullptr) != SQLITE_OK) {
    return (*error = DbError(db_, "lookup"), false);
  }
  // One read transaction for every value: one lock, one snapshot.
  return InReadTransaction(error, [&] {
    for (const Fingerprint& v : values) {
      sqlite3_bind_blob(lookup_, 1, session.data(), static_cast<int>(session.size()),
                        SQLITE_STATIC);
      sqlite3_bind_blob(lookup_, 2, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
      sqlite3_bind_int64(lookup_, 3, oldest);
      const int rc = sqlite3_step(lookup_);
      if (rc == SQLITE_ROW) {
        const auto kind = static_cast<ValueKind>(sqlite3_column_int(lookup_, 0));
        if (kind > *worst) *worst = kind;
      }
      sqlite3_reset(lookup_);
      if (rc != SQLITE_ROW && rc != SQLITE_DONE) return (*error = DbError(db_, "lookup"), false);
    }
    return true;
  });
}

namespace {

std::array<uint8_t, kSketchSize * 8> SketchBytes(const Sketch& s) {
  std::array<uint8_t, kSketchSize * 8> out{};
  for (size_t i = 0; i < kSketchSize; ++i)
    for (int b = 0; b < 8; ++b) out[i * 8 + b] = static_cast<uint8_t>(s[i] >> (8 * b));
  return out;
}

bool SketchFromBytes(const void* p, int n, Sketch* s) {
  if (p == nullptr || n != static_cast<int>(kSketchSize * 8)) return false;
  const auto* bytes = static_cast<const uint8_t*>(p);
  for (size_t i = 0; i < kSketchSize; ++i) {
    uint64_t v = 0;
    for (int b = 0; b < 8; ++b) v |= static_cast<uint64_t>(bytes[i * 8 + b]) << (8 * b);
    (*s)[i] = v;
  }
  return true;
}

}  // namespace

bool StateStore::RecordBlockedTurn(const Fingerprint& session, const Sketch& sketch, int verdict,
                                   int64_t now, int64_t window_seconds, std::string* error) {
  if (!Begin(true, error)) return false;
  Stmt old(db_, "DELETE FROM blocked_turn WHERE at < ?");
  Stmt put(db_,
           "INSERT INTO blocked_turn(session, sketch, verdict, challenges, at) VALUES(?,?,?,0,?)");
  if (!old.ok() || !put.ok()) {
    *error = DbError(db_, "repeat record");
    Rollback();
    return false;
  }
  old.Int(1, now - window_seconds);
  const auto bytes = SketchBytes(sketch);
  put.Blob(1, session.data(), session.size());
  put.Blob(2, bytes.data(), bytes.size());
  put.Int(3, verdict);
  put.Int(4, now);
  if (old.Step() != SQLITE_DONE || put.Step() != SQLITE_DONE) {
    *error = DbError(db_, "repeat record");
    Rollback();
    return false;
  }
  if (!MarkHints({}, 0, now, error)) {
    Rollback();
    return false;
  }
  return Commit(error);
}

bool StateStore::MatchBlockedTurn(const Fingerprint& session, const Sketch& sketch, int64_t now,
                                  int64_t window_seconds, double threshold, bool* found,
                                  int* challenges, int* original_verdict, std::string* error) {
  *found = false;
  *challenges = 0;
  *original_verdict = 0;
  if (!Begin(true, error)) return false;
  int64_t best_id = -1;
  double best = threshold;
  {
    Stmt q(db_,
           "SELECT id, sketch, verdict, challenges FROM blocked_turn WHERE session=? AND at>=?");
    if (!q.ok()) {
      *error = DbError(db_, "repeat record");
      Rollback();
      return false;
    }
    q.Blob(1, session.data(), session.size());
    q.Int(2, now - window_seconds);
    int rc;
    while ((rc = q.Step()) == SQLITE_ROW) {
      Sketch other{};
      if (!SketchFromBytes(sqlite3_column_blob(q.get(), 1), sqlite3_column_bytes(q.get(), 1),
                           &other)) {
        continue;
      }
      const double sim = Similarity(sketch, other);
      if (sim >= best) {
        best = sim;
        best_id = sqlite3_column_int64(q.get(), 0);
        *original_verdict = sqlite3_column_int(q.get(), 2);
        *challenges = sqlite3_column_int(q.get(), 3);
      }
    }
    if (rc != SQLITE_DONE) {
      *error = DbError(db_, "repeat record");
      Rollback();
      return false;
    }
  }
  if (best_id >= 0) {
    *found = true;
    Stmt bump(db_, "UPDATE blocked_turn SET challenges = challenges + 1 WHERE id=?");
    bump.Int(1, best_id);
    if (!bump.ok() || bump.Step() != SQLITE_DONE) {
      *error = DbError(db_, "repeat record");
      Rollback();
      return false;
    }
  }
  return Commit(error);
}

bool StateStore::StartHandoff(const Fingerprint& session, int64_t until, int actions,
                              std::string* error) {
  // The hints' bound first: a one-shot process that reads it after the row exists must not skip it.
  if (!MarkHints({}, until, 0, error)) return false;
  Stmt put(db_, "INSERT OR REPLACE INTO handoff(session, until, actions) VALUES(?,?,?)");
  if (!put.ok()) return (*error = DbError(db_, "handoff"), false);
  put.Blob(1, session.data(), session.size());
  put.Int(2, until);
  put.Int(3, actions);
  if (put.Step() != SQLITE_DONE) return (*error = DbError(db_, "handoff"), false);
  return true;
}

bool StateStore::TakeHandoff(const Fingerprint& session, int64_t now, bool* active,
                             std::string* error) {
  *active = false;
  Stmt take(db_,
            "UPDATE handoff SET actions = actions - 1 WHERE session=? AND until>=? AND actions>0 "
            "RETURNING actions");
  if (!take.ok()) return (*error = DbError(db_, "handoff"), false);
  take.Blob(1, session.data(), session.size());
  take.Int(2, now);
  const int rc = take.Step();
  if (rc == SQLITE_ROW) {
    *active = true;
    while (take.Step() == SQLITE_ROW) {
    }
  } else if (rc != SQLITE_DONE) {
    return (*error = DbError(db_, "handoff"), false);
  }
  return true;
}

namespace {

// A style_baseline row's turns and stats (columns `at` and `at + 1`) into `baseline`; a row whose
// stats are not the expected size is left as a fresh baseline (unreadable: start over).
void DecodeStyle(sqlite3_stmt* q, int at, StyleBaseline* baseline) {
  *baseline = StyleBaseline{};
  constexpr int kBytes = static_cast<int>(2 * kStyleFeatures * sizeof(double));
  if (sqlite3_column_bytes(q, at + 1) != kBytes) return;
  baseline->turns = sqlite3_column_int64(q, at);
  const auto* p = static_cast<const uint8_t*>(sqlite3_column_blob(q, at + 1));
  std::memcpy(baseline->mean.data(), p, kStyleFeatures * sizeof(double));
  std::memcpy(baseline->m2.data(), p + kStyleFeatures * sizeof(double),
              kStyleFeatures * sizeof(double));
}

}  // namespace

bool StateStore::LoadStyle(const Fingerprint& entity, StyleBaseline* baseline, std::string* error) {
  *baseline = StyleBaseline{};
  Stmt q(db_, "SELECT turns, stats FROM style_baseline WHERE entity=?");
  if (!q.ok()) return (*error = DbError(db_, "style"), false);
  q.Blob(1, entity.data(), entity.size());
  const int rc = q.Step();
  if (rc == SQLITE_DONE) return true;
  if (rc != SQLITE_ROW) return (*error = DbError(db_, "style"), false);
  DecodeStyle(q.get(), 0, baseline);
  return true;
}

bool StateStore::SaveStyle(const Fingerprint& entity, const StyleBaseline& baseline,
                           std::string* error) {
  uint8_t bytes[2 * kStyleFeatures * sizeof(double)];
  std::memcpy(bytes, baseline.mean.data(), kStyleFeatures * sizeof(double));
  std::memcpy(bytes + kStyleFeatures * sizeof(double), baseline.m2.data(),
              kStyleFeatures * sizeof(double));
  Stmt put(db_, "INSERT OR REPLACE INTO style_baseline(entity, turns, stats) VALUES(?,?,?)");
  if (!put.ok()) return (*error = DbError(db_, "style"), false);
  put.Blob(1, entity.data(), entity.size());
  put.Int(2, baseline.turns);
  put.Blob(3, bytes, sizeof bytes);
  if (put.Step() != SQLITE_DONE) return (*error = DbError(db_, "style"), false);
  return true;
}

bool StateStore::FoldStyleUpdates(size_t* skipped, std::string* error) {
  const StateDir dir{dir_, key_};
  return FoldStyleJournal(
      dir, DbInode(), limits_.busy_timeout_ms,
      [&](const std::vector<StyleUpdate>& updates, std::vector<EntityBaseline>* base) {
        if (!Begin(true, error)) return false;
        bool ok = true;
        for (const StyleUpdate& u : updates) {
          StyleBaseline b;
          ok = LoadStyle(u.entity, &b, error);
          if (!ok) break;
          b.Add(u.features);
          ok = SaveStyle(u.entity, b, error);
          if (!ok) break;
        }
        if (ok) ok = LoadAllStyles(base, error);
        if (!ok) {
          Rollback();
          return false;
        }
        return Commit(error);
      },
      skipped, error);
}

bool StateStore::LoadAllStyles(std::vector<EntityBaseline>* out, std::string* error) {
  out->clear();
  Stmt q(db_, "SELECT entity, turns, stats FROM style_baseline");
  if (!q.ok()) return (*error = DbError(db_, "style"), false);
  int rc = SQLITE_DONE;
  while ((rc = q.Step()) == SQLITE_ROW) {
    EntityBaseline e;
    if (sqlite3_column_bytes(q.get(), 0) != static_cast<int>(e.entity.size())) continue;
    std::memcpy(e.entity.data(), sqlite3_column_blob(q.get(), 0), e.entity.size());
    DecodeStyle(q.get(), 1, &e.baseline);
    out->push_back(e);
  }
  if (rc != SQLITE_DONE) return (*error = DbError(db_, "style"), false);
  return true;
}

int64_t StateStore::CountValues() {
  Stmt q(db_, "SELECT count(*) FROM value_ledger");
  return q.ok() && q.Step() == SQLITE_ROW ? sqlite3_column_int64(q.get(), 0) : -1;
}

}  // namespace doberman::state
