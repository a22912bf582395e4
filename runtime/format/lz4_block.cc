// DecodeLz4Block with Debian's liblz4 (LZ4_decompress_safe: bounds-checked, fuzzed upstream), which
// replaced a hand-written decoder: one well-kept codec instead of our own (docs/architecture.md).
#include "lz4_block.h"

#include <lz4.h>

#include <climits>

namespace doberman::internal {

bool DecodeLz4Block(std::span<const uint8_t> in, std::span<uint8_t> out) {
  // liblz4 takes int sizes; blobs are bounded far below (256 MiB), anything larger is refused.
  if (in.size() > static_cast<size_t>(INT_MAX) || out.size() > static_cast<size_t>(INT_MAX)) {
    return false;
  }
  if (in.empty()) return false;  // not even the one empty sequence
  // An empty output is written by a pointer liblz4 never dereferences; give it a valid one anyway.
  uint8_t empty = 0;
  char* dst = out.empty() ? reinterpret_cast<char*>(&empty) : reinterpret_cast<char*>(out.data());
  const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(in.data()), dst,
                                    static_cast<int>(in.size()), static_cast<int>(out.size()));
  return n >= 0 && static_cast<size_t>(n) == out.size();
}

uint64_t MaxLz4DecodedSize(uint64_t in_size) {
  // Best case: a 1-byte token, 2-byte offset and then 255 per extra length byte, so just under
  // 255 bytes of output per byte of input; rounded up generously.
  return in_size * 256 + 64;
}

}  // namespace doberman::internal
