// The decision log's journal (format and guarantees in log_journal.h).
#include "log_journal.h"

#include <fcntl.h>
#include <sodium.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "little_endian.h"

namespace doberman::state {
namespace {

constexpr const char* kJournalFile = "log.journal";
constexpr char kMagic[8] = {'D', 'O', 'B', 'J', 'R', 'N', 'L', '1'};
constexpr size_t kHeader = sizeof kMagic + 32;
constexpr size_t kFixed = 8 + 16 + 1;  // milliseconds, session, verdict
// A bound on the journal: appends past it are refused (the caller folds first), and a fold reads
// no more than this.
constexpr int64_t kMaxJournalBytes = 16 << 20;
constexpr uint32_t kMaxRecord = 1 << 20;

JournalDigest DigestOf(const Key& key, const JournalDigest& previous, const uint8_t* record,
                       size_t size) {
  JournalDigest out{};
  crypto_generichash_state st;
  crypto_generichash_init(&st, key.data(), key.size(), out.size());
  static const char kDomain[] = "doberman log journal v1";
  crypto_generichash_update(&st, reinterpret_cast<const uint8_t*>(kDomain), sizeof kDomain);
  crypto_generichash_update(&st, previous.data(), previous.size());
  crypto_generichash_update(&st, record, size);
  crypto_generichash_final(&st, out.data(), out.size());
  return out;
}

// The length of the record framed at `at` in `data` (its row, without the length and the digest),
// or 0 when no whole record of a valid length starts there.
uint32_t FramedLength(const std::string& data, size_t at) {
  if (at + 4 > data.size()) return 0;
  const uint32_t length = GetU32(reinterpret_cast<const uint8_t*>(data.data()) + at);
  if (length < kFixed || length > kMaxRecord || at + 4 + length + 32 > data.size()) return 0;
  return length;
}

// A fresh header (a new nonce) on an empty file.
bool WriteHeader(int fd) {
  uint8_t header[kHeader];
  std::memcpy(header, kMagic, sizeof kMagic);
  randombytes_buf(header + sizeof kMagic, 32);
  return ::ftruncate(fd, 0) == 0 && WriteAllAt(fd, header, sizeof header, 0);
}

}  // namespace

bool AppendToJournal(const StateDir& dir, const LogRow& row, int timeout_ms, int64_t* size_after,
                     std::string* error) {
  const std::string path = dir.path + "/" + kJournalFile;
  const int fd = OpenPrivateFileLocked(path, /*create=*/true, timeout_ms, "log journal", error);
  if (fd < 0) return false;
  const FdCloser closer(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    return (*error = ErrnoMessage("state store: cannot stat", path), false);
  off_t size = st.st_size;
  if (size < static_cast<off_t>(kHeader)) {
    // New, or emptied by a fold that died after truncating: start a chain. (A header that was
    // overwritten is not looked for here: the fold finds it and says so in the log.)
    if (!WriteHeader(fd)) return (*error = ErrnoMessage("state store: cannot write", path), false);
    size = static_cast<off_t>(kHeader);
  }
  if (size > kMaxJournalBytes) {
    *error = "state store: the log journal is full (" + std::to_string(size) + " bytes)";
    return false;
  }
  JournalDigest previous{};
  if (::pread(fd, previous.data(), previous.size(), size - 32) != 32)
    return (*error = ErrnoMessage("state store: cannot read", path), false);
  const size_t body = kFixed + row.json.size();
  if (body > kMaxRecord) return (*error = "state store: log row too long", false);
  std::string record(4 + body + 32, '\0');
  auto* p = reinterpret_cast<uint8_t*>(record.data());
  PutU32(p, static_cast<uint32_t>(body));
  PutU64(p + 4, static_cast<uint64_t>(row.at_ms != 0 ? row.at_ms : NowMs()));
  std::memcpy(p + 12, row.session.data(), row.session.size());
  p[28] = static_cast<uint8_t>(row.verdict);
  std::memcpy(p + 4 + kFixed, row.json.data(), row.json.size());
  const JournalDigest digest = DigestOf(dir.key, previous, p, 4 + body);
  std::memcpy(p + 4 + body, digest.data(), digest.size());
  if (!WriteAllAt(fd, p, record.size(), size))
    return (*error = ErrnoMessage("state store: cannot write", path), false);
  *size_after = static_cast<int64_t>(size) + static_cast<int64_t>(record.size());
  return true;
}

JournalFold::~JournalFold() {
  if (fd_ >= 0) ::close(fd_);
}

bool JournalFold::Lock(const StateDir& dir, int timeout_ms, std::string* error) {
  path_ = dir.path + "/" + kJournalFile;
  std::string lock_error;
  fd_ = OpenPrivateFileLocked(path_, /*create=*/false, timeout_ms, "log journal", &lock_error);
  if (fd_ >= 0 || lock_error.empty()) return true;  // locked, or no journal: nothing to fold
  *error = lock_error;
  return false;
}

bool JournalFold::HasRecords() const {
  struct stat st {};
  return fd_ >= 0 && ::fstat(fd_, &st) == 0 && st.st_size > static_cast<off_t>(kHeader);
}

bool JournalFold::Read(const Key& key, const JournalDigest& folded, std::vector<LogRow>* rows,
                       bool* damaged, JournalDigest* last, std::string* error) {
  rows->clear();
  *damaged = false;
  struct stat st {};
  if (fd_ < 0 || ::fstat(fd_, &st) != 0)
    return (*error = ErrnoMessage("state store: cannot stat", path_), false);
  if (st.st_size <= static_cast<off_t>(kHeader)) return true;
  const int64_t size = std::min<int64_t>(st.st_size, kMaxJournalBytes + kMaxRecord);
  std::string data;
  ReadUpTo(fd_, static_cast<size_t>(size), &data);
  const size_t got = data.size();
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  if (data.size() < kHeader || std::memcmp(p, kMagic, sizeof kMagic) != 0) {
    *damaged = true;
    return true;
  }
  JournalDigest previous{};
  std::memcpy(previous.data(), p + sizeof kMagic, 32);
  // Records up to the one the store folded last were folded by a fold that died before emptying
  // the journal: they are skipped. When that digest is not here, every record is new.
  bool before_folded = false;
  for (size_t at = kHeader, length; (length = FramedLength(data, at)) != 0; at += 4 + length + 32) {
    if (std::memcmp(p + at + 4 + length, folded.data(), 32) == 0) {
      before_folded = true;
      break;
    }
  }
  size_t at = kHeader;
  while (at < data.size()) {
    const uint32_t length = FramedLength(data, at);
    if (length == 0) {
      *damaged = true;
      break;
    }
    const JournalDigest computed = DigestOf(key, previous, p + at, 4 + length);
    if (sodium_memcmp(computed.data(), p + at + 4 + length, 32) != 0) {
      *damaged = true;
      break;
    }
    if (before_folded) {
      if (computed == folded) before_folded = false;
    } else {
      LogRow row;
      row.at_ms = static_cast<int64_t>(GetU64(p + at + 4));
      std::memcpy(row.session.data(), p + at + 12, row.session.size());
      row.verdict = p[at + 28];
      row.json.assign(reinterpret_cast<const char*>(p + at + 4 + kFixed), length - kFixed);
      rows->push_back(std::move(row));
      *last = computed;
    }
    previous = computed;
    at += 4 + length + 32;
  }
  if (static_cast<int64_t>(got) < st.st_size) *damaged = true;  // past the bound: dropped
  return true;
}

bool JournalFold::Empty(std::string* error) {
  if (fd_ < 0) return true;
  if (!WriteHeader(fd_)) return (*error = ErrnoMessage("state store: cannot empty", path_), false);
  return true;
}

}  // namespace doberman::state
