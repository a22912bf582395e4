// Scratch records: the file layout (fixed size, checksummed) and the clone that every use and every
// write goes through.
#include "scratch_record.h"

#include <sodium.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstring>

#include "cache_file_fields.h"

namespace doberman::internal {
namespace {

constexpr char kMagic[8] = {'D', 'O', 'B', 'S', 'C', 'R', 'T', '1'};
constexpr uint32_t kFormat = 1;
constexpr size_t kVersionBytes = kHsVersionFieldBytes;
// Where the writer puts each field and the reader looks: magic, format, the kept prefix's length,
// the time of writing, the original scratch's size, the key, Hyperscan's version string, the
// prefix (zero-padded), and a BLAKE2b-256 checksum of everything before it.
constexpr size_t kFormatAt = sizeof kMagic;
constexpr size_t kPrefixLengthAt = kFormatAt + 4;
constexpr size_t kCreatedAt = kPrefixLengthAt + 4;
constexpr size_t kSizeAt = kCreatedAt + 8;
constexpr size_t kKeyAt = kSizeAt + 8;
constexpr size_t kVersionAt = kKeyAt + 32;
constexpr size_t kPrefixAt = kVersionAt + kVersionBytes;
constexpr size_t kChecksumAt = kPrefixAt + kScratchRecordPrefix;
constexpr size_t kRecordBytes = kChecksumAt + crypto_generichash_BYTES;
// Hyperscan places a scratch at the first cache line of its allocation, at most this many bytes in,
// so a scratch of size S can be read for S minus this from its start.
constexpr size_t kAlignmentSlack = 64;
// Larger than any scratch of a pack's databases (a few hundred KiB to a few MiB).
constexpr uint64_t kMaxScratchBytes = 256ull << 20;
// A record written by a machine whose clock was ahead is not taken as fresh.
constexpr int64_t kClockSkewSeconds = 60;
constexpr char kKeyDomain[] = "doberman scratch record 1";

// hs_clone_scratch from `prefix` followed by zeros up to `size` bytes (the whole of the original
// scratch's length, so however much of it Hyperscan's prototype copy reads stays inside the
// buffer); null unless the clone's size is `size`. Every size field the clone allocates from
// counts in its size, so a field outside the prefix (read as zero) or read at another offset
// shows as a different size.
hs_scratch_t* CloneFromPrefix(std::span<const uint8_t> prefix, uint64_t size) {
  if (size == 0 || size > kMaxScratchBytes || prefix.size() > size) return nullptr;
  // Anonymous pages: zero, page-aligned (Hyperscan wants a cache line), and only the pages the
  // prototype copy touches are ever backed.
  void* buffer = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (buffer == MAP_FAILED) return nullptr;
  std::memcpy(buffer, prefix.data(), prefix.size());
  hs_scratch_t* clone = nullptr;
  const hs_error_t e = hs_clone_scratch(static_cast<const hs_scratch_t*>(buffer), &clone);
  ::munmap(buffer, size);
  size_t clone_size = 0;
  if (e != HS_SUCCESS || hs_scratch_size(clone, &clone_size) != HS_SUCCESS || clone_size != size) {
    hs_free_scratch(clone);
    return nullptr;
  }
  return clone;
}

void Checksum(std::span<const uint8_t> record, uint8_t out[crypto_generichash_BYTES]) {
  crypto_generichash(out, crypto_generichash_BYTES, record.data(), kChecksumAt, nullptr, 0);
}

}  // namespace

size_t ScratchRecordBytes() { return kRecordBytes; }

ScratchRecordKey KeyOfImages(std::vector<std::span<const uint8_t>> digests) {
  std::sort(digests.begin(), digests.end(), [](auto a, auto b) {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
  });
  crypto_generichash_state state;
  crypto_generichash_init(&state, nullptr, 0, crypto_generichash_BYTES);
  crypto_generichash_update(&state, reinterpret_cast<const uint8_t*>(kKeyDomain),
                            sizeof kKeyDomain);
  uint8_t version[kVersionBytes];
  HsVersionField(version);
  crypto_generichash_update(&state, version, sizeof version);
  for (std::span<const uint8_t> digest : digests) {
    const uint64_t length = digest.size();  // framed, so that no two lists hash alike
    crypto_generichash_update(&state, reinterpret_cast<const uint8_t*>(&length), sizeof length);
    crypto_generichash_update(&state, digest.data(), digest.size());
  }
  ScratchRecordKey key{};
  crypto_generichash_final(&state, key.data(), key.size());
  return key;
}

std::string ScratchRecordFileName(const ScratchRecordKey& key) {
  char hex[2 * sizeof(ScratchRecordKey) + 1];
  sodium_bin2hex(hex, sizeof hex, key.data(), key.size());
  return std::string(hex) + ".scr";
}

std::vector<uint8_t> EncodeScratchRecord(const ScratchRecordKey& key, const hs_scratch_t* scratch,
                                         int64_t now) {
  size_t size = 0;
  if (scratch == nullptr || hs_scratch_size(scratch, &size) != HS_SUCCESS ||
      size <= kAlignmentSlack || size > kMaxScratchBytes)
    return {};
  const size_t prefix = std::min(kScratchRecordPrefix, size - kAlignmentSlack);
  const std::span<const uint8_t> kept{reinterpret_cast<const uint8_t*>(scratch), prefix};
  hs_scratch_t* check = CloneFromPrefix(kept, size);
  if (check == nullptr) return {};  // this Hyperscan's prototype does not fit the prefix
  hs_free_scratch(check);
  std::vector<uint8_t> record(kRecordBytes, 0);
  uint8_t* p = record.data();
  std::memcpy(p, kMagic, sizeof kMagic);
  StoreField<uint32_t>(p + kFormatAt, kFormat);
  StoreField<uint32_t>(p + kPrefixLengthAt, static_cast<uint32_t>(prefix));
  StoreField<int64_t>(p + kCreatedAt, now);
  StoreField<uint64_t>(p + kSizeAt, size);
  std::memcpy(p + kKeyAt, key.data(), key.size());
  HsVersionField(p + kVersionAt);
  std::memcpy(p + kPrefixAt, kept.data(), prefix);
  Checksum(record, p + kChecksumAt);
  return record;
}

hs_scratch_t* CloneFromScratchRecord(std::span<const uint8_t> record, const ScratchRecordKey& key,
                                     int64_t now) {
  if (record.size() != kRecordBytes) return nullptr;
  const uint8_t* p = record.data();
  uint8_t version[kVersionBytes];
  HsVersionField(version);
  const uint32_t prefix = LoadField<uint32_t>(p + kPrefixLengthAt);
  const int64_t created = LoadField<int64_t>(p + kCreatedAt);
  if (std::memcmp(p, kMagic, sizeof kMagic) != 0 || LoadField<uint32_t>(p + kFormatAt) != kFormat ||
      prefix == 0 || prefix > kScratchRecordPrefix || created < 0 ||
      std::memcmp(p + kKeyAt, key.data(), key.size()) != 0 ||
      std::memcmp(p + kVersionAt, version, kVersionBytes) != 0 ||
      created > now + kClockSkewSeconds || now - created >= kScratchRecordLifetimeSeconds)
    return nullptr;
  uint8_t checksum[crypto_generichash_BYTES];
  Checksum(record, checksum);
  if (std::memcmp(checksum, p + kChecksumAt, sizeof checksum) != 0) return nullptr;
  return CloneFromPrefix({p + kPrefixAt, prefix}, LoadField<uint64_t>(p + kSizeAt));
}

}  // namespace doberman::internal
