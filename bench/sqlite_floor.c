/* An independent floor for session memory's per-process cost: the least a one-shot process can do
 * with a SQLite store in WAL mode - open it, look one key up, insert one row, close - with nothing
 * of ours in it (no pack, no key file, no schema check, no chain). bench/run times it as a whole
 * process next to `doberman-guard hook` with and without --state-dir.
 *
 *   doberman-sqlite-floor DB     (creates DB with one table on first use) */
#include <sqlite3.h>
#include <stdio.h>
#include <time.h>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  sqlite3* db = NULL;
  if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
    return 1;
  sqlite3_busy_timeout(db, 2000);
  sqlite3_exec(db,
               "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
               "CREATE TABLE IF NOT EXISTS t(k BLOB PRIMARY KEY, v INTEGER) WITHOUT ROWID;",
               NULL, NULL, NULL);
  sqlite3_stmt* q = NULL;
  sqlite3_prepare_v2(db, "SELECT v FROM t WHERE k=?", -1, &q, NULL);
  sqlite3_bind_blob(q, 1, "0123456789abcdef", 16, SQLITE_STATIC);
  int found = sqlite3_step(q) == SQLITE_ROW;
  sqlite3_finalize(q);
  sqlite3_stmt* put = NULL;
  sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO t(k, v) VALUES(?, ?)", -1, &put, NULL);
  unsigned char key[16];
  long long now = (long long)time(NULL);
  for (int i = 0; i < 16; ++i) key[i] = (unsigned char)(now >> (i % 8));
  sqlite3_bind_blob(put, 1, key, 16, SQLITE_STATIC);
  sqlite3_bind_int64(put, 2, now);
  int rc = sqlite3_step(put);
  sqlite3_finalize(put);
  sqlite3_close(db);
  return rc == SQLITE_DONE ? (found ? 0 : 0) : 1;
}
