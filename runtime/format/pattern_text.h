// The pattern-text blob's entry in a pack's tables (Pack.pattern_text_*): the one check of where
// that blob lies and how it is stored, shared by the runtime's loader and `dobermanc inspect`,
// which must refuse the same malformed entries.
#ifndef DOBERMAN_FORMAT_PATTERN_TEXT_H_
#define DOBERMAN_FORMAT_PATTERN_TEXT_H_

#include <cstdint>

#include "envelope.h"
#include "lz4_block.h"
#include "pack_generated.h"

namespace doberman::internal {

// True when the pack has no pattern-text blob (size 0) or names it well: inside a blob area of
// `blob_area_size` bytes, with a digest of kBlobDigestSize bytes, a known encoding, and (LZ4 only,
// and then always) a decoded size the stored bytes can hold. Says nothing about the bytes
// themselves: their digest is the caller's to check before anything reads them.
inline bool PatternTextEntryOk(const fb::Pack& p, uint64_t blob_area_size) {
  const uint64_t offset = p.pattern_text_offset(), size = p.pattern_text_size();
  if (size == 0) return true;
  const bool lz4 = p.pattern_text_encoding() == fb::BlobEncoding::Lz4Block;
  return offset <= blob_area_size && size <= blob_area_size - offset &&
         p.pattern_text_digest() != nullptr && p.pattern_text_digest()->size() == kBlobDigestSize &&
         (lz4 || p.pattern_text_encoding() == fb::BlobEncoding::Raw) &&
         lz4 == (p.pattern_text_raw_size() != 0) &&
         p.pattern_text_raw_size() <= MaxLz4DecodedSize(size);
}

}  // namespace doberman::internal

#endif  // DOBERMAN_FORMAT_PATTERN_TEXT_H_
