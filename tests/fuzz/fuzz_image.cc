// Fuzz target for the image cache's readers (runtime/src/image_cache.h, scratch_record.h): the
// input written as an image file and looked up, so that the header checks, the size checks against
// the file, the mapping and Hyperscan's own header reading (hs_database_size) all see it; and the
// input read as a scratch record, with the key and the time it names, so that its checks run up to
// the checksum. An image that passes is only measured, never scanned with: a file that passes
// Hyperscan's checksum (or a record that passes its own) is trusted as the user's own files are
// (docs/architecture.md, "The image cache"), which is the boundary, not a bug.
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>

#include "image_cache.h"
#include "scratch_record.h"

namespace {

// The digest the lookup asks for: the one the input's header names (bytes 24 to 56), so that
// inputs get past the name check and into the rest.
constexpr size_t kDigestAt = 24, kDigestBytes = 32;
// A scratch record's time of writing and key, where scratch_record.cc puts them: the record is
// read at the time it names and under the key it names, so that inputs get to the checksum.
constexpr size_t kRecordCreatedAt = 16, kRecordKeyAt = 32;

void ReadAsScratchRecord(const uint8_t* data, size_t size) {
  using namespace doberman::internal;
  ScratchRecordKey key{};
  int64_t created = 0;
  if (size >= kRecordKeyAt + key.size()) {
    std::memcpy(key.data(), data + kRecordKeyAt, key.size());
    std::memcpy(&created, data + kRecordCreatedAt, sizeof created);
  }
  if (created < 0 || created > (int64_t{1} << 40)) created = 0;
  hs_scratch_t* clone = CloneFromScratchRecord({data, size}, key, created + 1);
  // Only a whole record of the one size can pass.
  if (clone != nullptr && size != ScratchRecordBytes()) __builtin_trap();
  hs_free_scratch(clone);
}

// A scratch directory of its own, removed at exit (each input's file is removed after it). The
// path lives in plain arrays: the exit handler may run after static strings are destroyed.
char g_root[] = "/tmp/fuzz-image-XXXXXX";
char g_images[sizeof g_root + 8];

const char* Directory() {
  static const bool made = [] {
    if (::mkdtemp(g_root) == nullptr) return false;
    std::snprintf(g_images, sizeof g_images, "%s/images", g_root);
    std::atexit([] {
      ::rmdir(g_images);
      ::rmdir(g_root);
    });
    return true;
  }();
  return made ? g_images : nullptr;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using doberman::internal::ImageCache;
  uint8_t digest[kDigestBytes] = {};
  if (size >= kDigestAt + kDigestBytes) std::memcpy(digest, data + kDigestAt, kDigestBytes);
  uint64_t image_size = 0;
  const bool valid =
      doberman::internal::ImageHeaderIsValid({data, size}, digest, size, &image_size);
  if (valid && doberman::internal::kImageOffset + image_size != size) __builtin_trap();
  ReadAsScratchRecord(data, size);

  if (Directory() == nullptr) return 0;
  static const ImageCache cache(Directory());
  if (!cache.enabled()) return 0;
  const std::string name =
      std::string(Directory()) + "/" + doberman::internal::ImageFileName(digest);
  const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return 0;
  const bool written = ::write(fd, data, size) == static_cast<ssize_t>(size);
  ::close(fd);
  if (written) {
    const doberman::internal::MappedImage image = cache.Find(digest, size);
    // Found only when the header and the file agree: the header check above must have passed.
    if (image.db() != nullptr && !valid) __builtin_trap();
  }
  ::unlink(name.c_str());
  return 0;
}
