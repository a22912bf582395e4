// The store's decision log (API in state_store.h): rows appended in order and hash-chained, old
// rows evicted from the front behind an anchor, the chain verified, and the journal of one-shot
// processes folded in.
#include <sodium.h>
#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "little_endian.h"
#include "log_journal.h"
#include "log_row.h"
#include "sqlite_statement.h"
#include "state_store.h"

namespace doberman::state {

using store_detail::DbError;
using store_detail::Stmt;

namespace {

using Chain = std::array<uint8_t, 32>;

// The log chain: each row's digest covers the previous digest and everything the row holds.
Chain ChainDigest(const Key& key, const Chain& previous, const LogRow& row) {
  Chain out{};
  crypto_generichash_state st;
  crypto_generichash_init(&st, key.data(), key.size(), out.size());
  static const char kDomain[] = "doberman decision log v1";
  crypto_generichash_update(&st, reinterpret_cast<const uint8_t*>(kDomain), sizeof kDomain);
  crypto_generichash_update(&st, previous.data(), previous.size());
  uint8_t fixed[8 + 8 + 16 + 1];
  PutU64(fixed, static_cast<uint64_t>(row.seq));
  PutU64(fixed + 8, static_cast<uint64_t>(row.at_ms));
  std::memcpy(fixed + 16, row.session.data(), row.session.size());
  fixed[32] = static_cast<uint8_t>(row.verdict);
  crypto_generichash_update(&st, fixed, sizeof fixed);
  crypto_generichash_update(&st, reinterpret_cast<const uint8_t*>(row.json.data()),
                            row.json.size());
  crypto_generichash_final(&st, out.data(), out.size());
  return out;
}

bool ReadChainMeta(sqlite3* db, const char* name, int64_t* seq, Chain* chain) {
  Stmt q(db, "SELECT v FROM meta WHERE k=?");
  if (!q.ok()) return false;
  sqlite3_bind_text(q.get(), 1, name, -1, SQLITE_STATIC);
  *seq = 0;
  chain->fill(0);
  const int rc = q.Step();
  if (rc == SQLITE_DONE) return true;  // no row yet: the chain starts at zero
  if (rc != SQLITE_ROW || sqlite3_column_bytes(q.get(), 0) != 8 + 32) return false;
  const auto* p = static_cast<const uint8_t*>(sqlite3_column_blob(q.get(), 0));
  *seq = static_cast<int64_t>(GetU64(p));
  std::memcpy(chain->data(), p + 8, 32);
  return true;
}

bool WriteChainMeta(sqlite3* db, const char* name, int64_t seq, const Chain& chain) {
  uint8_t v[8 + 32];
  PutU64(v, static_cast<uint64_t>(seq));
  std::memcpy(v + 8, chain.data(), 32);
  Stmt put(db, "INSERT OR REPLACE INTO meta(k, v) VALUES(?, ?)");
  if (!put.ok()) return false;
  sqlite3_bind_text(put.get(), 1, name, -1, SQLITE_STATIC);
  put.Blob(2, v, sizeof v);
  return put.Step() == SQLITE_DONE;
}

}  // namespace

bool StateStore::FoldJournal(std::string* error) {
  JournalFold journal;
  StateDir dir{dir_, key_};
  if (!journal.Lock(dir, limits_.busy_timeout_ms, error)) return false;
  if (!journal.present() || !journal.HasRecords()) return true;
  if (!Begin(true, error)) return false;
  JournalDigest folded{};
  {
    Stmt q(db_, "SELECT v FROM meta WHERE k='journal_folded'");
    if (q.ok() && q.Step() == SQLITE_ROW && sqlite3_column_bytes(q.get(), 0) == 32)
      std::memcpy(folded.data(), sqlite3_column_blob(q.get(), 0), 32);
  }
  std::vector<LogRow> rows;
  bool damaged = false;
  JournalDigest last = folded;
  if (!journal.Read(key_, folded, &rows, &damaged, &last, error)) {
    Rollback();
    return false;
  }
  if (damaged) {
    LogFields f;
    f.host = "doberman-guard";
    f.event = "LogJournal";
    f.verdict = "AUTH";
    f.status = "DOBERMAN_E_STATE";
    f.reasons = {"log_journal_damaged"};
    LogRow marker;
    marker.verdict = 1;
    marker.json = LogRowJson(f);
    rows.push_back(std::move(marker));
  }
  Stmt put(db_, "INSERT OR REPLACE INTO meta(k, v) VALUES('journal_folded', ?)");
  if (!InsertLogRows(&rows, error) || !put.ok() ||
      (put.Blob(1, last.data(), last.size()), put.Step() != SQLITE_DONE)) {
    if (error->empty()) *error = DbError(db_, "fold the log journal");
    Rollback();
    return false;
  }
  if (!Commit(error)) return false;
  return journal.Empty(error);
}

// Inside a write transaction: numbers `rows` after the head, chains them and moves the head.
bool StateStore::InsertLogRows(std::vector<LogRow>* rows, std::string* error) {
  int64_t head_seq = 0;
  Chain head{};
  if (!ReadChainMeta(db_, "log_head", &head_seq, &head))
    return (*error = DbError(db_, "log head"), false);
  if (rows->empty()) return true;
  Stmt put(db_,
           "INSERT INTO decision_log(seq, at, session, verdict, row, chain) VALUES(?,?,?,?,?,?)");
  if (!put.ok()) return (*error = DbError(db_, "log"), false);
  for (LogRow& r : *rows) {
    r.seq = ++head_seq;
    if (r.at_ms == 0) r.at_ms = NowMs();
    head = ChainDigest(key_, head, r);
    put.Int(1, r.seq);
    put.Int(2, r.at_ms);
    put.Blob(3, r.session.data(), r.session.size());
    put.Int(4, r.verdict);
    put.Text(5, r.json);
    put.Blob(6, head.data(), head.size());
    if (put.Step() != SQLITE_DONE) return (*error = DbError(db_, "log"), false);
    put.Reset();
  }
  if (!WriteChainMeta(db_, "log_head", head_seq, head))
    return (*error = DbError(db_, "log"), false);
  return true;
}

bool StateStore::AppendLog(LogRow* row, std::string* error) {
  std::vector<LogRow> rows(1, *row);
  if (!AppendLogs(&rows, error)) return false;
  *row = rows[0];
  return true;
}

bool StateStore::AppendLogs(std::vector<LogRow>* rows, std::string* error) {
  if (rows->empty()) return true;
  // Rows one-shot processes journaled go first (a failure leaves them for the next fold).
  std::string fold_error;
  (void)FoldJournal(&fold_error);
  if (!Begin(true, error)) return false;
  if (!InsertLogRows(rows, error)) {
    Rollback();
    return false;
  }
  LogRow* row = &rows->back();
  // Old rows leave from the front; the anchor keeps the digest the next remaining row chains from.
  // Checked on one append in 64 (and always past the row cap): it costs two queries.
  uint8_t dice = 0;
  randombytes_buf(&dice, 1);
  if (dice % 64 != 0 && row->seq - limits_.max_log_rows <= 0) return Commit(error);
  const int64_t keep_from_age = row->at_ms - limits_.log_ttl_seconds * 1000;
  int64_t cut = row->seq - limits_.max_log_rows;
  {
    Stmt old(db_, "SELECT max(seq) FROM decision_log WHERE at < ?");
    if (old.ok()) {
      old.Int(1, keep_from_age);
      if (old.Step() == SQLITE_ROW && sqlite3_column_type(old.get(), 0) != SQLITE_NULL)
        cut = std::max<int64_t>(cut, sqlite3_column_int64(old.get(), 0));
    }
  }
  if (cut > 0) {
    Stmt last(db_, "SELECT seq, chain FROM decision_log WHERE seq <= ? ORDER BY seq DESC LIMIT 1");
    if (last.ok()) {
      last.Int(1, cut);
      if (last.Step() == SQLITE_ROW && sqlite3_column_bytes(last.get(), 1) == 32) {
        Chain anchor{};
        std::memcpy(anchor.data(), sqlite3_column_blob(last.get(), 1), 32);
        const int64_t anchor_seq = sqlite3_column_int64(last.get(), 0);
        Stmt del(db_, "DELETE FROM decision_log WHERE seq <= ?");
        del.Int(1, anchor_seq);
        if (!del.ok() || del.Step() != SQLITE_DONE ||
            !WriteChainMeta(db_, "log_anchor", anchor_seq, anchor)) {
          *error = DbError(db_, "log eviction");
          Rollback();
          return false;
        }
      }
    }
  }
  return Commit(error);
}

bool StateStore::ReadLog(const LogFilter& filter, const std::function<bool(const LogRow&)>& fn,
                         std::string* error) {
  // The journal's rows belong to the log: fold them in first (a failure leaves them for later).
  std::string fold_error;
  (void)FoldJournal(&fold_error);
  Stmt q(db_,
         "SELECT seq, at, session, verdict, row FROM decision_log WHERE at >= ? "
         "AND (? < 0 OR verdict >= ?) AND (? < 0 OR verdict = ?) AND (? = 0 OR session = ?) "
         "ORDER BY seq");
  if (!q.ok()) return (*error = DbError(db_, "read log"), false);
  q.Int(1, filter.since_ms);
  q.Int(2, filter.min_verdict);
  q.Int(3, filter.min_verdict);
  q.Int(4, filter.only_verdict);
  q.Int(5, filter.only_verdict);
  q.Int(6, filter.by_session ? 1 : 0);
  q.Blob(7, filter.session.data(), filter.session.size());
  int rc;
  while ((rc = q.Step()) == SQLITE_ROW) {
    LogRow row;
    row.seq = sqlite3_column_int64(q.get(), 0);
    row.at_ms = sqlite3_column_int64(q.get(), 1);
    if (sqlite3_column_bytes(q.get(), 2) == static_cast<int>(row.session.size()))
      std::memcpy(row.session.data(), sqlite3_column_blob(q.get(), 2), row.session.size());
    row.verdict = sqlite3_column_int(q.get(), 3);
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(q.get(), 4));
    row.json.assign(text != nullptr ? text : "",
                    static_cast<size_t>(sqlite3_column_bytes(q.get(), 4)));
    if (!fn(row)) return true;
  }
  if (rc != SQLITE_DONE) return (*error = DbError(db_, "read log"), false);
  return true;
}

