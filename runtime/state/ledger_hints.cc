// The ledger's hints file (API and guarantees in ledger_hints.h).
#include "ledger_hints.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace doberman::state {
namespace {

constexpr const char* kHintsFile = "ledger.hints";
// "DOBHINT1" read as a native integer: a file written by a machine of the other byte order does not
// match and is rebuilt.
constexpr uint64_t kMagic = 0x32544e4948424f44ULL;  // "DOBHINT2" (1 had no blocked-turn bound)
constexpr size_t kMagicAt = 0, kInodeAt = 8, kBootAt = 16, kHandoffAt = 56, kAddedAt = 64,
                 kBlockedTurnAt = 72;
constexpr size_t kHeader = 128;
// A blocked Bloom filter: 4,096 blocks of one cache line, six bits per value in one block, so a
// lookup touches one page of the mapping. 2 Mbit: about 1 % false "maybe" at the ledger's cap of
// 200,000 values, far less at the sizes seen in use; a "maybe" only costs the store's lookup.
constexpr size_t kBlocks = 4096;
constexpr size_t kBlockBytes = 64;
constexpr size_t kFileBytes = kHeader + kBlocks * kBlockBytes;
constexpr int kBitsPerValue = 6;

// Fingerprints are keyed BLAKE2b: every byte is uniform, so they index the filter directly.
struct Probe {
  size_t block;
  uint64_t positions;  // kBitsPerValue positions of 9 bits each
};
Probe ProbeOf(const Fingerprint& f) {
  uint32_t b = 0;
  uint64_t p = 0;
  std::memcpy(&b, f.data(), sizeof b);
  std::memcpy(&p, f.data() + 4, sizeof p);
  return {b % kBlocks, p};
}

uint64_t* Word(uint8_t* map, size_t block, unsigned bit) {
  return reinterpret_cast<uint64_t*>(map + kHeader + block * kBlockBytes) + (bit >> 6);
}

std::string PathOf(const std::string& dir) { return dir + "/" + kHintsFile; }

}  // namespace

LedgerHints::~LedgerHints() { Close(); }

void LedgerHints::Close() {
  if (map_ != nullptr) ::munmap(map_, size_);
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  map_ = nullptr;
  size_ = 0;
  inode_ = 0;
}

namespace {

// Whether a header names this layout, `db_inode` and this boot.
bool HeaderFits(const uint8_t* bytes, uint64_t db_inode, const std::string& boot) {
  uint64_t magic = 0, inode = 0;
  std::memcpy(&magic, bytes + kMagicAt, sizeof magic);
  std::memcpy(&inode, bytes + kInodeAt, sizeof inode);
  return magic == kMagic && inode == db_inode && boot.size() == kBootIdBytes &&
         std::memcmp(bytes + kBootAt, boot.data(), kBootIdBytes) == 0;
}

}  // namespace

bool LedgerHints::OpenForRead(const std::string& dir, uint64_t db_inode) {
  Close();
  const std::string boot = BootId();
  if (boot.empty()) return false;
  const int fd = ::open(PathOf(dir).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  uint8_t header[kHeader];
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid() ||
      (st.st_mode & 077) != 0 || static_cast<size_t>(st.st_size) != kFileBytes ||
      ::pread(fd, header, sizeof header, 0) != static_cast<ssize_t>(sizeof header) ||
      !HeaderFits(header, db_inode, boot)) {
    ::close(fd);
    return false;
  }
  std::memcpy(&read_handoff_, header + kHandoffAt, sizeof read_handoff_);
  std::memcpy(&read_blocked_turn_, header + kBlockedTurnAt, sizeof read_blocked_turn_);
  fd_ = fd;
  inode_ = static_cast<uint64_t>(st.st_ino);
  return true;
}

