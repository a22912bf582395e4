// The style journal (API and layout in style_journal.h).
#include "style_journal.h"

#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstring>

namespace doberman::state {
namespace {

constexpr const char* kStyleJournalFile = "style.journal";
constexpr char kMagic[8] = {'D', 'O', 'B', 'S', 'T', 'Y', 'L', '2'};
constexpr size_t kHeader = sizeof kMagic + sizeof(uint32_t);  // magic, base size
constexpr size_t kFeatureBytes = kStyleFeatures * sizeof(double);
constexpr size_t kCheckBytes = 16;
constexpr size_t kRecord = sizeof(Fingerprint) + kFeatureBytes + kCheckBytes;
constexpr size_t kBaseHead = sizeof(uint64_t) + kBootIdBytes + sizeof(uint32_t);
constexpr size_t kEntry = sizeof(Fingerprint) + sizeof(int64_t) + 2 * kFeatureBytes;
constexpr size_t kMaxBase = kBaseHead + kMaxStyleBaseEntities * kEntry + kCheckBytes;
constexpr size_t kMaxJournal = kHeader + kMaxBase + (kMaxStyleUpdates + 1) * kRecord;

using Check = std::array<uint8_t, kCheckBytes>;

Check CheckOf(const Key& key, const char* domain, const uint8_t* bytes, size_t n) {
  Check out{};
  crypto_generichash_state st;
  crypto_generichash_init(&st, key.data(), key.size(), out.size());
  crypto_generichash_update(&st, reinterpret_cast<const uint8_t*>(domain), std::strlen(domain) + 1);
  crypto_generichash_update(&st, bytes, n);
  crypto_generichash_final(&st, out.data(), out.size());
  return out;
}

// Checks records with SipHash-1-3 (128-bit output) under a key derived from the directory's: a
// reader checks every record, and a BLAKE2b per record was about 1.8k instructions against about
// 0.2k. The check only has to catch a torn or edited record (docs/session-memory.md: whoever can
// edit the journal can edit the store), which a 128-bit keyed tag does.
class RecordChecker {
 public:
  explicit RecordChecker(const Key& key) {
    static const char kDomain[] = "doberman style journal v2 record key";
    crypto_generichash(subkey_.data(), subkey_.size(), reinterpret_cast<const uint8_t*>(kDomain),
                       sizeof kDomain, key.data(), key.size());
  }
  RecordChecker(const RecordChecker&) = delete;
  RecordChecker& operator=(const RecordChecker&) = delete;
  ~RecordChecker() { sodium_memzero(subkey_.data(), subkey_.size()); }
  Check Of(const uint8_t* record) const {
    Check out{};
    crypto_shorthash_siphashx24(out.data(), record, kRecord - kCheckBytes, subkey_.data());
    return out;
  }

