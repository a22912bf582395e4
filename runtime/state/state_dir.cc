// Opening the state directory and its key file (API in state_dir.h).
#include "state_dir.h"

#include <fcntl.h>
#include <sodium.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

namespace doberman::state {
namespace {

constexpr const char* kKeyFile = "fingerprint.key";

// mkdir -p with 0700 for what it creates.
bool MakeDirs(const std::string& dir, std::string* error) {
  for (size_t slash = dir.find('/', 1);; slash = dir.find('/', slash + 1)) {
    const std::string part = slash == std::string::npos ? dir : dir.substr(0, slash);
    if (!part.empty() && ::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) {
      *error = ErrnoMessage("cannot create state directory", part);
      return false;
    }
    if (slash == std::string::npos) return true;
  }
}

// The directory must be ours and closed to everyone else: another user who can write into it could
// swap the store or the key.
bool CheckDir(const std::string& dir, std::string* error) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) {
    *error = ErrnoMessage("cannot read state directory", dir);
    return false;
  }
  if (!S_ISDIR(st.st_mode)) {
    *error = "state directory " + dir + " is not a directory (a symlink is refused)";
    return false;
  }
  if (st.st_uid != ::geteuid()) {
    *error = "state directory " + dir + " belongs to another user";
    return false;
  }
  if ((st.st_mode & 077) != 0) {
    *error = "state directory " + dir + " is open to other users (chmod 700 it)";
    return false;
  }
  return true;
}

bool ReadKey(const std::string& path, Key* key, std::string* error) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    *error = ErrnoMessage("cannot open key", path);
    return false;
  }
  struct stat st {};
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() &&
            (st.st_mode & 077) == 0 && st.st_size == static_cast<off_t>(key->size());
  if (ok) {
    size_t got = 0;
    while (got < key->size()) {
      const ssize_t n = ::read(fd, key->data() + got, key->size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    ok = got == key->size();
  }
  ::close(fd);
  if (!ok) *error = "key " + path + " is not a 32-byte regular file of ours with mode 0600";
  return ok;
}

// Writes a new key to a private temporary file and links it into place: link(2) fails when the key
// exists, so of two processes racing, one key wins and the other reads it.
bool CreateKey(const std::string& dir, const std::string& path, std::string* error) {
  Key fresh{};
  randombytes_buf(fresh.data(), fresh.size());
  std::string tmp = dir + "/.fingerprint.key.XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) {
    *error = ErrnoMessage("cannot create key in", dir);
    return false;
  }
  bool ok = ::fchmod(fd, 0600) == 0 &&
            ::write(fd, fresh.data(), fresh.size()) == static_cast<ssize_t>(fresh.size()) &&
            ::fsync(fd) == 0;
  ::close(fd);
  sodium_memzero(fresh.data(), fresh.size());
  if (ok && ::link(tmp.c_str(), path.c_str()) != 0 && errno != EEXIST) {
    *error = ErrnoMessage("cannot create key", path);
    ok = false;
  } else if (!ok) {
    *error = ErrnoMessage("cannot write key", tmp);
  }
  ::unlink(tmp.c_str());
  return ok;
}

}  // namespace

bool OpenStateDir(const std::string& dir, StateDir* out, std::string* error) {
  if (dir.empty()) {
    *error = "no state directory given";
    return false;
  }
  if (sodium_init() < 0) {
    *error = "libsodium failed to initialise";
    return false;
  }
  std::string path = dir;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  // Created only when missing: most calls find it, and mkdir of every parent is a system call each.
  struct stat dir_st {};
  if (::lstat(path.c_str(), &dir_st) != 0 && !MakeDirs(path, error)) return false;
  if (!CheckDir(path, error)) return false;
  const std::string key_path = path + "/" + kKeyFile;
  struct stat st {};
  if (::lstat(key_path.c_str(), &st) != 0) {
    if (errno != ENOENT) {
      *error = ErrnoMessage("cannot read key", key_path);
      return false;
    }
    if (!CreateKey(path, key_path, error)) return false;
  }
  if (!ReadKey(key_path, &out->key, error)) return false;
  out->path = path;
  return true;
}

