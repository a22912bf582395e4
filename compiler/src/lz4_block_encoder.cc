// EncodeLz4Block with Debian's liblz4 in its high-compression mode (LZ4_compress_HC at the maximum
// level): packs are built once and loaded on every hook call, so the encoder spends time on fewer
// stored bytes to hash. Replaced a hand-written encoder (docs/architecture.md).
#include "lz4_block_encoder.h"

#include <lz4.h>
#include <lz4hc.h>

#include <memory>
#include <stdexcept>

namespace doberman::compiler {

std::vector<uint8_t> EncodeLz4Block(std::span<const uint8_t> in) {
  if (in.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) {
    throw std::length_error("database too large for one LZ4 block");
  }
  if (in.empty()) return {0x00};  // the one empty literal sequence (and no null pointer to liblz4)
  const int src_size = static_cast<int>(in.size());
  std::vector<uint8_t> out(static_cast<size_t>(LZ4_compressBound(src_size)) + 1);
  // One workspace per thread, reused: LZ4_compress_HC allocates (and faults in) its 256 KiB state
  // on every call. new[] returns memory aligned for any scalar, which is what liblz4 asks of it.
  thread_local const std::unique_ptr<char[]> state(new char[LZ4_sizeofStateHC()]);
  const int n = LZ4_compress_HC_extStateHC(state.get(), reinterpret_cast<const char*>(in.data()),
                                           reinterpret_cast<char*>(out.data()), src_size,
                                           static_cast<int>(out.size()), LZ4HC_CLEVEL_MAX);
  if (n <= 0) throw std::runtime_error("LZ4_compress_HC_extStateHC failed");
  out.resize(static_cast<size_t>(n));
  return out;
}

}  // namespace doberman::compiler