 private:
  std::array<uint8_t, crypto_shorthash_siphashx24_KEYBYTES> subkey_{};
};

static_assert(crypto_shorthash_siphashx24_BYTES == kCheckBytes);

// Over the header and the base before its check: a base moved to another file offset or given
// another size does not verify.
Check BaseCheck(const Key& key, const uint8_t* file, size_t base_size) {
  return CheckOf(key, "doberman style base v1", file, kHeader + base_size - kCheckBytes);
}

uint32_t BaseSizeOf(std::string_view data) {
  uint32_t size = 0;
  std::memcpy(&size, data.data() + sizeof kMagic, sizeof size);
  return size;
}

// The file's bytes for `base` (no updates): the header and, unless there are too many people, the
// base.
std::string Serialize(const Key& key, uint64_t db_inode, const std::vector<EntityBaseline>& base) {
  std::string out(kMagic, sizeof kMagic);
  if (base.size() > kMaxStyleBaseEntities) return out.append(sizeof(uint32_t), '\0');
  const auto base_size = static_cast<uint32_t>(kBaseHead + base.size() * kEntry + kCheckBytes);
  out.append(reinterpret_cast<const char*>(&base_size), sizeof base_size);
  out.append(reinterpret_cast<const char*>(&db_inode), sizeof db_inode);
  // Zeros when the boot id cannot be read: such a base is never current (BaseIsCurrent).
  const std::string boot = BootId();
  out += boot.empty() ? std::string(kBootIdBytes, '\0') : boot;
  const auto count = static_cast<uint32_t>(base.size());
  out.append(reinterpret_cast<const char*>(&count), sizeof count);
  for (const EntityBaseline& e : base) {
    out.append(reinterpret_cast<const char*>(e.entity.data()), e.entity.size());
    out.append(reinterpret_cast<const char*>(&e.baseline.turns), sizeof e.baseline.turns);
    out.append(reinterpret_cast<const char*>(e.baseline.mean.data()), kFeatureBytes);
    out.append(reinterpret_cast<const char*>(e.baseline.m2.data()), kFeatureBytes);
  }
  const Check check = BaseCheck(key, reinterpret_cast<const uint8_t*>(out.data()), base_size);
  out.append(reinterpret_cast<const char*>(check.data()), check.size());
  return out;
}

bool AllFinite(const StyleFeatures& f) {
  for (double x : f) {
    if (!std::isfinite(x)) return false;
  }
  return true;
}

// The base of a journal whose header is sound (kHeader bytes, our magic): false when it does not
// verify or does not hold together.
bool ParseBase(const Key& key, std::string_view data, StyleJournalContents* out) {
  const uint32_t base_size = BaseSizeOf(data);
  if (base_size < kBaseHead + kCheckBytes || base_size > kMaxBase ||
      data.size() < kHeader + base_size) {
    return false;
  }
  const auto* file = reinterpret_cast<const uint8_t*>(data.data());
  const uint8_t* p = file + kHeader;
  uint32_t count = 0;
  std::memcpy(&count, p + sizeof(uint64_t) + kBootIdBytes, sizeof count);
  if (base_size != kBaseHead + size_t{count} * kEntry + kCheckBytes) return false;
  const Check check = BaseCheck(key, file, base_size);
  if (sodium_memcmp(check.data(), file + kHeader + base_size - kCheckBytes, kCheckBytes) != 0)
    return false;
  std::memcpy(&out->base_db_inode, p, sizeof out->base_db_inode);
  out->base_boot.assign(reinterpret_cast<const char*>(p + sizeof(uint64_t)), kBootIdBytes);
  p += kBaseHead;
  for (uint32_t i = 0; i < count; ++i, p += kEntry) {
    EntityBaseline e;
    std::memcpy(e.entity.data(), p, e.entity.size());
    std::memcpy(&e.baseline.turns, p + sizeof(Fingerprint), sizeof e.baseline.turns);
    std::memcpy(e.baseline.mean.data(), p + sizeof(Fingerprint) + sizeof(int64_t), kFeatureBytes);
    std::memcpy(e.baseline.m2.data(), p + sizeof(Fingerprint) + sizeof(int64_t) + kFeatureBytes,
                kFeatureBytes);
    if (e.baseline.turns < 0 || !AllFinite(e.baseline.mean) || !AllFinite(e.baseline.m2)) {
      out->base.clear();
      return false;
    }
    out->base.push_back(e);
  }
  return true;
}

// A base written for the database whose inode is `db_inode`, in this boot (whose id could be read).
bool BaseIsCurrent(const StyleJournalContents& j, uint64_t db_inode) {
  const std::string boot = BootId();
  return j.has_base && j.base_db_inode == db_inode && !boot.empty() && j.base_boot == boot;
}

std::string PathOf(const StateDir& dir) { return dir.path + "/" + kStyleJournalFile; }

bool WriteFresh(int fd, const std::string& bytes, const std::string& path, std::string* error) {
  // Emptied first: a writer that dies before the new bytes are in leaves an empty journal (no
  // base: the next reader folds through the store), never the new base over old updates.
  if (::ftruncate(fd, 0) != 0 ||
      !WriteAllAt(fd, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), 0)) {
    return (*error = ErrnoMessage("state store: cannot write", path), false);
  }
  return true;
}

}  // namespace

StyleJournalContents ParseStyleJournal(const Key& key, std::string_view data) {
  StyleJournalContents out;
  if (data.size() < kHeader || std::memcmp(data.data(), kMagic, sizeof kMagic) != 0 ||
      BaseSizeOf(data) > kMaxBase) {
    out.skipped = data.empty() ? 0 : 1;  // not a journal of ours: nothing in it is trusted
    return out;
  }
  const uint32_t base_size = BaseSizeOf(data);
  if (base_size != 0) {
    out.has_base = ParseBase(key, data, &out);
    if (!out.has_base) ++out.skipped;
  }
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  const RecordChecker checker(key);
  size_t at = kHeader + base_size;
  for (; at + kRecord <= data.size(); at += kRecord) {
    const Check check = checker.Of(p + at);
    StyleUpdate u;
    std::memcpy(u.entity.data(), p + at, u.entity.size());
    std::memcpy(u.features.data(), p + at + sizeof(Fingerprint), kFeatureBytes);
    if (out.updates.size() == kMaxStyleUpdates || !AllFinite(u.features) ||
        sodium_memcmp(check.data(), p + at + kRecord - kCheckBytes, kCheckBytes) != 0) {
      ++out.skipped;
      continue;
    }
    out.updates.push_back(u);
  }
  if (at < data.size()) ++out.skipped;  // a torn tail
  return out;
}