Fingerprint KeyedFingerprint(const Key& key, std::string_view domain, std::string_view value) {
  Fingerprint f{};
  crypto_generichash_state st;
  crypto_generichash_init(&st, key.data(), key.size(), f.size());
  const uint8_t length = static_cast<uint8_t>(domain.size());
  crypto_generichash_update(&st, &length, 1);
  crypto_generichash_update(&st, reinterpret_cast<const uint8_t*>(domain.data()), domain.size());
  crypto_generichash_update(&st, reinterpret_cast<const uint8_t*>(value.data()), value.size());
  crypto_generichash_final(&st, f.data(), f.size());
  return f;
}

Fingerprint SessionFingerprint(const Key& key, std::string_view session_id) {
  const std::string id =
      session_id.empty() ? "uid:" + std::to_string(::geteuid()) : "id:" + std::string(session_id);
  return KeyedFingerprint(key, "session", id);
}

std::string Hex(const uint8_t* bytes, size_t size) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  s.reserve(size * 2);
  for (size_t i = 0; i < size; ++i) {
    s.push_back(digits[bytes[i] >> 4]);
    s.push_back(digits[bytes[i] & 15]);
  }
  return s;
}

std::string ErrnoMessage(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

int OpenPrivateFile(const std::string& path, bool create, std::string* error) {
  const int fd = ::open(
      path.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | (create ? O_CREAT : 0), 0600);
  if (fd < 0) {
    if (errno != ENOENT || create) *error = ErrnoMessage("state store: cannot open", path);
    return -1;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) {
    ::close(fd);
    *error = "state store " + path + " is not a regular file of ours";
    return -1;
  }
  if ((st.st_mode & 077) != 0) (void)::fchmod(fd, 0600);
  return fd;
}

bool LockExclusiveBounded(int fd, int timeout_ms) {
  for (int waited = 0;; waited += 2) {
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return true;
    if ((errno != EWOULDBLOCK && errno != EINTR) || waited >= timeout_ms) return false;
    ::usleep(2000);
  }
}

int OpenPrivateFileLocked(const std::string& path, bool create, int timeout_ms,
                          const std::string& what, std::string* error) {
  const int fd = OpenPrivateFile(path, create, error);
  if (fd < 0) return -1;
  if (!LockExclusiveBounded(fd, timeout_ms)) {
    ::close(fd);
    *error = "state store: the " + what + " stayed locked";
    return -1;
  }
  return fd;
}

FdCloser::~FdCloser() {
  if (fd_ >= 0) ::close(fd_);
}

bool WriteAllAt(int fd, const uint8_t* bytes, size_t n, off_t at) {
  while (n > 0) {
    const ssize_t w = ::pwrite(fd, bytes, n, at);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    bytes += w;
    n -= static_cast<size_t>(w);
    at += w;
  }
  return true;
}

std::string BootId() {
  // Read once per process; a function-local static is initialized exactly once even when the
  // service's workers open their stores at the same moment (a flag and a string set by hand raced).
  static const std::string cached = [] {
    std::string id;
    const int fd = ::open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return id;
    char buf[64];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    ::close(fd);
    if (n >= 32) {
      id.assign(buf, std::min(static_cast<size_t>(n), kBootIdBytes));
      id.resize(kBootIdBytes, '\0');
    }
    return id;
  }();
  return cached;
}

void ReadUpTo(int fd, size_t max, std::string* out) {
  // Sized by the file (plus a page, for a writer that appends meanwhile), not by `max`: zeroing a
  // bound of hundreds of kilobytes cost more than reading a journal of a few.
  struct stat st {};
  size_t room = max;
  if (::fstat(fd, &st) == 0 && st.st_size >= 0)
    room = std::min(max, static_cast<size_t>(st.st_size) + 4096);
  out->assign(room, '\0');
  size_t got = 0;
  while (got < max) {
    if (got == out->size()) out->resize(std::min(max, 2 * out->size() + 4096));  // it grew
    const ssize_t r = ::pread(fd, out->data() + got, out->size() - got, static_cast<off_t>(got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<size_t>(r);
  }
  out->resize(got);
}

}  // namespace doberman::state