bool LedgerHints::Map(const std::string& path, bool write, uint64_t db_inode) {
  Close();
  const std::string boot = BootId();
  if (boot.empty()) return false;
  const int fd = ::open(path.c_str(), (write ? O_RDWR : O_RDONLY) | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  const bool ours = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() &&
                    (st.st_mode & 077) == 0 && static_cast<size_t>(st.st_size) == kFileBytes;
  void* map = ours ? ::mmap(nullptr, kFileBytes, write ? PROT_READ | PROT_WRITE : PROT_READ,
                            MAP_SHARED, fd, 0)
                   : MAP_FAILED;
  ::close(fd);
  if (map == MAP_FAILED) return false;
  auto* bytes = static_cast<uint8_t*>(map);
  if (!HeaderFits(bytes, db_inode, boot)) {
    ::munmap(map, kFileBytes);
    return false;
  }
  map_ = bytes;
  size_ = kFileBytes;
  inode_ = static_cast<uint64_t>(st.st_ino);
  return true;
}

bool LedgerHints::OpenForWrite(const std::string& dir, uint64_t db_inode) {
  return Map(PathOf(dir), /*write=*/true, db_inode);
}

bool LedgerHints::StillInPlace(const std::string& dir) const {
  struct stat st {};
  return map_ != nullptr && ::lstat(PathOf(dir).c_str(), &st) == 0 &&
         static_cast<uint64_t>(st.st_ino) == inode_;
}

bool LedgerHints::CreateEmpty(const std::string& dir, uint64_t db_inode, int64_t handoff_until,
                              int64_t last_blocked_turn, std::string* error) {
  Close();
  const std::string boot = BootId();
  if (boot.empty()) return (*error = "state store: the kernel's boot id cannot be read", false);
  temp_ = PathOf(dir) + ".tmp-" + std::to_string(::getpid());
  ::unlink(temp_.c_str());
  const int fd = ::open(temp_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(kFileBytes)) != 0) {
    *error = "state store: cannot create " + temp_ + ": " + std::strerror(errno);
    if (fd >= 0) ::close(fd);
    ::unlink(temp_.c_str());
    return false;
  }
  void* map = ::mmap(nullptr, kFileBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  struct stat st {};
  const bool stat_ok = ::fstat(fd, &st) == 0;
  ::close(fd);
  if (map == MAP_FAILED || !stat_ok) {
    *error = "state store: cannot map " + temp_ + ": " + std::strerror(errno);
    if (map != MAP_FAILED) ::munmap(map, kFileBytes);
    ::unlink(temp_.c_str());
    return false;
  }
  map_ = static_cast<uint8_t*>(map);
  size_ = kFileBytes;
  inode_ = static_cast<uint64_t>(st.st_ino);
  std::memcpy(map_ + kMagicAt, &kMagic, sizeof kMagic);
  std::memcpy(map_ + kInodeAt, &db_inode, sizeof db_inode);
  std::memcpy(map_ + kBootAt, boot.data(), boot.size());
  std::memcpy(map_ + kHandoffAt, &handoff_until, sizeof handoff_until);
  std::memcpy(map_ + kBlockedTurnAt, &last_blocked_turn, sizeof last_blocked_turn);
  return true;
}

bool LedgerHints::Install(const std::string& dir, std::string* error) {
  if (::rename(temp_.c_str(), PathOf(dir).c_str()) != 0) {
    *error = "state store: cannot install " + PathOf(dir) + ": " + std::strerror(errno);
    ::unlink(temp_.c_str());
    Close();
    return false;
  }
  return true;
}

bool LedgerHints::MayHold(const Fingerprint& f) const {
  const Probe p = ProbeOf(f);
  uint64_t block[kBlockBytes / 8];
  if (map_ != nullptr) {
    for (size_t i = 0; i < kBlockBytes / 8; ++i)
      block[i] =
          __atomic_load_n(Word(map_, p.block, static_cast<unsigned>(i * 64)), __ATOMIC_ACQUIRE);
  } else if (fd_ < 0 || ::pread(fd_, block, sizeof block,
                                static_cast<off_t>(kHeader + p.block * kBlockBytes)) !=
                            static_cast<ssize_t>(sizeof block)) {
    return true;  // unreadable: maybe
  }
  for (int i = 0; i < kBitsPerValue; ++i) {
    const unsigned bit = static_cast<unsigned>(p.positions >> (9 * i)) & 511u;
    if ((block[bit >> 6] & (uint64_t{1} << (bit & 63))) == 0) return false;
  }
  return true;
}

void LedgerHints::Add(const Fingerprint& f) {
  if (map_ == nullptr) return;
  const Probe p = ProbeOf(f);
  for (int i = 0; i < kBitsPerValue; ++i) {
    const unsigned bit = static_cast<unsigned>(p.positions >> (9 * i)) & 511u;
    __atomic_fetch_or(Word(map_, p.block, bit), uint64_t{1} << (bit & 63), __ATOMIC_RELEASE);
  }
  __atomic_fetch_add(reinterpret_cast<uint64_t*>(map_ + kAddedAt), 1, __ATOMIC_RELAXED);
}

int64_t LedgerHints::BoundAt(size_t offset, int64_t read_copy) const {
  if (fd_ >= 0) return read_copy;
  if (map_ == nullptr) return INT64_MAX;
  return __atomic_load_n(reinterpret_cast<const int64_t*>(map_ + offset), __ATOMIC_ACQUIRE);
}

void LedgerHints::RaiseBoundAt(size_t offset, int64_t value) {
  if (map_ == nullptr) return;
  auto* bound = reinterpret_cast<int64_t*>(map_ + offset);
  int64_t seen = __atomic_load_n(bound, __ATOMIC_ACQUIRE);
  while (seen < value && !__atomic_compare_exchange_n(bound, &seen, value, false, __ATOMIC_ACQ_REL,
                                                      __ATOMIC_ACQUIRE)) {
  }
}

int64_t LedgerHints::handoff_until() const { return BoundAt(kHandoffAt, read_handoff_); }
void LedgerHints::RaiseHandoff(int64_t until) { RaiseBoundAt(kHandoffAt, until); }
int64_t LedgerHints::last_blocked_turn() const {
  return BoundAt(kBlockedTurnAt, read_blocked_turn_);
}
void LedgerHints::RaiseLastBlockedTurn(int64_t at) { RaiseBoundAt(kBlockedTurnAt, at); }

uint64_t LedgerHints::added() const {
  if (map_ == nullptr) return 0;
  return __atomic_load_n(reinterpret_cast<const uint64_t*>(map_ + kAddedAt), __ATOMIC_RELAXED);
}

}  // namespace doberman::state
