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
constexpr char kMagic[8] = {'D', 'O', 'B', 'S', 'T', 'Y', 'L', '1'};
constexpr size_t kFeatureBytes = kStyleFeatures * sizeof(double);
constexpr size_t kCheckBytes = 16;
constexpr size_t kRecord = sizeof(Fingerprint) + kFeatureBytes + kCheckBytes;

std::array<uint8_t, kCheckBytes> CheckOf(const Key& key, const uint8_t* record) {
  std::array<uint8_t, kCheckBytes> out{};
  crypto_generichash_state st;
  crypto_generichash_init(&st, key.data(), key.size(), out.size());
  static const char kDomain[] = "doberman style journal v1";
  crypto_generichash_update(&st, reinterpret_cast<const uint8_t*>(kDomain), sizeof kDomain);
  crypto_generichash_update(&st, record, kRecord - kCheckBytes);
  crypto_generichash_final(&st, out.data(), out.size());
  return out;
}

std::string PathOf(const StateDir& dir) { return dir.path + "/" + kStyleJournalFile; }

}  // namespace

bool AppendStyleUpdate(const StateDir& dir, const StyleUpdate& update, int timeout_ms,
                       std::string* error) {
  const int fd =
      OpenPrivateFileLocked(PathOf(dir), /*create=*/true, timeout_ms, "style journal", error);
  if (fd < 0) return false;
  const FdCloser closer(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    return (*error = ErrnoMessage("state store: cannot stat", PathOf(dir)), false);
  off_t size = st.st_size;
  if (size < static_cast<off_t>(sizeof kMagic)) {
    if (::ftruncate(fd, 0) != 0 ||
        !WriteAllAt(fd, reinterpret_cast<const uint8_t*>(kMagic), sizeof kMagic, 0)) {
      return (*error = ErrnoMessage("state store: cannot write", PathOf(dir)), false);
    }
    size = sizeof kMagic;
  }
  // A torn record (a writer that died mid-write, shorter than a record) is overwritten, not
  // appended after: the new record starts where it did and covers it.
  const off_t records = (size - static_cast<off_t>(sizeof kMagic)) / static_cast<off_t>(kRecord);
  if (records >= static_cast<off_t>(kMaxStyleUpdates))
    return (*error = "state store: the style journal is full", false);
  uint8_t record[kRecord];
  std::memcpy(record, update.entity.data(), update.entity.size());
  std::memcpy(record + sizeof(Fingerprint), update.features.data(), kFeatureBytes);
  const auto check = CheckOf(dir.key, record);
  std::memcpy(record + kRecord - kCheckBytes, check.data(), check.size());
  const off_t at = static_cast<off_t>(sizeof kMagic) + records * static_cast<off_t>(kRecord);
  if (!WriteAllAt(fd, record, sizeof record, at))
    return (*error = ErrnoMessage("state store: cannot write", PathOf(dir)), false);
  return true;
}

std::vector<StyleUpdate> ParseStyleJournal(const Key& key, std::string_view data, size_t* skipped) {
  *skipped = 0;
  std::vector<StyleUpdate> out;
  if (data.size() < sizeof kMagic || std::memcmp(data.data(), kMagic, sizeof kMagic) != 0) {
    *skipped = data.empty() ? 0 : 1;  // not a journal of ours: nothing in it is trusted
    return out;
  }
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  size_t at = sizeof kMagic;
  for (; at + kRecord <= data.size(); at += kRecord) {
    const auto check = CheckOf(key, p + at);
    StyleUpdate u;
    std::memcpy(u.entity.data(), p + at, u.entity.size());
    std::memcpy(u.features.data(), p + at + sizeof(Fingerprint), kFeatureBytes);
    bool finite = true;
    for (double f : u.features) finite = finite && std::isfinite(f);
    if (out.size() == kMaxStyleUpdates || !finite ||
        sodium_memcmp(check.data(), p + at + kRecord - kCheckBytes, kCheckBytes) != 0) {
      ++*skipped;
      continue;
    }
    out.push_back(u);
  }
  if (at < data.size()) ++*skipped;  // a torn tail
  return out;
}

bool FoldStyleJournal(const StateDir& dir, int timeout_ms,
                      const std::function<bool(const std::vector<StyleUpdate>&)>& apply,
                      size_t* skipped, std::string* error) {
  *skipped = 0;
  const int fd =
      OpenPrivateFileLocked(PathOf(dir), /*create=*/false, timeout_ms, "style journal", error);
  if (fd < 0) return error->empty();  // no journal: nothing to fold
  const FdCloser closer(fd);
  std::string data;
  ReadUpTo(fd, sizeof kMagic + (kMaxStyleUpdates + 1) * kRecord, &data);
  const std::vector<StyleUpdate> updates = ParseStyleJournal(dir.key, data, skipped);
  if (data.size() <= sizeof kMagic && *skipped == 0) return true;
  if (!apply(updates)) return false;
  if (::ftruncate(fd, 0) != 0)
    return (*error = ErrnoMessage("state store: cannot empty", PathOf(dir)), false);
  return true;
}

}  // namespace doberman::state
