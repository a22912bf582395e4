// Fuzz target for the LZ4 block decoder that opens compressed database blobs: the input decoded as
// a block into outputs of several sizes, each allocated exactly (a write past one is a sanitizer
// finding); then, for one input in eight, the input as data, encoded by the compiler and decoded
// back, which must return it unchanged and refuse an output one byte too long. (The encoder is
// liblz4's HC mode, whose per-call set-up costs about twenty decodes under ASan; the decoder is
// what reads untrusted bytes, so it gets the executions.)
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "lz4_block.h"
#include "lz4_block_encoder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using doberman::internal::DecodeLz4Block;
  const std::span<const uint8_t> in(data, size);
  const size_t declared = size >= 2 ? (data[0] | (size_t{data[1]} << 8)) : 0;
  for (size_t n : {size_t{0}, size_t{1}, size_t{17}, size, size * 8 + 40, declared}) {
    std::vector<uint8_t> out(n);
    DecodeLz4Block(in, out);
  }
  if (size > 0 && (data[size - 1] & 7) != 0) return 0;
  const std::vector<uint8_t> block = doberman::compiler::EncodeLz4Block(in);
  std::vector<uint8_t> back(size);
  if (!DecodeLz4Block(block, back) || !std::equal(back.begin(), back.end(), data)) __builtin_trap();
  std::vector<uint8_t> longer(size + 1);
  if (DecodeLz4Block(block, longer)) __builtin_trap();
  return 0;
}