bool StateStore::VerifyLog(int64_t* rows, std::string* head_out, std::string* problem) {
  *rows = 0;
  std::string error;
  (void)FoldJournal(&error);
  error.clear();
  if (!Begin(false, &error)) return (*problem = error, false);
  int64_t anchor_seq = 0, head_seq = 0;
  Chain previous{}, head{};
  if (!ReadChainMeta(db_, "log_anchor", &anchor_seq, &previous) ||
      !ReadChainMeta(db_, "log_head", &head_seq, &head)) {
    Rollback();
    *problem = DbError(db_, "chain metadata");
    return false;
  }
  Stmt q(db_, "SELECT seq, at, session, verdict, row, chain FROM decision_log ORDER BY seq");
  int64_t expect = anchor_seq + 1;
  bool ok = q.ok();
  int rc = SQLITE_DONE;
  while (ok && (rc = q.Step()) == SQLITE_ROW) {
    LogRow row;
    row.seq = sqlite3_column_int64(q.get(), 0);
    row.at_ms = sqlite3_column_int64(q.get(), 1);
    const bool session_ok = sqlite3_column_bytes(q.get(), 2) == 16;
    if (session_ok) std::memcpy(row.session.data(), sqlite3_column_blob(q.get(), 2), 16);
    row.verdict = sqlite3_column_int(q.get(), 3);
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(q.get(), 4));
    row.json.assign(text != nullptr ? text : "",
                    static_cast<size_t>(sqlite3_column_bytes(q.get(), 4)));
    Chain stored{};
    const bool chain_ok = sqlite3_column_bytes(q.get(), 5) == 32;
    if (chain_ok) std::memcpy(stored.data(), sqlite3_column_blob(q.get(), 5), 32);
    if (row.seq != expect) {
      *problem = "row " + std::to_string(expect) + " is missing (next row is " +
                 std::to_string(row.seq) + ")";
      ok = false;
      break;
    }
    const Chain computed = ChainDigest(key_, previous, row);
    if (!session_ok || !chain_ok || sodium_memcmp(computed.data(), stored.data(), 32) != 0) {
      *problem = "row " + std::to_string(row.seq) + " was altered (its digest does not match)";
      ok = false;
      break;
    }
    previous = stored;
    ++expect;
    ++*rows;
  }
  if (ok && rc != SQLITE_DONE) {
    *problem = DbError(db_, "read log");
    ok = false;
  }
  if (ok && (expect - 1 != head_seq || sodium_memcmp(previous.data(), head.data(), 32) != 0)) {
    *problem = "the log ends at row " + std::to_string(expect - 1) + " but its head says row " +
               std::to_string(head_seq) + " (rows were removed from the end)";
    ok = false;
  }
  Rollback();
  *head_out = std::to_string(head_seq) + ":" + Hex(head.data(), head.size());
  return ok;
}

}  // namespace doberman::state
