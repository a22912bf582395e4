// ImageCache: one file per image, named by the hex digest of the stored database it was made from.
// Every check that can reject an image is a miss (the caller then loads from the pack).
#include "image_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <sodium.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <initializer_list>
#include <tuple>
#include <utility>
#include <vector>

#include "cache_file_fields.h"

namespace doberman::internal {
namespace {

constexpr char kMagic[8] = {'D', 'O', 'B', 'H', 'S', 'I', 'M', 'G'};
constexpr uint32_t kFormat = 1;
constexpr size_t kDigestBytes = 32;
constexpr size_t kVersionBytes = kHsVersionFieldBytes;
// The header's fields, where the writer puts them and the reader looks: magic, format, a reserved
// zero, the image's size, the digest it was made for, Hyperscan's version string.
constexpr size_t kFormatAt = sizeof kMagic;
constexpr size_t kReservedAt = kFormatAt + 4;
constexpr size_t kSizeAt = kReservedAt + 4;
constexpr size_t kDigestAt = kSizeAt + 8;
constexpr size_t kVersionAt = kDigestAt + kDigestBytes;
constexpr size_t kHeaderBytes = kVersionAt + kVersionBytes;
static_assert(kHeaderBytes <= kImageOffset);
// Larger than any database a pack may hold (the envelope bounds stored bytes; LZ4 expands them at
// most 255-fold, but Hyperscan's own images of our packs are a few megabytes).
constexpr uint64_t kMaxImageBytes = 1ull << 30;
// A temporary file older than this was left by a writer that died; it is removed when found.
constexpr time_t kStaleTemporarySeconds = 3600;
constexpr const char* kSuffix = ".img";
constexpr const char* kRecordSuffix = ".scr";

// Owned by this user or by root (an operator may fill a cache the user only reads), and writable
// by no one else: anyone who can replace an image can change what is matched.
bool Trusted(const struct stat& st) {
  return (st.st_uid == ::geteuid() || st.st_uid == 0) && (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

// Every ancestor must be trusted too, or sticky (/tmp: others cannot rename our entries there).
bool AncestorsTrusted(const std::string& directory) {
  std::string path = directory;
  while (true) {
    const size_t slash = path.find_last_of('/');
    if (slash == std::string::npos) return true;  // relative: the working directory is the user's
    path.resize(slash);
    struct stat st {};
    if (::stat(path.empty() ? "/" : path.c_str(), &st) != 0) return false;
    const bool sticky = (st.st_mode & S_ISVTX) != 0;
    if (!sticky && !Trusted(st)) return false;
    if (path.empty()) return true;
  }
}

// mkdir -p with mode 0700 for every directory it creates.
bool MakeDirectories(const std::string& directory) {
  for (size_t at = 1; at <= directory.size(); ++at) {
    if (at != directory.size() && directory[at] != '/') continue;
    const std::string prefix = directory.substr(0, at);
    if (::mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST) return false;
  }
  return true;
}

bool WriteAll(int fd, const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool HasSuffix(const std::string& name, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return name.size() > n && name.compare(name.size() - n, n, suffix) == 0;
}

// Keeps at most `keep` files named with `suffix` (the newest by modification time) and removes
// stale temporaries.
void Evict(int dir_fd, const char* suffix, size_t keep) {
  const int fd = ::openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  DIR* dir = ::fdopendir(fd);
  if (dir == nullptr) {
    ::close(fd);
    return;
  }
  std::vector<std::pair<struct timespec, std::string>> files;
  const time_t now = std::time(nullptr);
  while (const struct dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    struct stat st {};
    if (name == "." || name == ".." ||
        ::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
      continue;
    if (name.rfind(".tmp-", 0) == 0) {
      if (now - st.st_mtime > kStaleTemporarySeconds) ::unlinkat(dir_fd, name.c_str(), 0);
    } else if (HasSuffix(name, suffix)) {
      files.emplace_back(st.st_mtim, name);
    }
  }
  ::closedir(dir);
  if (files.size() <= keep) return;
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first.tv_sec, a.first.tv_nsec) > std::tie(b.first.tv_sec, b.first.tv_nsec);
  });
  for (size_t i = keep; i < files.size(); ++i) ::unlinkat(dir_fd, files[i].second.c_str(), 0);
}

// Writes `parts` one after the other as `name`: a temporary file 0600 in the directory, then a
// rename, so that readers see the whole file or none; then keeps the newest kMaxImages of its kind.
void WriteWhole(int dir_fd, const std::string& name, const char* suffix,
                std::initializer_list<std::span<const uint8_t>> parts) {
  static std::atomic<unsigned> counter{0};
  const std::string temporary = ".tmp-" + std::to_string(::getpid()) + "-" +
                                std::to_string(counter.fetch_add(1)) + "-" + name;
  const int fd = ::openat(dir_fd, temporary.c_str(),
                          O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return;
  bool written = true;
  for (std::span<const uint8_t> part : parts)
    written = written && WriteAll(fd, part.data(), part.size());
  const bool closed = ::close(fd) == 0;
  if (!written || !closed || ::renameat(dir_fd, temporary.c_str(), dir_fd, name.c_str()) != 0) {
    ::unlinkat(dir_fd, temporary.c_str(), 0);
    return;
  }
  Evict(dir_fd, suffix, ImageCache::kMaxImages);
}

// Opens `name` for reading when it is a regular file trusted like the directory; -1 otherwise.
int OpenTrusted(int dir_fd, const std::string& name, struct stat* st) {
  const int fd =
      ::openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return -1;
  if (::fstat(fd, st) != 0 || !S_ISREG(st->st_mode) || !Trusted(*st)) {
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

std::string ImageFileName(std::span<const uint8_t> digest) {
  char hex[2 * kDigestBytes + 1];
  if (digest.size() != kDigestBytes) return {};
  sodium_bin2hex(hex, sizeof hex, digest.data(), digest.size());
  return std::string(hex) + kSuffix;
}

MappedImage::MappedImage(MappedImage&& other) noexcept
    : base_(std::exchange(other.base_, nullptr)),
      length_(std::exchange(other.length_, 0)),
      db_(std::exchange(other.db_, nullptr)) {}

MappedImage& MappedImage::operator=(MappedImage&& other) noexcept {
  if (this != &other) {
    Release();
    base_ = std::exchange(other.base_, nullptr);
    length_ = std::exchange(other.length_, 0);
    db_ = std::exchange(other.db_, nullptr);
  }
  return *this;
}

MappedImage::~MappedImage() { Release(); }

void MappedImage::Release() {
  if (base_ != nullptr) ::munmap(base_, length_);
  base_ = nullptr;
  length_ = 0;
  db_ = nullptr;
}

bool ImageHeaderIsValid(std::span<const uint8_t> header, std::span<const uint8_t> digest,
                        uint64_t file_size, uint64_t* image_size) {
  if (header.size() < kHeaderBytes || digest.size() != kDigestBytes) return false;
  const uint8_t* p = header.data();
  if (std::memcmp(p, kMagic, sizeof kMagic) != 0 || LoadField<uint32_t>(p + kFormatAt) != kFormat ||
      LoadField<uint32_t>(p + kReservedAt) != 0)
    return false;
  const uint64_t size = LoadField<uint64_t>(p + kSizeAt);
  if (size < sizeof(uint64_t) || size > kMaxImageBytes || file_size != kImageOffset + size)
    return false;
  if (std::memcmp(p + kDigestAt, digest.data(), kDigestBytes) != 0) return false;
  uint8_t version[kVersionBytes];
  HsVersionField(version);
  if (std::memcmp(p + kVersionAt, version, kVersionBytes) != 0) return false;
  *image_size = size;
  return true;
}

ImageCache::ImageCache(const std::string& directory) {
  if (directory.empty() || !MakeDirectories(directory) || !AncestorsTrusted(directory)) return;
  const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !Trusted(st)) {
    ::close(fd);
    return;
  }
  dir_fd_ = fd;
}

ImageCache::~ImageCache() {
  if (dir_fd_ >= 0) ::close(dir_fd_);
}

MappedImage ImageCache::Find(std::span<const uint8_t> digest, uint64_t max_size) const {
  if (dir_fd_ < 0 || digest.size() != kDigestBytes) return {};
  struct stat st {};
  const int fd = OpenTrusted(dir_fd_, ImageFileName(digest), &st);
  if (fd < 0) return {};
  uint8_t header[kHeaderBytes];
  uint64_t image_size = 0;
  void* base = MAP_FAILED;
  if (::pread(fd, header, sizeof header, 0) == static_cast<ssize_t>(sizeof header) &&
      ImageHeaderIsValid(header, digest, static_cast<uint64_t>(st.st_size), &image_size) &&
      image_size <= max_size) {
    // Not populated: with a scratch record only the pages a scan reads are ever touched, and
    // Hyperscan's checksum pass, when it runs, faults the rest in sequence.
    base = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  }
  ::close(fd);
  if (base == MAP_FAILED) return {};
  auto* db = reinterpret_cast<hs_database_t*>(static_cast<uint8_t*>(base) + kImageOffset);
  size_t size = 0;
  // Hyperscan's own view (magic, version) must agree with the header's size.
  if (hs_database_size(db, &size) != HS_SUCCESS || size != image_size) {
    ::munmap(base, static_cast<size_t>(st.st_size));
    return {};
  }
  return MappedImage(base, static_cast<size_t>(st.st_size), db);
}

void ImageCache::Store(std::span<const uint8_t> digest, const hs_database_t* db,
                       size_t size) const {
  if (dir_fd_ < 0 || digest.size() != kDigestBytes || db == nullptr || size == 0 ||
      size > kMaxImageBytes)
    return;
  uint8_t header[kImageOffset] = {};
  std::memcpy(header, kMagic, sizeof kMagic);
  StoreField<uint32_t>(header + kFormatAt, kFormat);
  StoreField<uint64_t>(header + kSizeAt, size);
  std::memcpy(header + kDigestAt, digest.data(), kDigestBytes);
  HsVersionField(header + kVersionAt);
  const auto* image = reinterpret_cast<const uint8_t*>(db);
  WriteWhole(dir_fd_, ImageFileName(digest), kSuffix, {{header, sizeof header}, {image, size}});
}

void ImageCache::Remove(std::span<const uint8_t> digest) const {
  if (dir_fd_ >= 0 && digest.size() == kDigestBytes)
    ::unlinkat(dir_fd_, ImageFileName(digest).c_str(), 0);
}

std::vector<uint8_t> ImageCache::ReadRecord(const std::string& name, size_t size) const {
  if (dir_fd_ < 0) return {};
  struct stat st {};
  const int fd = OpenTrusted(dir_fd_, name, &st);
  if (fd < 0) return {};
  std::vector<uint8_t> record(size);
  const bool read = static_cast<uint64_t>(st.st_size) == size &&
                    ::pread(fd, record.data(), size, 0) == static_cast<ssize_t>(size);
  ::close(fd);
  if (!read) return {};
  return record;
}

void ImageCache::StoreRecord(const std::string& name, std::span<const uint8_t> record) const {
  if (dir_fd_ >= 0 && !record.empty()) WriteWhole(dir_fd_, name, kRecordSuffix, {record});
}

}  // namespace doberman::internal
