// The ledger's generation file (API in generation_file.h).
#include "generation_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "little_endian.h"
#include "state_dir.h"

namespace doberman::state {

GenerationFile::~GenerationFile() {
  if (map_ != nullptr) ::munmap(const_cast<uint64_t*>(map_), sizeof *map_);
  if (fd_ >= 0) ::close(fd_);
}

bool GenerationFile::Open(const std::string& path, std::string* error) {
  name_ = path.substr(path.rfind('/') + 1);
  fd_ = OpenPrivateFile(path, /*create=*/true, error);
  return fd_ >= 0;
}

int64_t GenerationFile::Read() const {
  uint8_t bytes[8];
  if (map_ != nullptr) {
    // One aligned 8-byte load: a concurrent pwrite of the 8 bytes is seen whole or not at all on
    // the machines we build for; a torn value could only differ from the cached one, which sends
    // the caller to meta, the authority.
    const uint64_t word = __atomic_load_n(map_, __ATOMIC_ACQUIRE);
    std::memcpy(bytes, &word, sizeof bytes);
  } else if (::pread(fd_, bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes)) {
    return -1;
  }
  return static_cast<int64_t>(GetU64(bytes) & 0x7fffffffffffffffULL);
}

bool GenerationFile::Write(int64_t value, std::string* error) {
  uint8_t bytes[8];
  PutU64(bytes, static_cast<uint64_t>(value));
  if (::pwrite(fd_, bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes)) {
    *error = "state store: cannot write " + name_ + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

// Only a process that looks up again and again maps the file (a one-shot hook reads it at most
// once). A mapping past the file's end faults on access, so the file is grown to its 8 bytes first
// (growing keeps what a concurrent writer put there; nothing of ours ever shrinks it). Like
// SQLite's own WAL index (DIR/state.db-shm, mapped by every connection), the file must then not be
// truncated under the running process (docs/session-memory.md).
void GenerationFile::Map() {
  if (map_ != nullptr || map_failed_) return;
  map_failed_ = true;
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return;
  if (st.st_size < 8 && ::ftruncate(fd_, 8) != 0) return;
  void* map = ::mmap(nullptr, 8, PROT_READ, MAP_SHARED, fd_, 0);
  if (map == MAP_FAILED) return;
  map_ = static_cast<const uint64_t*>(map);
  map_failed_ = false;
}

}  // namespace doberman::state
