// Helpers the store's source files share: a prepared statement that finalizes itself and the text
// of a SQLite error.
#ifndef DOBERMAN_STATE_SQLITE_STATEMENT_H_
#define DOBERMAN_STATE_SQLITE_STATEMENT_H_

#include <sqlite3.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace doberman::state::store_detail {

// A prepared statement that finalizes itself.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) { rc_ = sqlite3_prepare_v2(db, sql, -1, &s_, nullptr); }
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  bool ok() const { return rc_ == SQLITE_OK && s_ != nullptr; }
  sqlite3_stmt* get() { return s_; }
  void Blob(int i, const void* p, size_t n) {
    sqlite3_bind_blob(s_, i, p, static_cast<int>(n), SQLITE_TRANSIENT);
  }
  void Int(int i, int64_t v) { sqlite3_bind_int64(s_, i, v); }
  void Text(int i, const std::string& v) {
    sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  int Step() { return sqlite3_step(s_); }
  void Reset() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }

 private:
  sqlite3_stmt* s_ = nullptr;
  int rc_ = SQLITE_ERROR;
};

inline std::string DbError(sqlite3* db, const std::string& what) {
  return "state store: " + what + ": " + (db != nullptr ? sqlite3_errmsg(db) : "out of memory");
}

}  // namespace doberman::state::store_detail

#endif  // DOBERMAN_STATE_SQLITE_STATEMENT_H_