bool AppendStyleUpdate(const StateDir& dir, const StyleUpdate& update, int timeout_ms,
                       std::string* error) {
  const std::string path = PathOf(dir);
  const int fd = OpenPrivateFileLocked(path, /*create=*/true, timeout_ms, "style journal", error);
  if (fd < 0) return false;
  const FdCloser closer(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    return (*error = ErrnoMessage("state store: cannot stat", path), false);
  off_t size = st.st_size;
  std::string header;
  ReadUpTo(fd, kHeader, &header);
  size_t records_at = kHeader;
  if (header.size() == kHeader && std::memcmp(header.data(), kMagic, sizeof kMagic) == 0 &&
      BaseSizeOf(header) <= kMaxBase && static_cast<size_t>(size) >= kHeader + BaseSizeOf(header)) {
    records_at += BaseSizeOf(header);
  } else {
    // Not a journal of ours (or an older layout): started again, without a base.
    if (!WriteFresh(fd, std::string(kMagic, sizeof kMagic).append(sizeof(uint32_t), '\0'), path,
                    error)) {
      return false;
    }
    size = kHeader;
  }
  // A torn record (a writer that died mid-write, shorter than a record) is overwritten, not
  // appended after: the new record starts where it did and covers it.
  const size_t records = (static_cast<size_t>(size) - records_at) / kRecord;
  if (records >= kMaxStyleUpdates)
    return (*error = "state store: the style journal is full", false);
  uint8_t record[kRecord];
  std::memcpy(record, update.entity.data(), update.entity.size());
  std::memcpy(record + sizeof(Fingerprint), update.features.data(), kFeatureBytes);
  const Check check = RecordChecker(dir.key).Of(record);
  std::memcpy(record + kRecord - kCheckBytes, check.data(), check.size());
  if (!WriteAllAt(fd, record, sizeof record, static_cast<off_t>(records_at + records * kRecord)))
    return (*error = ErrnoMessage("state store: cannot write", path), false);
  return true;
}

bool ReadStyleBaseline(const StateDir& dir, uint64_t db_inode, const Fingerprint& entity,
                       int timeout_ms, StyleBaseline* out, std::string* error) {
  error->clear();
  const int fd =
      OpenPrivateFileLocked(PathOf(dir), /*create=*/false, timeout_ms, "style journal", error);
  if (fd < 0) return false;  // no journal (error empty): no base either
  const FdCloser closer(fd);
  std::string data;
  ReadUpTo(fd, kMaxJournal, &data);
  // Past kMaxStyleUpdatesRead records the checks would cost more than folding once through the
  // store does over as many turns: the caller folds.
  if (data.size() >= kHeader &&
      data.size() > kHeader + BaseSizeOf(data) + kMaxStyleUpdatesRead * kRecord) {
    return false;
  }
  const StyleJournalContents j = ParseStyleJournal(dir.key, data);
  if (!BaseIsCurrent(j, db_inode)) return false;
  *out = StyleBaseline{};
  for (const EntityBaseline& e : j.base) {
    if (e.entity == entity) *out = e.baseline;
  }
  for (const StyleUpdate& u : j.updates) {
    if (u.entity == entity) out->Add(u.features);
  }
  return true;
}

bool FoldStyleJournal(const StateDir& dir, uint64_t db_inode, int timeout_ms,
                      const ApplyStyleUpdates& apply, size_t* skipped, std::string* error) {
  const std::string path = PathOf(dir);
  const int fd = OpenPrivateFileLocked(path, /*create=*/true, timeout_ms, "style journal", error);
  if (fd < 0) return false;
  const FdCloser closer(fd);
  std::string data;
  ReadUpTo(fd, kMaxJournal, &data);
  const StyleJournalContents j = ParseStyleJournal(dir.key, data);
  *skipped = j.skipped;
  if (j.updates.empty() && j.skipped == 0 && BaseIsCurrent(j, db_inode)) return true;
  std::vector<EntityBaseline> base;
  if (!apply(j.updates, &base)) return false;
  return WriteFresh(fd, Serialize(dir.key, db_inode, base), path, error);
}

}  // namespace doberman::state
