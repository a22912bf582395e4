// Encoding of database blobs in the LZ4 block format, for the runtime's DecodeLz4Block. Packs are
// built once and loaded on every hook call, so this spends effort on what loading costs (hash
// chains, a lazy step, no short matches that are slower to decode than to hash as literals), never
// on speed of its own.
#ifndef DOBERMAN_COMPILER_LZ4_BLOCK_ENCODER_H_
#define DOBERMAN_COMPILER_LZ4_BLOCK_ENCODER_H_

#include <cstdint>
#include <span>
#include <vector>

namespace doberman::compiler {

// One LZ4 block that decodes to exactly `in` (empty input: one empty literal sequence).
std::vector<uint8_t> EncodeLz4Block(std::span<const uint8_t> in);

}  // namespace doberman::compiler

#endif  // DOBERMAN_COMPILER_LZ4_BLOCK_ENCODER_H_
