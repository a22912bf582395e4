// A scratch record: the scratch a process sized for a set of mapped images, kept in the image cache
// so that the next process clones it (hs_clone_scratch) instead of sizing one again. Sizing is
// hs_alloc_scratch per database, and hs_alloc_scratch runs Hyperscan's CRC-32C over every byte of
// the database first: about 0.6 ms and 29 % of a one-shot Bash hook's CPU for 3.7 MB of images.
//
// What is kept is the start of the scratch itself (the first kScratchRecordPrefix bytes), which
// holds Hyperscan's prototype: the sizes hs_clone_scratch allocates from. That is Hyperscan's
// internal layout, so every use is checked without trusting it: the record names the Hyperscan
// version and the exact images it was sized for, the writer checks that a clone made from the
// kept bytes alone has the original's size, and the reader clones and checks that size again.
// A record lives kScratchRecordLifetimeSeconds: after that the next process sizes the scratch the
// slow way, so Hyperscan's checksum still sees every image at least that often
// (docs/architecture.md, "The image cache"). Every doubt is a miss; the caller then sizes the
// scratch as before.
#ifndef DOBERMAN_RUNTIME_SCRATCH_RECORD_H_
#define DOBERMAN_RUNTIME_SCRATCH_RECORD_H_

#include <hs/hs_runtime.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace doberman::internal {

constexpr size_t kScratchRecordPrefix = 4096;
constexpr int64_t kScratchRecordLifetimeSeconds = 600;

using ScratchRecordKey = std::array<uint8_t, 32>;

// BLAKE2b-256 over a domain string, Hyperscan's version and the images' digests (32 bytes each) in
// sorted order: the same set of images gives the same key whatever order they were found in.
ScratchRecordKey KeyOfImages(std::vector<std::span<const uint8_t>> digests);

// The record's file name in the image cache: the key's hex and ".scr".
std::string ScratchRecordFileName(const ScratchRecordKey& key);

// The record of `scratch` (sized for the images `key` names, not yet used for a scan), made at
// `now` (seconds since the epoch); empty when a clone of the kept bytes would not reproduce it.
std::vector<uint8_t> EncodeScratchRecord(const ScratchRecordKey& key, const hs_scratch_t* scratch,
                                         int64_t now);

// A new scratch cloned from `record`, or null: another key, Hyperscan version or layout, a bad
// checksum, a record made more than kScratchRecordLifetimeSeconds before `now` (or in its future),
// or a clone whose size is not the recorded one. The caller owns the scratch (hs_free_scratch).
hs_scratch_t* CloneFromScratchRecord(std::span<const uint8_t> record, const ScratchRecordKey& key,
                                     int64_t now);

// The record's size: what the image cache reads at most.
size_t ScratchRecordBytes();

}  // namespace doberman::internal

#endif  // DOBERMAN_RUNTIME_SCRATCH_RECORD_H_
