// The state directory of session memory: a private directory (this user's, no access for anyone
// else) holding the fingerprint key and the store. Opening it creates what is missing with safe
// modes and refuses what an attacker could have planted (a symlink, a directory others can write,
// a key file of the wrong size, mode or owner).
#ifndef DOBERMAN_STATE_STATE_DIR_H_
#define DOBERMAN_STATE_STATE_DIR_H_

#include <sys/types.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace doberman::state {

using Fingerprint = std::array<uint8_t, 16>;
using Key = std::array<uint8_t, 32>;

struct StateDir {
  std::string path;
  Key key{};  // keys every fingerprint and the decision log's chain; never leaves the directory
};

// Opens `dir`, creating it (0700, parents too) when missing, and loads DIR/fingerprint.key,
// creating it (32 random bytes, 0600, atomically: two processes racing agree on one key) on first
// use. False with a one-line `error` naming the path when the directory or the key cannot be
// trusted or read.
bool OpenStateDir(const std::string& dir, StateDir* out, std::string* error);

// BLAKE2b-128 of `value`, keyed with the directory's key, in a domain of its own (so that a session
// id and a value with the same bytes never share a fingerprint).
Fingerprint KeyedFingerprint(const Key& key, std::string_view domain, std::string_view value);

// The fingerprint a host session is stored under; an empty id stands for the host user (one user's
// sessions then share a record, which is stricter).
Fingerprint SessionFingerprint(const Key& key, std::string_view session_id);

// SessionFingerprint of the last session asked for, kept: a long-lived process (the service, an
// embedder) names the same session call after call, and the keyed hash was half of a warm
// outbound check. One thread at a time.
class LastSessionFingerprint {
 public:
  const Fingerprint& Of(const Key& key, std::string_view session_id) {
    if (!valid_ || key != key_ || session_id != id_) {
      // Invalid until all three agree again: an allocation failing in between (the id's copy)
      // must not leave one session's fingerprint filed under another's id.
      valid_ = false;
      fingerprint_ = SessionFingerprint(key, session_id);
      id_.assign(session_id);
      key_ = key;
      valid_ = true;
    }
    return fingerprint_;
  }

 private:
  bool valid_ = false;
  Key key_{};
  std::string id_;
  Fingerprint fingerprint_{};
};

// Opens the file `path` of a state directory read-write (created 0600 when `create`), refusing
// anything that is not a regular file of this user's (a planted symlink, a FIFO, another user's
// file); one of ours with wider modes is narrowed to 0600. The descriptor, or -1 with `error` set
// (left empty when the file is missing and `create` is false).
int OpenPrivateFile(const std::string& path, bool create, std::string* error);

// flock(LOCK_EX) on `fd`, waiting at most `timeout_ms` (the bound of SQLite's own busy timeout):
// false when another process holds it longer, or on an error other than the wait.
bool LockExclusiveBounded(int fd, int timeout_ms);

// OpenPrivateFile, then LockExclusiveBounded: the descriptor, locked, or -1 with `error` set (left
// empty when the file is missing and `create` is false; "the `what` stayed locked" on a timeout).
int OpenPrivateFileLocked(const std::string& path, bool create, int timeout_ms,
                          const std::string& what, std::string* error);

// Closes a descriptor when it goes out of scope (dropping any flock taken on it).
class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  ~FdCloser();
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;

 private:
  int fd_;
};

// pwrite of all `n` bytes at `at` (retrying short writes and EINTR).
bool WriteAllAt(int fd, const uint8_t* bytes, size_t n, off_t at);

// Up to `max` bytes of `fd` from its start into `out` (pread, retrying short reads and EINTR; it
// stops at the end of the file or an error, so `out` may be shorter than the file).
void ReadUpTo(int fd, size_t max, std::string* out);

// The kernel's boot id, zero padded to kBootIdBytes, or empty when it cannot be read. Files in the
// directory that are not synced (ledger.hints, the style journal's base) name the boot they were
// written in and are trusted in that boot only, never when the id cannot be read.
inline constexpr size_t kBootIdBytes = 40;
std::string BootId();

// "`what` `path`: strerror(errno)".
std::string ErrnoMessage(const std::string& what, const std::string& path);

// Lower-case hex of `bytes`.
std::string Hex(const uint8_t* bytes, size_t size);
inline std::string Hex(const Fingerprint& f) { return Hex(f.data(), f.size()); }

}  // namespace doberman::state

#endif  // DOBERMAN_STATE_STATE_DIR_H_
