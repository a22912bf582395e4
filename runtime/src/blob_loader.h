// Opening the pack's database blobs: each one's BLAKE2b-256 digest (named in the signed tables) is
// checked before the blob is decoded (when stored compressed) and Hyperscan deserializes it.
// Hashing is most of a pack's load time, and blobs are independent, so when there is enough work it
// is shared with one helper thread.
#ifndef DOBERMAN_RUNTIME_BLOB_LOADER_H_
#define DOBERMAN_RUNTIME_BLOB_LOADER_H_

#include <hs/hs_runtime.h>

#include <array>
#include <cstdint>
#include <functional>
#include <span>

#include "image_cache.h"
#include "page_memory.h"

namespace doberman::internal {

struct BlobJob {
  std::span<const uint8_t> blob;
  std::span<const uint8_t> digest;
  uint64_t offset = 0;  // of the blob in the blob area, for the fetch callback
  // Nonzero: the blob is an LZ4 block (lz4_block.h) of Hyperscan's serialized database, which is
  // this many bytes long; checked against MaxLz4DecodedSize by the caller.
  uint64_t decoded_size = 0;
  bool fetched = true;  // false: the fetch callback failed (I/O), nothing else was tried
  // Results: digest_ok false means nothing but the hash used the bytes; undecodable, that they are
  // not the LZ4 block they claim to be (Hyperscan never saw them); otherwise `error` is Hyperscan's
  // (or hs_alloc_scratch's) and, on HS_SUCCESS, `db` points into `memory` (move both to the owner).
  bool digest_ok = false;
  bool undecodable = false;
  hs_error_t error = HS_INVALID;
  hs_database_t* db = nullptr;
  PageMemory memory;
  // Set instead of `memory` when the database came from the image cache (its blob was never read:
  // the image was found by the blob's signed digest). hs_alloc_scratch has checked its checksum,
  // in this process or, for a scratch cloned from a scratch record, within the record's lifetime.
  MappedImage image;
  uint8_t scratch_slot = 0;  // the prototype scratch sized for `db`
};

// Scratch sized by the loading threads: hs_alloc_scratch re-checks each database's checksum, a
// pass over every byte that was a serial step after loading; each thread now does it for its own
// databases while they are still in its cache. Slot 0 is this thread's, slot 1 the helper's.
using ScratchPrototypes = std::array<hs_scratch_t*, 2>;

// Copies `size` bytes of the blob area, from `offset`, to `dest` (a file read); false on failure.
using BlobFetch = std::function<bool(uint64_t offset, uint64_t size, uint8_t* dest)>;

// Runs every job. Thread-safe inputs only (spans into an immutable buffer); results are written to
// each job. With `fetch` (may be empty), a job's bytes are first read into a buffer its thread
// reuses from blob to blob (reading is spread over the threads too, and a pack's worth of fresh
// pages is never touched); `job.blob` then only gives the size. `fetch` must be safe to call from
// two threads. Never throws: when a thread cannot be started the work is done on this one.
// `prototypes` receives the scratch each thread allocated (null when it opened nothing); the
// caller owns them, also on failure. With `images` (may be null), each database is first looked
// up there and, when loaded from its blob instead, its image written there for the next process.
// True when slot 0 was cloned from the cache's scratch record for the images it mapped.
bool OpenBlobs(std::span<BlobJob> jobs, const BlobFetch& fetch, const ImageCache* images,
               ScratchPrototypes* prototypes);

}  // namespace doberman::internal

#endif  // DOBERMAN_RUNTIME_BLOB_LOADER_H_
