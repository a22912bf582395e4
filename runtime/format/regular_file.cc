// Non-blocking, regular-file-only opening of configured paths (API in regular_file.h).
#include "regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace doberman::internal {
namespace {

// Checks the opened descriptor and makes it blocking again (regular files never block anyway, but
// later reads should not see EAGAIN semantics). Closes it and returns -1 when it is not regular.
int RequireRegular(int fd, const std::string& path, const char* what, std::string* error) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    *error = std::string("cannot stat ") + what + " " + path + ": " + std::strerror(errno);
    ::close(fd);
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    *error = std::string(what) + " " + path + " is not a regular file";
    ::close(fd);
    errno = EINVAL;  // never a stale ENOENT: a FIFO or folder at the path is not a missing file
    return -1;
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    *error = std::string("cannot use ") + what + " " + path + ": " + std::strerror(errno);
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

int OpenRegularFileForReading(const std::string& path, const char* what, std::string* error) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    const int open_errno = errno;  // callers tell a missing file from others by errno
    *error = std::string("cannot open ") + what + " " + path + ": " + std::strerror(open_errno);
    errno = open_errno;
    return -1;
  }
  return RequireRegular(fd, path, what, error);
}

int OpenRegularFileForUpdate(const std::string& path, unsigned mode, const char* what,
                             std::string* error) {
  const int fd =
      ::open(path.c_str(), O_RDWR | O_CREAT | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) {
    *error = std::string("cannot open ") + what + " " + path + ": " + std::strerror(errno);
    return -1;
  }
  return RequireRegular(fd, path, what, error);
}

bool ReadRegularFile(const std::string& path, size_t max_bytes, const char* what, std::string* out,
                     std::string* error, bool* missing) {
  if (missing != nullptr) *missing = false;
  const int fd = OpenRegularFileForReading(path, what, error);
  if (fd < 0) {
    if (missing != nullptr) *missing = errno == ENOENT;
    return false;
  }
  out->clear();
  char buf[8192];
  bool ok = true;
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *error = std::string("cannot read ") + what + " " + path + ": " + std::strerror(errno);
      ok = false;
      break;
    }
    if (n == 0) break;
    if (out->size() + static_cast<size_t>(n) > max_bytes) {
      *error = std::string(what) + " " + path + " is larger than " + std::to_string(max_bytes) +
               " bytes";
      ok = false;
      break;
    }
    out->append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return ok;
}

}  // namespace doberman::internal
