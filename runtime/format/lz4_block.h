// Decoding of blobs stored in the LZ4 block format (lz4_Block_format.md), by liblz4: Hyperscan
// databases are tables full of zeros and repeats, about 6x smaller compressed, and a loader that
// hashes the stored bytes before using them hashes 6x less. Only ever called on bytes whose signed
// digest has already been checked, and still strict: any malformed or short input is refused, never
// read or written out of bounds.
#ifndef DOBERMAN_RUNTIME_LZ4_BLOCK_H_
#define DOBERMAN_RUNTIME_LZ4_BLOCK_H_

#include <cstdint>
#include <span>

namespace doberman::internal {

// True when `in` is one well-formed LZ4 block that decodes to exactly `out.size()` bytes, written
// to `out`. False otherwise (truncated input, an offset before the start of the output, output
// longer or shorter than `out`, a block that breaks the format's end rules: the last five bytes are
// literals and no match starts in the last 12); `out` then holds garbage. liblz4's
// LZ4_decompress_safe does the work.
bool DecodeLz4Block(std::span<const uint8_t> in, std::span<uint8_t> out);

// The most bytes one LZ4 block of `in_size` bytes can decode to (every sequence a 4-byte token run
// at the best ratio the format allows, about 255:1): loaders refuse a declared size above it.
uint64_t MaxLz4DecodedSize(uint64_t in_size);

}  // namespace doberman::internal

#endif  // DOBERMAN_RUNTIME_LZ4_BLOCK_H_
