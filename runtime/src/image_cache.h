// A directory of Hyperscan databases as they are once deserialized ("images"), so that a process
// that loads a pack for one call (a hook) maps them instead of decoding them again. Decoding a
// database is LZ4, Hyperscan's zero fill, copy and checksum over every byte; a mapped image costs a
// few page-table entries. docs/architecture.md, "The image cache", gives the trust model: an image
// is found by the signed digest of the stored database it was made from, and the directory is
// trusted as far as the user's own files are (owned by this user or root, writable by no one else);
// Hyperscan's own checksum over the bytecode is checked (hs_alloc_scratch) whenever a scratch is
// sized for an image, which a scratch record (scratch_record.h) spares for a few minutes at most.
// Anything wrong with an image (missing, foreign, malformed, stale) is a miss, never an error: the
// database is then loaded from the pack as before and its image written for the next process.
#ifndef DOBERMAN_RUNTIME_IMAGE_CACHE_H_
#define DOBERMAN_RUNTIME_IMAGE_CACHE_H_

#include <hs/hs_runtime.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace doberman::internal {

// A read-only private mapping of one image file; unmapped when destroyed.
class MappedImage {
 public:
  MappedImage() = default;
  MappedImage(void* base, size_t length, hs_database_t* db)
      : base_(base), length_(length), db_(db) {}
  MappedImage(MappedImage&& other) noexcept;
  MappedImage& operator=(MappedImage&& other) noexcept;
  MappedImage(const MappedImage&) = delete;
  MappedImage& operator=(const MappedImage&) = delete;
  ~MappedImage();

  // Null when empty. The database lives in read-only pages: Hyperscan never writes to one.
  hs_database_t* db() const { return db_; }

 private:
  void Release();
  void* base_ = nullptr;
  size_t length_ = 0;
  hs_database_t* db_ = nullptr;
};

class ImageCache {
 public:
  // Opens (creating it 0700 when missing, with missing parents) the directory. A directory that
  // cannot be opened, or that is owned by someone else or writable by group or others, leaves the
  // cache disabled: Find misses and Store does nothing.
  explicit ImageCache(const std::string& directory);
  ImageCache(const ImageCache&) = delete;
  ImageCache& operator=(const ImageCache&) = delete;
  ~ImageCache();

  bool enabled() const { return dir_fd_ >= 0; }

  // The image made from the stored database whose BLAKE2b-256 digest is `digest` (32 bytes), or an
  // empty MappedImage. `max_size` bounds the image by what the signed tables say the database
  // holds (its serialized size, which the deserialized form exceeds only by Hyperscan's header
  // padding), so an image cannot make the process map more than the pack justifies. Thread-safe.
  MappedImage Find(std::span<const uint8_t> digest, uint64_t max_size) const;

  // Writes `db` (a deserialized database of `size` bytes, 64-byte aligned) as the image for
  // `digest`: a temporary file, then a rename, so readers see a whole image or none. Best effort
  // and thread-safe; when the directory holds more than kMaxImages images the oldest are removed.
  void Store(std::span<const uint8_t> digest, const hs_database_t* db, size_t size) const;

  // Removes the image for `digest` (one Hyperscan refused when it was used).
  void Remove(std::span<const uint8_t> digest) const;

  // A scratch record (scratch_record.h) of exactly `size` bytes, trusted as an image is; empty
  // when there is none or it is not trusted. Thread-safe.
  std::vector<uint8_t> ReadRecord(const std::string& name, size_t size) const;
  // Written whole or not at all, as an image is; at most kMaxImages records are kept.
  void StoreRecord(const std::string& name, std::span<const uint8_t> record) const;

  static constexpr size_t kMaxImages = 64;

 private:
  int dir_fd_ = -1;
};

// The image file's header, checked before the image is used. Exposed for tests and the fuzz target.
// The image itself starts kImageOffset bytes into the file (a page boundary, so the mapping keeps
// the 64-byte alignment Hyperscan's bytecode was placed at).
constexpr size_t kImageOffset = 4096;
// The image file's name for `digest` (32 bytes): its hex and ".img"; empty for another size.
std::string ImageFileName(std::span<const uint8_t> digest);
bool ImageHeaderIsValid(std::span<const uint8_t> header, std::span<const uint8_t> digest,
                        uint64_t file_size, uint64_t* image_size);

}  // namespace doberman::internal

#endif  // DOBERMAN_RUNTIME_IMAGE_CACHE_H_
